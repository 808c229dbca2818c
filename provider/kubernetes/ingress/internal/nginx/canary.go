package nginx

import (
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/translate"
)

// CanaryConfig is what the canary annotations say.
type CanaryConfig struct {
	Enabled bool
}

var canaryAnnotations = []annotation{
	{name: "canary", parse: func(v string, c *Config) (err error) { c.Canary.Enabled, err = parseBool(v); return }},
}

// withCanaries is the service of the path once the canaries of its host
// and path have their share.
func (pc *pathContext) withCanaries(rs routedService) (routedService, bool) { return rs, true }

// checkCanary files the problems of a canary Ingress, which routes
// nothing of its own.
func checkCanary(env *translate.IngressEnv, p *translate.Part, ing *netv1.Ingress) {}
