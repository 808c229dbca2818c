package nginx

import "github.com/sliceway/sliceway/config/dynamic"

// BackendConfig is what the backend annotations say.
type BackendConfig struct{}

func (c *BackendConfig) setDefaults() {}

var backendAnnotations = []annotation{}

// deriveService is how the backend annotations change the path's load
// balancer, nil when they do not.
func (pc *pathContext) deriveService() func(*dynamic.Service) *dynamic.Service { return nil }

// backendMiddlewares are the middlewares that change the request on its
// way to the backend, or the response.
func (pc *pathContext) backendMiddlewares() ([]string, bool) { return nil, true }
