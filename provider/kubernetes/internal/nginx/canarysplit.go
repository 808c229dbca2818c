package nginx

import (
	"slices"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// How a main path shares its requests with its canary, in ingress-nginx's
// order of precedence:
//
//  1. the header (canary-by-header): routers of the path, one priority
//     above its own, that match the header's value; "never" (or any
//     value, when the pattern did not compile) goes to the main backend;
//  2. the cookie (canary-by-cookie): routers at the same priority whose
//     rules also say that the header did not decide;
//  3. the weight: the path's own routers send to a weighted service of
//     the main backend and the canary's load balancer.
//
// A router that would send where the path's own routers send is left
// out. Each router has the path's middlewares, and a twin on TLS
// connections when the host has TLS, so plain and TLS requests are split
// alike.

// canarySplit is what withCanaries chose for a path: the routers that
// path() adds for it (canaryRouters).
type canarySplit struct {
	cfg           *CanaryConfig
	main, canary  routedService
	canaryBackend translate.PortKey
	path          string // the service of the path's own routers
	// services are those the split adds to the part, once the path is
	// served (canaryRouters): none is left without a router.
	services []translate.NamedService
}

// withCanaries is the service of the path once its canary has its share:
// the main service, a weighted one, or the canary's load balancer alone
// (its weight is the total). The canary's load balancer is asked for
// even when it cannot be used, so that the part depends on its Service.
func (pc *pathContext) withCanaries(rs routedService) (routedService, bool) {
	c, ok := pc.facts.canaries.choose(pathOf(pc.path), pc.ing.Namespace, pc.backend)
	if !ok || !c.cfg.decides() {
		return rs, true
	}
	name := serviceName(c.backend)
	lb := pc.env.LoadBalancer(c.backend, name)
	if lb.Err != nil || (lb.NoServers() && !pc.env.AllowEmptyServices) {
		// The canary's part says why. ingress-nginx too sends every
		// request to the main backend when the canary has no endpoints.
		return rs, true
	}
	s := &canarySplit{cfg: c.cfg, main: rs, canary: routedService{name: name, svc: lb.Service}, canaryBackend: c.backend}
	pc.canary = s
	s.place(pc.p, s.canary)
	out := rs
	switch mainW, canaryW := c.cfg.shares(); {
	case canaryW == 0:
	case mainW == 0:
		out = s.canary
	default:
		s.place(pc.p, rs)
		w := &dynamic.Service{Weighted: &dynamic.WeightedRoundRobin{Services: []dynamic.WRRService{
			{Name: rs.name, Weight: &mainW}, {Name: name, Weight: &canaryW},
		}, Sticky: pc.canarySticky()}}
		out = routedService{name: pc.name("canary"), svc: w}
		s.services = append(s.services, translate.NamedService{Name: out.name, Service: w})
	}
	s.path = out.name
	return out, true
}

// place puts a load balancer that a weighted service names in the
// configuration, unless the part has a service of that name already (a
// derived one, which follows its base). Derive is the identity, so that a
// load balancer rebuilt in place (a change of its EndpointSlices) is
// swapped in the part too.
func (s *canarySplit) place(p *translate.Part, rs routedService) {
	for _, ns := range p.Services {
		if ns.Name == rs.name {
			return
		}
	}
	s.services = append(s.services, translate.NamedService{Name: rs.name, Service: rs.svc, Base: rs.svc, Derive: sameService})
}

func sameService(s *dynamic.Service) *dynamic.Service { return s }

// canaryRoute is a router of the split: what it matches besides the
// path's rule and where it sends.
type canaryRoute struct {
	suffix   string
	match    string
	toCanary bool
}

// routes are the routers of the split besides the path's own.
func (s *canarySplit) routes() []canaryRoute {
	c := s.cfg
	var routes, header []canaryRoute
	switch c.headerMode() {
	case headerAlways:
		header = []canaryRoute{
			{"canary-header", matcher2("Header", c.Header, "always"), true},
			{"canary-header-never", matcher2("Header", c.Header, "never"), false},
		}
	case headerValue:
		header = []canaryRoute{{"canary-header", matcher2("Header", c.Header, c.HeaderValue), true}}
	case headerPattern:
		header = []canaryRoute{{"canary-header", matcher2("HeaderRegexp", c.Header, c.HeaderPattern), true}}
	case headerBroken:
		// Any value of the header, even an empty one: nginx tests that
		// the header is there.
		header = []canaryRoute{{"canary-header-never", matcher2("HeaderRegexp", c.Header, "^"), false}}
	}
	routes = append(routes, header...)
	if c.Cookie != "" {
		undecided := ""
		for _, h := range header {
			undecided += " && !" + h.match
		}
		routes = append(routes,
			canaryRoute{"canary-cookie", cookieMatch(c.Cookie, "always") + undecided, true},
			canaryRoute{"canary-cookie-never", cookieMatch(c.Cookie, "never") + undecided, false})
	}
	return slices.DeleteFunc(routes, func(r canaryRoute) bool { return s.target(r).name == s.path })
}

// target is where a route sends.
func (s *canarySplit) target(r canaryRoute) routedService {
	if r.toCanary {
		return s.canary
	}
	return s.main
}

// canaryRouters adds the routers and services of the path's split, if it
// has one, once the path is served: base is the route of the path's own
// routers on its host (rule, priority and middlewares).
func (pc *pathContext) canaryRouters(base route) {
	s := pc.canary
	if s == nil {
		return
	}
	for _, ns := range s.services {
		if !slices.ContainsFunc(pc.p.Services, func(o translate.NamedService) bool { return o.Name == ns.Name }) {
			pc.p.Services = append(pc.p.Services, ns)
		}
	}
	for _, r := range s.routes() {
		cr := route{
			key: pc.name(r.suffix), host: base.host, rule: base.rule + " && " + r.match,
			// The path's priority is odd (pathPriority), so this is above
			// its own routers and below those of a longer path.
			priority: base.priority + 1, to: s.target(r),
			plainMws: base.plainMws, tlsMws: base.tlsMws,
			// A host that asks for client certificates redirects every
			// plain request: the path's own plain router does.
			noPlain: pc.plainRedirect != "",
		}
		if r.toCanary {
			cr.backend = &s.canaryBackend
		}
		pc.routerPair(cr)
	}
}
