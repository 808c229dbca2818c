package gateway

import (
	"fmt"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// ruleService is where a rule's routers send: the name of a service and
// the service itself; failing when it answers every request 500 (none of
// the rule's backends is usable), which no retry changes.
type ruleService struct {
	name    string
	svc     *dynamic.Service
	failing bool
}

// service is the service of rule ri, whose backendRefs resolved as rb:
// the load balancer of its one usable backend, or a weighted service of
// its usable backends by weight, in which the share of the unusable ones
// goes to a service that answers 500, as the Gateway API asks
// (unavailable). When none is usable, every request goes there. A backend whose Service
// port has no load balancer (a port the Service lacks, an ExternalName
// Service refused) counts as unusable, with a problem naming it.
//
// With h2c (a GRPCRoute's), each load balancer's servers are reached with
// HTTP/2 without TLS (h2c), unless they are https: gRPC needs HTTP/2. So
// are those of a Service port whose appProtocol says h2c (KEP-3726). With
// a timeout, through the servers transport that bounds it (timeouts.go);
// a load balancer that names a transport of its own (a Service
// annotation) cannot take it, and counts as unusable.
//
// A backendRef with filters is reached through a service of the rule's
// own that runs their middlewares (Traefik's service middlewares), after
// the router's, as the Gateway API orders them.
func (t *routeTranslation) service(ri int, rb attach.RuleBackends, tw backendTweaks) ruleService {
	var members []dynamic.WRRService
	var lbs []ruleService // the load balancers of members
	unusable := rb.UnusableWeight
	tw.stickyMembers = weightedMembers(rb) > 1
	for bi, b := range rb.Backends {
		if !b.Usable {
			continue
		}
		key := translate.PortKey{Service: translate.Key{Namespace: b.Namespace, Name: b.Name}, Port: netv1.ServiceBackendPort{Number: b.Port}}
		name := key.ServiceName()
		lb := t.env.LoadBalancer(key, name)
		if lb.Err != nil {
			t.p.Problem(fmt.Sprintf("spec.rules[%d].backendRefs[%d]", ri, bi), translate.SeverityError,
				fmt.Errorf("%w (its share of the requests answers 500)", lb.Err))
			unusable += int64(b.Weight)
			continue
		}
		if b.Weight == 0 {
			continue // takes no request
		}
		tls := t.env.backendTLS(b)
		if tls != nil && !tls.Accepted {
			t.p.Problem(fmt.Sprintf("spec.rules[%d].backendRefs[%d]", ri, bi), translate.SeverityError,
				fmt.Errorf("BackendTLSPolicy %s/%s of service %s/%s is not accepted: %s (its share of the requests answers 500)",
					tls.Namespace, tls.Name, b.Namespace, b.Name, tls.Message))
			unusable += int64(b.Weight)
			continue
		}
		if (tls != nil || timeoutLimit(tw.timeouts) > 0) && lb.Service.LoadBalancer != nil && lb.Service.LoadBalancer.ServersTransport != "" {
			// A load balancer names one servers transport: the policy's
			// (which carries the timeouts too) or the timeouts'.
			field, by := fmt.Sprintf("spec.rules[%d].timeouts", ri), "the rule's timeouts"
			if tls != nil {
				field, by = fmt.Sprintf("spec.rules[%d].backendRefs[%d]", ri, bi), fmt.Sprintf("BackendTLSPolicy %s/%s", tls.Namespace, tls.Name)
			}
			t.p.Problem(field, translate.SeverityError,
				fmt.Errorf("service %s/%s names servers transport %s, which the servers transport of %s would replace (its share of the requests answers 500)",
					b.Namespace, b.Name, excerpt.Quote(lb.Service.LoadBalancer.ServersTransport), by))
			unusable += int64(b.Weight)
			continue
		}
		w := int(b.Weight)
		rs := t.tweaked(ri, bi, ruleService{name: name, svc: lb.Service}, tw.h2c || speaksH2C(b.AppProtocol), tw, tls)
		if bi < len(tw.mirrors) {
			rs = t.mirrored(ri, t.names.backend(ri, bi)+"-mirror", rs, tw.mirrors[bi], rb, tw.h2c)
		}
		members = append(members, dynamic.WRRService{Name: rs.name, Weight: &w})
		lbs = append(lbs, rs)
	}
	switch {
	case len(lbs) == 1 && unusable == 0:
		return lbs[0]
	case len(lbs) == 0:
		rs := t.unavailable(ri)
		rs.failing = true
		return rs
	}
	for _, lb := range lbs {
		t.place(lb) // a derived one is the part's already
	}
	if unusable > 0 {
		w := int(min(unusable, int64(maxWeight)))
		members = append(members, dynamic.WRRService{Name: t.unavailable(ri).name, Weight: &w})
	}
	name := t.names.rule(ri)
	svc := &dynamic.Service{Weighted: &dynamic.WeightedRoundRobin{Services: members}}
	if tw.sticky != nil {
		cookie := *tw.sticky
		svc.Weighted.Sticky = &dynamic.Sticky{Cookie: &cookie}
	}
	t.p.Services = append(t.p.Services, translate.NamedService{Name: name, Service: svc})
	return ruleService{name: name, svc: svc}
}

// maxWeight bounds the error share's weight: backendRef weights are at
// most 1,000,000 each and at most 64 per rule (the API's limits), so the
// sum stays far below it, and an int of 32 bits holds it.
const maxWeight = 1 << 30

// place puts the load balancer a weighted service names in the part, as
// a service that follows the load balancer when it is rebuilt in place
// (a change of its EndpointSlices swaps it in the part too).
func (t *routeTranslation) place(lb ruleService) {
	for _, ns := range t.p.Services {
		if ns.Name == lb.name {
			return
		}
	}
	t.p.Services = append(t.p.Services, translate.NamedService{Name: lb.name, Service: lb.svc, Base: lb.svc, Derive: sameService})
}

func sameService(s *dynamic.Service) *dynamic.Service { return s }

// derived is the service derive makes of the load balancer lb, named
// name, which every route that derives it alike shares (the same name,
// the same definition); it follows the load balancer when that is
// rebuilt in place.
func (t *routeTranslation) derived(lb ruleService, name string, derive func(*dynamic.Service) *dynamic.Service) ruleService {
	for _, ns := range t.p.Services {
		if ns.Name == name {
			return ruleService{name: name, svc: ns.Service}
		}
	}
	svc := derive(lb.svc)
	t.p.Services = append(t.p.Services, translate.NamedService{Name: name, Service: svc, Base: lb.svc, Derive: derive})
	return ruleService{name: name, svc: svc}
}

// backendTweaks is what a rule changes of its backends' load balancers.
type backendTweaks struct {
	// h2c: the backends speak HTTP/2 without TLS (gRPC).
	h2c bool
	// timeouts are the forwarding timeouts of the rule; nil when none.
	timeouts *dynamic.ForwardingTimeouts
	// filters are the middlewares of each backendRef's filters, by
	// index; nil or empty for a backendRef without. mirrors are, the
	// same way, each backendRef's RequestMirror filters.
	filters [][]filter.NamedMiddleware
	mirrors [][]filter.Mirror
	// sticky is the cookie of the rule's sessionPersistence, nil when it
	// keeps no session; stickyMembers says the rule's service is a
	// weighted one, which keeps the session by that cookie, its members
	// each by one of their own (the cookie's name and "-<backendRef>").
	sticky        *dynamic.Cookie
	stickyMembers bool
	// clientCertificate is what the rule's Gateways present to backends
	// reached over TLS (spec.tls.backend); nil when nothing.
	clientCertificate *dynamic.Certificate
	clientSecret      *attach.SecretRef
}

// tweaked is lb as rule ri reaches its backendRef bi: with h2c, through
// the transport of the rule's timeouts (when they bound anything), with
// the backendRef's filters, or as it is. A derived service without
// filters is shared by every rule that derives it alike; one with
// filters is the rule's alone.
func (t *routeTranslation) tweaked(ri, bi int, lb ruleService, h2c bool, tw backendTweaks, tls *attach.BackendTLS) ruleService {
	var suffixes []string
	var steps []func(*dynamic.Service) *dynamic.Service
	limit := timeoutLimit(tw.timeouts)
	switch {
	case tls != nil:
		// TLS as the policy says; gRPC then negotiates HTTP/2 by ALPN.
		suffixes, steps = append(suffixes, tlsSuffix(tw)), append(steps, toHTTPS, withTransport(t.tlsTransport(tls, tw)))
		if limit > 0 {
			suffixes = append(suffixes, timeoutSuffix(limit))
		}
	case limit > 0:
		if h2c {
			suffixes, steps = append(suffixes, "h2c"), append(steps, toH2C)
		}
		suffixes = append(suffixes, timeoutSuffix(limit))
		steps = append(steps, withTransport(t.timeoutTransport(tw.timeouts)))
	case h2c:
		suffixes, steps = append(suffixes, "h2c"), append(steps, toH2C)
	}
	name := lb.name + "-" + strings.Join(suffixes, "-")
	if tw.sticky != nil && bi >= 0 {
		cookie := *tw.sticky
		if tw.stickyMembers {
			cookie.Name = fmt.Sprintf("%s-%d", cookie.Name, bi)
		}
		name = t.names.backend(ri, bi)
		steps = append(steps, withSticky(&cookie))
	}
	if bi >= 0 && bi < len(tw.filters) && len(tw.filters[bi]) > 0 {
		names := make([]string, len(tw.filters[bi]))
		for i, m := range tw.filters[bi] {
			names[i] = m.Name
		}
		name = t.names.backend(ri, bi)
		steps = append(steps, withMiddlewares(names))
	}
	if len(steps) == 0 {
		return lb
	}
	return t.derived(lb, name, func(s *dynamic.Service) *dynamic.Service {
		for _, step := range steps {
			s = step(s)
		}
		return s
	})
}

// withSticky is base, a load balancer, keeping sessions by cookie; base
// is left as it is.
func withSticky(cookie *dynamic.Cookie) func(*dynamic.Service) *dynamic.Service {
	return func(base *dynamic.Service) *dynamic.Service {
		if base == nil || base.LoadBalancer == nil {
			return base
		}
		out, lb := *base, *base.LoadBalancer
		lb.Sticky = &dynamic.Sticky{Cookie: cookie}
		out.LoadBalancer = &lb
		return &out
	}
}

// weightedMembers is how many members the weighted service of rb would
// have: its backends that take requests (usable ones as themselves,
// unusable ones in the share that answers 500, one member). A rule of
// one is served by that backend's load balancer alone.
func weightedMembers(rb attach.RuleBackends) int {
	n := 0
	for _, b := range rb.Backends {
		if b.Usable && b.Weight > 0 {
			n++
		}
	}
	if rb.UnusableWeight > 0 {
		n++
	}
	return n
}

// withMiddlewares is base with middlewares run for every request it
// gets; base is left as it is.
func withMiddlewares(names []string) func(*dynamic.Service) *dynamic.Service {
	return func(base *dynamic.Service) *dynamic.Service {
		if base == nil {
			return base
		}
		out := *base
		out.Middlewares = names
		return &out
	}
}

// toH2C is base with its http servers reached by h2c; base is left as
// it is.
var toH2C = withScheme("h2c://", "http://")

// withScheme is base with its servers of the schemes from reached with
// scheme to instead; base is left as it is.
func withScheme(to string, from ...string) func(*dynamic.Service) *dynamic.Service {
	return func(base *dynamic.Service) *dynamic.Service {
		if base == nil || base.LoadBalancer == nil {
			return base
		}
		out, lb := *base, *base.LoadBalancer
		lb.Servers = make([]dynamic.Server, len(base.LoadBalancer.Servers))
		for i, s := range base.LoadBalancer.Servers {
			for _, scheme := range from {
				if rest, ok := strings.CutPrefix(s.URL, scheme); ok {
					s.URL = to + rest
				}
			}
			lb.Servers[i] = s
		}
		out.LoadBalancer = &lb
		return &out
	}
}

// unavailable is the service of the rule's unusable share, which
// answers 500: Traefik answers 503 for a load balancer without servers
// (<rule>-unavailable), so the service runs that load balancer behind an
// errors middleware of its own (a service middleware, Traefik v3.7) that
// rewrites the 503 into 500, the body taken from the same load balancer.
// As a member of a weighted service, it answers its share alone.
func (t *routeTranslation) unavailable(ri int) ruleService {
	empty := t.names.rule(ri) + "-unavailable"
	name := empty + "-500"
	for _, ns := range t.p.Services {
		if ns.Name == name {
			return ruleService{name: name, svc: ns.Service}
		}
	}
	mw := dynamic.Middleware{"errors": map[string]any{
		"status":         []string{"503"},
		"statusRewrites": map[string]int{"503": 500},
		"service":        empty,
		"query":          "/",
	}}
	t.p.Middlewares = append(t.p.Middlewares, translate.NamedMiddleware{Name: name, Middleware: &mw})
	svc := dynamic.NewServersService()
	svc.Middlewares = []string{name}
	t.p.Services = append(t.p.Services,
		translate.NamedService{Name: empty, Service: dynamic.NewServersService()},
		translate.NamedService{Name: name, Service: svc})
	return ruleService{name: name, svc: svc}
}

// speaksH2C says whether a Service port's appProtocol asks for HTTP/2
// without TLS: kubernetes.io/h2c, or plain h2c.
func speaksH2C(appProtocol string) bool {
	switch strings.ToLower(appProtocol) {
	case "kubernetes.io/h2c", "h2c":
		return true
	}
	return false
}
