package nginx

import (
	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// route is one way a path is served on one host name (its own, an alias,
// the www name, a canary's match): what routerPair makes its routers of.
type route struct {
	key      string // the plain router's key; the TLS router's is key+"_tls"
	host     string // the host name the rule matches
	rule     string // the TLS router's rule
	priority int
	to       routedService
	// backend is the Service port the routers are observed as sending to
	// (nil: the path's own).
	backend *translate.PortKey
	// plainMws and tlsMws are the middlewares of each router.
	plainMws, tlsMws []string
	// noPlain: the route has no plain router (a canary's on a host whose
	// plain requests the path's own plain router redirects to https).
	noPlain bool
}

// routerPair adds the routers of a route: a plain one and, when the host
// has TLS, a TLS one. It is the one place every router of the dialect is
// made, so what the routers of a host must agree on holds for all of
// them: each TLS router names the host's TLS option (client certificates,
// pc.tlsOptions; Traefik falls back to its default options for the whole
// host when two routers of it name different ones), and on a host that
// asks for client certificates each plain router matches the host in a
// way that chooses no TLS option (plainRouting).
func (pc *pathContext) routerPair(r route) {
	backend := pc.backend
	if r.backend != nil {
		backend = *r.backend
	}
	// The routers of a pair name the same Ingress and backend: they share
	// one observability value, which nothing modifies once made.
	var observability *dynamic.RouterObservabilityConfig
	build := func(rule string, priority int, mws []string) *dynamic.Router {
		rt := &dynamic.Router{Rule: rule, Priority: priority, Service: r.to.name, Observability: observability}
		if pc.env.PlanOptions.PinRuleSyntax {
			rt.RuleSyntax = translate.PinnedRuleSyntax
		}
		if len(mws) > 0 {
			rt.Middlewares = mws
		}
		if observability == nil {
			translate.SetObservability(rt, pc.ing, backend.Service.Name, backend.Text())
			observability = rt.Observability
		}
		return rt
	}
	if !r.noPlain {
		rule, priority := pc.plainRouting(r.host, r.rule, r.priority)
		pc.p.AddRouter(r.key, pc.ref, build(rule, priority, r.plainMws), r.to.svc)
	}
	if pc.facts.tls && !pc.facts.passthrough {
		secure := build(r.rule, r.priority, r.tlsMws)
		secure.TLS = &dynamic.RouterTLSConfig{Options: pc.tlsOptions}
		pc.p.AddRouter(r.key+"_tls", pc.ref, secure, r.to.svc)
	}
}

// hostRoute is the route of the path on host (its rule's, or an alias),
// sending to.
func (pc *pathContext) hostRoute(host string, to routedService) route {
	if pc.fallback {
		return pc.fallbackRoute(host, to)
	}
	return route{
		key:  NamePrefix + translate.RouterKey(pc.ing.Namespace, pc.ing.Name, host, pc.path.Path),
		host: host, rule: pathRule(host, pc.path, pc.facts.regex), priority: pathPriority(host, pc.path, pc.facts.regex, pc.ownerOf(host)),
		to: to,
	}
}

// ownerOf says whether the path's namespace owns host (its rule's host,
// or an alias, which it serves only when it does).
func (pc *pathContext) ownerOf(host string) bool {
	if host == pc.host {
		return !pc.facts.ownedElsewhere(pc.ing)
	}
	return pc.ownsHost(host)
}
