package nginx

// AccessConfig is what the access annotations say.
type AccessConfig struct{}

func (c *AccessConfig) setDefaults() {}

var accessAnnotations = []annotation{}

// access are the middlewares that decide who reaches the backend.
func (pc *pathContext) access() ([]string, bool) { return nil, true }
