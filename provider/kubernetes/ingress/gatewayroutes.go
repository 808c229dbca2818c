package ingress

import (
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// gatewayRoute is one route the Gateway front end serves: an HTTPRoute or
// a GRPCRoute, exactly one of the two set.
type gatewayRoute struct {
	http *gatewayv1.HTTPRoute
	grpc *gatewayv1.GRPCRoute
}

// gatewayRoutes are the routes of objs in the order a full render takes
// them, which is the order of the status outcome's routes: the HTTPRoutes
// by key, then the GRPCRoutes by key (compareRouteKeys).
func gatewayRoutes(objs GatewaySnapshot) []gatewayRoute {
	https, grpcs := sortedByKey(objs.HTTPRoutes()), sortedByKey(objs.GRPCRoutes())
	out := make([]gatewayRoute, 0, len(https)+len(grpcs))
	for _, r := range https {
		out = append(out, gatewayRoute{http: r})
	}
	for _, r := range grpcs {
		out = append(out, gatewayRoute{grpc: r})
	}
	return out
}

// compareRouteKeys orders routes as gatewayRoutes does.
func compareRouteKeys(a, b translate.ObjectKey) int {
	if ra, rb := routeKindRank(a.Kind), routeKindRank(b.Kind); ra != rb {
		return ra - rb
	}
	return translate.CompareKeys(a.Key, b.Key)
}

func routeKindRank(kind string) int {
	if kind == string(attach.KindHTTPRoute) {
		return 0
	}
	return 1
}

// view is what attachment reads of the route.
func (rt gatewayRoute) view() attach.Route {
	if rt.http != nil {
		return attach.RouteFromHTTP(rt.http)
	}
	return attach.RouteFromGRPC(rt.grpc)
}

// buildRoute checks the backendRefs of rt, attached as att says (after
// ResolveKindConflicts), and translates it into its part through ps when
// a parent accepts it (nil otherwise); the rules translation drops are
// written into att. The outcome is what its status says.
func buildRoute(ps *engine.Pass, env *gateway.Env, look attach.Lookups, rt gatewayRoute, att *attach.RouteAttachment) (routeOutcome, *engine.Part) {
	bc := checkRoute(look, rt, att)
	ro := routeOutcome{att: att, route: rt}
	var p *engine.Part
	if accepted(att) {
		var dropped []attach.DroppedRule
		p = ps.Build(func(part *translate.Part) { dropped = translateRoute(env, part, rt, att, &bc) })
		ro.dropped = dropped
		attach.ApplyDroppedRules(att, rt.rules(), dropped)
	}
	ro.backends = bc // with what translation found unresolvable (ExtensionRef filters)
	return ro, p
}

// checkRoute checks the backendRefs and mirrors of rt, attached as att
// says.
func checkRoute(look attach.Lookups, rt gatewayRoute, att *attach.RouteAttachment) attach.BackendCheck {
	var bc attach.BackendCheck
	if route := rt.http; route != nil {
		bc = attach.CheckBackends(att.Route, attach.HTTPRouteBackendRefs(route), look)
		bc.CheckMirrors(att.Route, attach.HTTPRouteMirrorRefs(route), look)
		return bc
	}
	route := rt.grpc
	bc = attach.CheckBackends(att.Route, attach.GRPCRouteBackendRefs(route), look)
	bc.CheckMirrors(att.Route, attach.GRPCRouteMirrorRefs(route), look)
	return bc
}

// rules is how many rules the route has.
func (rt gatewayRoute) rules() int {
	if rt.http != nil {
		return len(rt.http.Spec.Rules)
	}
	return len(rt.grpc.Spec.Rules)
}

// translateRoute translates rt into part, and says the rules it drops; it
// adds to bc the references it cannot resolve.
func translateRoute(env *gateway.Env, part *translate.Part, rt gatewayRoute, att *attach.RouteAttachment, bc *attach.BackendCheck) []attach.DroppedRule {
	if rt.http != nil {
		return gateway.HTTPRoute(env, part, rt.http, att, bc)
	}
	return gateway.GRPCRoute(env, part, rt.grpc, att, bc)
}

// accepted says whether a parent accepts the route of att: it then has a
// part.
func accepted(att *attach.RouteAttachment) bool {
	return slices.ContainsFunc(att.Parents, func(p attach.ParentAttachment) bool { return p.Accepted })
}

// routeEnv is what translating a route reads besides it: the load
// balancers of ps, the BackendTLSPolicies, the Gateways of ours (as a
// render processed them) and the client certificates of snap.
func (d *gatewayDialect) routeEnv(ps *engine.Pass, snap Snapshot, backendTLS *attach.BackendTLSPolicies, gateways []attach.Gateway) *gateway.Env {
	byKey := make(map[translate.Key]*attach.Gateway, len(gateways))
	for i := range gateways {
		g := &gateways[i]
		byKey[translate.Key{Namespace: g.Namespace, Name: g.Name}] = g
	}
	return &gateway.Env{LoadBalancer: ps.LoadBalancer, Target: d.target, BackendTLS: backendTLS.For,
		ClientCertificate: func(ref attach.SecretRef) (dynamic.Certificate, error) { return clientCertificate(snap, ref) },
		Gateway:           func(ns, name string) *attach.Gateway { return byKey[translate.Key{Namespace: ns, Name: name}] }}
}

// Rank gives the routers of the route parts their Traefik priorities,
// ranked over all of them (gateway.Priorities): a router's priority
// depends on every other router of its entry point. The routers of the
// parts own says are this render's (all of them with a nil own) are not
// handed out yet: their priorities are set in place. Any other router
// whose priority changes gets a new configuration with the new one (the
// configuration handed out keeps the old), and its part is in reranked:
// its routers must be placed again.
func (*gatewayDialect) Rank(parts []*engine.Part, own func(*engine.Part) bool) (reranked []*engine.Part, err error) {
	var routers []*translate.Router
	for _, p := range parts {
		for i := range p.Routers {
			routers = append(routers, &p.Routers[i])
		}
	}
	prios, err := gateway.Priorities(routers)
	if err != nil {
		return nil, err
	}
	k := 0 // routers[k] is the router of p.Routers[i]
	for _, p := range parts {
		mine := own == nil || own(p)
		moved := false
		for i := range p.Routers {
			rt, prio := &p.Routers[i], prios[k]
			k++
			switch {
			case rt.Config.Priority == prio:
			case mine:
				rt.Config.Priority = prio
			default:
				cfg := *rt.Config
				cfg.Priority = prio
				rt.Config, moved = &cfg, true
			}
		}
		if moved {
			reranked = append(reranked, p)
		}
	}
	return reranked, nil
}
