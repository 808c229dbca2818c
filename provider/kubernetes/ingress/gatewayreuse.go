package ingress

import (
	"reflect"
	"slices"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// A full render of the Gateway front end after the first (a change of a
// Gateway, a GatewayClass, a ReferenceGrant, a Namespace, a
// BackendTLSPolicy) attaches every route again and checks its backends,
// and takes the last render's part of a route again instead of
// translating it when nothing the part was built from changed:
//   - the route: the same object, or one the change filter would not
//     count as changed (translate.Reads.Changed), with the same UID and
//     creation time;
//   - its attachment, as attachment made it now, and its backend check
//     (the Services, their ports, the ReferenceGrants it read);
//   - the GatewayClasses, the BackendTLSPolicies (with their CA bundles)
//     and, for each Gateway the route names, what processing it gave,
//     but the attachedRoutes counts; a Gateway that presents a client
//     certificate to backends is read again (the Secret may have
//     changed);
//   - the Services and load balancers its translation read, which the
//     engine checks (engine.Pass.Reuse).
// A change of one Gateway's listeners then translates the routes of that
// Gateway only; a ReferenceGrant or a Namespace's labels, the routes whose
// attachment or backends they change.

// routeReuse is what a full render may take again of the last render:
// its route outcomes, which come in the order a full render takes the
// routes (compareRouteKeys), next the first not yet passed.
type routeReuse struct {
	last     []routeOutcome
	next     int
	gateways map[translate.Key]bool // the Gateways processed as the last render did
}

// newRouteReuse compares what the render processed so far (out: classes,
// Gateways, BackendTLSPolicies) with the last outcome; nil when no part
// may be taken again.
func newRouteReuse(last any, out *gatewayOutcome) *routeReuse {
	prev, _ := last.(*gatewayOutcome)
	if prev == nil || prev.rankFailed || !reflect.DeepEqual(prev.classes, out.classes) || !reflect.DeepEqual(prev.backendTLS, out.backendTLS) {
		return nil
	}
	x := &routeReuse{last: prev.routes, gateways: map[translate.Key]bool{}}
	before := make(map[translate.Key]*attach.Gateway, len(prev.gateways))
	for i := range prev.gateways {
		g := &prev.gateways[i]
		before[translate.Key{Namespace: g.Namespace, Name: g.Name}] = g
	}
	for i := range out.gateways {
		g := &out.gateways[i]
		key := translate.Key{Namespace: g.Namespace, Name: g.Name}
		x.gateways[key] = g.BackendClientCertificate == nil && sameProcessing(before[key], g)
	}
	return x
}

// sameProcessing says whether processing a Gateway gave now (g, its
// routes not counted yet) what it gave the last render (prev).
func sameProcessing(prev, g *attach.Gateway) bool {
	if prev == nil || len(prev.Listeners) != len(g.Listeners) {
		return false
	}
	counted := *g
	counted.Listeners = slices.Clone(g.Listeners)
	for i := range counted.Listeners {
		counted.Listeners[i].AttachedRoutes = prev.Listeners[i].AttachedRoutes
	}
	return reflect.DeepEqual(*prev, counted)
}

// route is the outcome and part of rt, attached as att says, taken from
// the last render; false when it must be translated.
func (x *routeReuse) route(ps *engine.Pass, look attach.Lookups, rt gatewayRoute, att *attach.RouteAttachment) (routeOutcome, *engine.Part, bool) {
	if x == nil {
		return routeOutcome{}, nil, false
	}
	old := x.lastOf(routeKey(att.Route))
	if old == nil || !sameRoute(old.route, rt) {
		return routeOutcome{}, nil, false
	}
	// The attachment as the last render left it: with the rules its
	// translation dropped written in.
	cur := att
	if len(old.dropped) > 0 {
		dropped := *att
		dropped.Parents = slices.Clone(att.Parents)
		attach.ApplyDroppedRules(&dropped, rt.rules(), old.dropped)
		cur = &dropped
	}
	if !old.att.Equal(cur) {
		return routeOutcome{}, nil, false
	}
	for _, p := range att.Parents {
		if !x.gateways[translate.Key{Namespace: p.GatewayNamespace, Name: p.GatewayName}] {
			return routeOutcome{}, nil, false
		}
	}
	// The check as translation left it: a route whose translation found
	// references it cannot resolve is translated again.
	bc := checkRoute(look, rt, att)
	if !bc.Equal(&old.backends) {
		return routeOutcome{}, nil, false
	}
	var p *engine.Part
	if accepted(att) {
		if p = ps.Reuse(routeKey(att.Route)); p == nil {
			return routeOutcome{}, nil, false
		}
	}
	*att = *cur
	return routeOutcome{att: att, backends: bc, route: rt, dropped: old.dropped}, p, true
}

// lastOf is the last render's outcome of the route key, nil when it had
// none. The routes are asked for in order, so that the last outcomes are
// walked once.
func (x *routeReuse) lastOf(key translate.ObjectKey) *routeOutcome {
	for ; x.next < len(x.last); x.next++ {
		switch c := compareRouteKeys(x.last[x.next].key(), key); {
		case c == 0:
			return &x.last[x.next]
		case c > 0:
			return nil
		}
	}
	return nil
}

// sameRoute says whether the route now (b) makes the part a was made
// of: the same object, or one with the same UID and creation time that
// the change filter says did not change.
func sameRoute(a, b gatewayRoute) bool {
	switch {
	case a.http != nil && b.http != nil:
		return a.http == b.http || a.http.UID == b.http.UID && a.http.CreationTimestamp.Equal(&b.http.CreationTimestamp) &&
			!translate.Reads.Changed(a.http, b.http)
	case a.grpc != nil && b.grpc != nil:
		return a.grpc == b.grpc || a.grpc.UID == b.grpc.UID && a.grpc.CreationTimestamp.Equal(&b.grpc.CreationTimestamp) &&
			!translate.Reads.Changed(a.grpc, b.grpc)
	}
	return false
}

// routeKey is the key of the route r, as its part's.
func routeKey(r attach.Route) translate.ObjectKey {
	return translate.ObjectKey{Kind: string(r.Kind), Key: translate.Key{Namespace: r.Namespace, Name: r.Name}}
}
