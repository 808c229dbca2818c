package attach

import gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

// KindClaims are the listeners that the accepted parents of HTTPRoutes
// and GRPCRoutes claim, with the hostnames each route claims them for,
// before ResolveKindConflicts settles them: what a change of some routes
// is checked against, so that it can be taken in without settling every
// route again. A route whose claims overlap no claim of the other kind,
// before its change and after it, neither loses a listener to a route of
// the other kind nor makes one lose; the settlement of every other route
// stays as it was.
type KindClaims struct {
	routes map[claimant]map[listenerKey][][]gatewayv1.Hostname
	// byListener holds, for each listener, the claims on it of each
	// kind (HTTPRoute first).
	byListener map[listenerKey]*[2]map[claimant][][]gatewayv1.Hostname
}

// claimant names a route among the claims.
type claimant struct {
	kind            gatewayv1.Kind
	namespace, name string
}

// NewKindClaims are the claims of routes, attachments as AttachRoute
// made them (before ResolveKindConflicts).
func NewKindClaims(routes []RouteAttachment) *KindClaims {
	k := &KindClaims{routes: make(map[claimant]map[listenerKey][][]gatewayv1.Hostname, len(routes)),
		byListener: map[listenerKey]*[2]map[claimant][][]gatewayv1.Hostname{}}
	for i := range routes {
		k.Add(&routes[i])
	}
	return k
}

// Add records the claims of att, a route's attachment as AttachRoute made
// it; a route recorded already is replaced.
func (k *KindClaims) Add(att *RouteAttachment) {
	side := kindSide(att.Route.Kind)
	if side < 0 {
		return
	}
	who := claimant{att.Route.Kind, att.Route.Namespace, att.Route.Name}
	k.Remove(att.Route)
	var mine map[listenerKey][][]gatewayv1.Hostname
	eachClaim(att, func(l listenerKey, hosts []gatewayv1.Hostname) {
		if mine == nil {
			mine = map[listenerKey][][]gatewayv1.Hostname{}
		}
		mine[l] = append(mine[l], hosts)
	})
	if mine == nil {
		return
	}
	k.routes[who] = mine
	for l, hosts := range mine {
		sides := k.byListener[l]
		if sides == nil {
			sides = &[2]map[claimant][][]gatewayv1.Hostname{}
			k.byListener[l] = sides
		}
		if sides[side] == nil {
			sides[side] = map[claimant][][]gatewayv1.Hostname{}
		}
		sides[side][who] = hosts
	}
}

// Remove forgets the claims of route.
func (k *KindClaims) Remove(route Route) {
	who := claimant{route.Kind, route.Namespace, route.Name}
	side := kindSide(route.Kind)
	for l := range k.routes[who] {
		if sides := k.byListener[l]; sides != nil {
			delete(sides[side], who)
			if len(sides[0]) == 0 && len(sides[1]) == 0 {
				delete(k.byListener, l)
			}
		}
	}
	delete(k.routes, who)
}

// Contested says whether a route of the other kind than route's claims a
// listener that route claims, for a hostname that overlaps one of route's
// there: whether ResolveKindConflicts settles anything between route and
// another.
func (k *KindClaims) Contested(route Route) bool {
	side := kindSide(route.Kind)
	if side < 0 {
		return false
	}
	for l, mine := range k.routes[claimant{route.Kind, route.Namespace, route.Name}] {
		for _, theirs := range k.byListener[l][1-side] {
			if claimsOverlap(mine, theirs) {
				return true
			}
		}
	}
	return false
}

// kindSide is the side of the claims a route kind takes, -1 for a kind
// that claims nothing here.
func kindSide(kind gatewayv1.Kind) int {
	switch kind {
	case KindHTTPRoute:
		return 0
	case KindGRPCRoute:
		return 1
	}
	return -1
}

// eachClaim calls f for each listener an accepted parent of att attaches
// to, with the route's hostnames there: what ResolveKindConflicts
// settles.
func eachClaim(att *RouteAttachment, f func(listenerKey, []gatewayv1.Hostname)) {
	for _, p := range att.Parents {
		if !p.Accepted {
			continue
		}
		for _, la := range p.Listeners {
			f(listenerKey{p.GatewayNamespace, p.GatewayName, la.Listener}, la.Hostnames)
		}
	}
}
