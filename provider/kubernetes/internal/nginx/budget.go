package nginx

import (
	"fmt"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// What one Ingress adds to the configuration is bounded twice. The
// estimate (output.go) refuses, before anything is built, an Ingress that
// is plainly too large. The count here follows the part as its paths are
// built and counts what the estimate cannot see: the routers of its
// canaries with their header and cookie texts, the services derived from
// a load balancer with every server of it, the routers of aliases and www
// names. Once the count passes maxIngressOutput the Ingress is skipped:
// its part keeps its certificates, dependencies and problems, nothing it
// would route. So an Ingress never adds more than about maxIngressOutput
// plus what one path adds, however its annotations multiply.

// outputCount is how far the count has read a part, and what it found.
type outputCount struct {
	routers, services, middlewares, transports, tlsOptions int
	bytes                                                  int64
}

// countedShare is what a router adds besides the texts it is counted by:
// its fields, observability metadata and the name's map entry.
const countedShare = 160

// count adds to c what p has added since the last count.
func (c *outputCount) count(p *translate.Part) {
	for _, r := range p.Routers[min(c.routers, len(p.Routers)):] {
		c.bytes += countedShare + int64(2*len(r.Key)+len(r.Config.Rule)+len(r.Config.Service))
		for _, m := range r.Config.Middlewares {
			c.bytes += int64(len(m) + 4)
		}
	}
	for _, s := range p.Services[min(c.services, len(p.Services)):] {
		if s.Service != s.Base { // a load balancer itself is the cluster's, not the Ingress's
			c.bytes += int64(len(s.Name)) + serviceBytes(s.Service)
		}
	}
	for _, m := range p.Middlewares[min(c.middlewares, len(p.Middlewares)):] {
		c.bytes += int64(len(m.Name)) + valueBytes(map[string]any(*m.Middleware))
	}
	for _, t := range p.Transports[min(c.transports, len(p.Transports)):] {
		c.bytes += int64(len(t.Name)) + 64 + stringsBytes(t.Transport.RootCAs)
		for _, crt := range t.Transport.Certificates {
			c.bytes += int64(len(crt.CertFile) + len(crt.KeyFile))
		}
	}
	for _, o := range p.TLSOptions[min(c.tlsOptions, len(p.TLSOptions)):] {
		c.bytes += int64(len(o.Name)) + 64
		if o.Options.ClientAuth != nil {
			c.bytes += stringsBytes(o.Options.ClientAuth.CAFiles)
		}
	}
	c.routers, c.services, c.middlewares = len(p.Routers), len(p.Services), len(p.Middlewares)
	c.transports, c.tlsOptions = len(p.Transports), len(p.TLSOptions)
}

func serviceBytes(s *dynamic.Service) int64 {
	n := int64(96)
	if s == nil {
		return n
	}
	if lb := s.LoadBalancer; lb != nil {
		for _, srv := range lb.Servers {
			n += int64(len(srv.URL) + 16)
		}
		if lb.Sticky != nil {
			n += 96
		}
	}
	if w := s.Weighted; w != nil {
		for _, ws := range w.Services {
			n += int64(len(ws.Name) + 24)
		}
	}
	return n
}

// valueBytes is about what a middleware's value takes written out.
func valueBytes(v any) int64 {
	switch v := v.(type) {
	case string:
		return int64(len(v) + 4)
	case []string:
		return stringsBytes(v)
	case map[string]string:
		n := int64(0)
		for k, x := range v {
			n += int64(len(k)+len(x)) + 8
		}
		return n
	case map[string]any:
		n := int64(0)
		for k, x := range v {
			n += int64(len(k)) + 8 + valueBytes(x)
		}
		return n
	case []any:
		n := int64(0)
		for _, x := range v {
			n += valueBytes(x)
		}
		return n
	}
	return 8
}

func stringsBytes(list []string) int64 {
	n := int64(0)
	for _, s := range list {
		n += int64(len(s) + 4)
	}
	return n
}

// overOutput counts what the part has added, and once that passes the
// bound skips the Ingress (true).
func (t *translation) overOutput(paths int) bool {
	limit := t.env.PlanOptions.MaxOutput
	if limit <= 0 {
		return false
	}
	t.output.count(t.p)
	if t.output.bytes <= limit {
		return false
	}
	p := t.p
	p.Routers, p.Services, p.Middlewares, p.Transports, p.TLSOptions, p.Default = p.Routers[:0], nil, nil, nil, nil, nil
	p.Problem("spec.rules", translate.SeverityError, fmt.Errorf(
		"its first %d paths came to about %d bytes of configuration, over maxIngressOutput (%d bytes), counting their canary routers, the services derived from load balancers with all their servers, and the routers of aliases (the Ingress is skipped)",
		paths, t.output.bytes, limit))
	return true
}
