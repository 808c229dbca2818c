package attach

import (
	"fmt"
	"sort"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ReasonConflictingRouteKind is the Accepted=False reason of a route that
// lost every listener of a parent to a route of the other kind (HTTPRoute
// against GRPCRoute) with an overlapping hostname. The API requires the
// refusal but names no reason for it.
const ReasonConflictingRouteKind gatewayv1.RouteConditionReason = "ConflictingRouteKind"

// listenerKey names one listener of one Gateway.
type listenerKey struct {
	namespace, gateway string
	listener           gatewayv1.SectionName
}

// ResolveKindConflicts enforces the GRPCRoute rule that an HTTPRoute and a
// GRPCRoute may not both be attached to one listener with hostnames that
// overlap: of two such routes the older one (then the first by
// namespace/name) keeps the listener and the other is detached from it. A
// parent left with no listener becomes Accepted=False with
// ReasonConflictingRouteKind. Routes of other kinds are not involved, and
// routes of the same kind never conflict here.
//
// It works on the accepted attachments of all routes at once, so it must see
// every HTTPRoute and GRPCRoute; run it after ApplyDroppedRules and before
// CountAttachedRoutes.
func ResolveKindConflicts(routes []RouteAttachment) {
	type claim struct {
		route int
		hosts [][]gatewayv1.Hostname
	}
	claims := map[listenerKey]map[int]*claim{}
	for r := range routes {
		if kindSide(routes[r].Route.Kind) < 0 {
			continue
		}
		eachClaim(&routes[r], func(k listenerKey, hosts []gatewayv1.Hostname) {
			if claims[k] == nil {
				claims[k] = map[int]*claim{}
			}
			if claims[k][r] == nil {
				claims[k][r] = &claim{route: r}
			}
			claims[k][r].hosts = append(claims[k][r].hosts, hosts)
		})
	}

	losers := map[int]map[listenerKey]string{} // route -> listener -> winner
	for k, byRoute := range claims {
		ordered := make([]*claim, 0, len(byRoute))
		for _, c := range byRoute {
			ordered = append(ordered, c)
		}
		sort.Slice(ordered, func(i, j int) bool {
			return routes[ordered[i].route].Route.before(routes[ordered[j].route].Route)
		})
		// The routes that kept the listener, by kind: a route is checked
		// against those of the other kind only, so that a listener of
		// HTTPRoutes alone costs no comparison.
		kept := map[gatewayv1.Kind][]*claim{}
		for _, c := range ordered {
			kind := routes[c.route].Route.Kind
			other := KindGRPCRoute
			if kind == KindGRPCRoute {
				other = KindHTTPRoute
			}
			winner := -1
			for _, w := range kept[other] {
				if claimsOverlap(w.hosts, c.hosts) {
					winner = w.route
					break
				}
			}
			if winner < 0 {
				kept[kind] = append(kept[kind], c)
				continue
			}
			if losers[c.route] == nil {
				losers[c.route] = map[listenerKey]string{}
			}
			losers[c.route][k] = routes[winner].Route.String()
		}
	}

	for r, lost := range losers {
		for i := range routes[r].Parents {
			p := &routes[r].Parents[i]
			if !p.Accepted {
				continue
			}
			var keptListeners []ListenerAttachment
			var winners []string
			for _, la := range p.Listeners {
				if w, ok := lost[listenerKey{p.GatewayNamespace, p.GatewayName, la.Listener}]; ok {
					winners = append(winners, fmt.Sprintf("listener %s: %s", la.Listener, w))
					continue
				}
				keptListeners = append(keptListeners, la)
			}
			p.Listeners = keptListeners
			if len(keptListeners) == 0 {
				*p = p.refuse(ReasonConflictingRouteKind,
					"an older route of the other kind already serves these hostnames on every listener of Gateway "+
						p.GatewayNamespace+"/"+p.GatewayName+" it attaches to ("+problemList(winners)+")")
			}
		}
	}
}

// claimsOverlap reports whether two routes' hostname sets on one listener
// share a host.
func claimsOverlap(a, b [][]gatewayv1.Hostname) bool {
	for _, x := range a {
		for _, y := range b {
			if HostnamesOverlap(x, y) {
				return true
			}
		}
	}
	return false
}
