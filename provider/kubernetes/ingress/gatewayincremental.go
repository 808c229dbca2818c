package ingress

import (
	"reflect"
	"slices"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// A change of some routes, of the Services they name (their backendRefs
// are checked against those Services' ports), or of the load balancers
// they use when those cannot be refreshed in place, reaches, of the
// Gateway front end's output, those routes' parts and status, the
// attachedRoutes of their listeners, and the priorities of the routers
// that share an entry point with theirs (ranks over all of them). An
// incremental render translates those routes alone, counts their
// listeners again, ranks every router again (the routers whose priority
// moves get a new configuration) and patches the last configuration.
// A Secret change rebuilds the parts (certificates) of the Gateways that
// name it, when processing the Gateways again concludes what the last
// render did (a renewed certificate).
//
// What else routes depend on (Gateways, ReferenceGrants, Namespaces,
// BackendTLSPolicies) renders in full (Renderer.Render), and so does a
// Secret a Gateway presents to backends or whose change makes a
// listener's status change, and a change of a route that an HTTPRoute
// and a GRPCRoute contest a hostname of a listener with, before or after
// it: which of them keeps it is settled over all routes
// (attach.ResolveKindConflicts).

// RoutesNaming adds to dirty the routes of the last outcome whose
// backendRefs or mirrors name one of services, found or not: checking
// them read those Services' ports.
func (*gatewayDialect) RoutesNaming(last any, services map[translate.Key]struct{}, dirty map[translate.ObjectKey]struct{}) {
	prev, _ := last.(*gatewayOutcome)
	if prev == nil {
		return
	}
	names := func(b attach.Backend) bool {
		_, ok := services[translate.Key{Namespace: b.Namespace, Name: b.Name}]
		return ok
	}
	for _, ro := range prev.routes {
		for _, rule := range ro.backends.Rules {
			hit := slices.ContainsFunc(rule.Backends, names)
			for _, m := range rule.Mirrors {
				hit = hit || names(m)
			}
			if hit {
				dirty[ro.key()] = struct{}{}
				break
			}
		}
	}
}

// RerouteParts translates again the routes of keys (HTTPRoutes and
// GRPCRoutes that changed or read what changed) as they are in snap, the
// other routes staying as last (the last outcome, a *gatewayOutcome) and
// its claims say, and builds again the parts of the Gateways that name
// one of secrets (certificatesChanged): it returns the new parts (of the
// routes a parent accepts), the keys of the parts they replace, and the
// outcome of the render. It updates the claims, and says false when the
// change reaches beyond those routes and Gateways (a kind conflict, a key
// of another kind, a Secret that changes what a Gateway's processing
// concludes) or snap cannot look up one route: the engine then renders in
// full, which makes the claims again.
func (d *gatewayDialect) RerouteParts(ps *engine.Pass, snap Snapshot, last any, keys []translate.ObjectKey,
	secrets map[translate.Key]struct{}) (news []*engine.Part, replaced []translate.ObjectKey, outcome any, ok bool) {
	objs, isGateway := snap.(GatewaySnapshot)
	getter, canGet := snap.(routeGetter)
	prev, _ := last.(*gatewayOutcome)
	if !isGateway || !canGet || prev == nil || prev.claims == nil {
		return nil, nil, nil, false
	}
	claims := prev.claims
	slices.SortFunc(keys, compareRouteKeys)
	look := gatewayLookups(snap, objs, ps.Env().Memos)
	if len(secrets) > 0 {
		if news, replaced, ok = d.certificatesChanged(ps, objs, look, prev, secrets); !ok {
			return nil, nil, nil, false
		}
	}
	if len(keys) == 0 {
		return news, replaced, prev, true
	}
	routes := make([]gatewayRoute, len(keys))
	for i, key := range keys {
		id := attach.Route{Kind: gatewayv1.Kind(key.Kind), Namespace: key.Namespace, Name: key.Name}
		if claims.Contested(id) {
			return nil, nil, nil, false // before the change
		}
		switch id.Kind {
		case attach.KindHTTPRoute:
			routes[i].http = getter.HTTPRoute(key.Namespace, key.Name)
		case attach.KindGRPCRoute:
			routes[i].grpc = getter.GRPCRoute(key.Namespace, key.Name)
		default:
			return nil, nil, nil, false
		}
	}
	env := d.routeEnv(ps, snap, &prev.backendTLS, prev.gateways)
	atts := make([]*attach.RouteAttachment, len(keys))
	for i, rt := range routes {
		claims.Remove(attach.Route{Kind: gatewayv1.Kind(keys[i].Kind), Namespace: keys[i].Namespace, Name: keys[i].Name})
		if rt.http == nil && rt.grpc == nil {
			continue // gone
		}
		att := attach.AttachRoute(rt.view(), env.Gateway, look)
		atts[i] = &att
		claims.Add(&att)
	}
	for _, att := range atts {
		if att != nil && claims.Contested(att.Route) {
			return nil, nil, nil, false // after the change
		}
	}
	var outcomes []routeOutcome
	var oldAtts, newAtts []*attach.RouteAttachment
	for i, att := range atts {
		if att == nil || len(att.Parents) == 0 {
			continue // names no Gateway of ours
		}
		ro, p := buildRoute(ps, env, look, routes[i], att)
		if p != nil {
			news = append(news, p)
		}
		outcomes = append(outcomes, ro)
		newAtts = append(newAtts, att)
	}
	gone := make(map[translate.ObjectKey]struct{}, len(keys))
	for _, key := range keys {
		gone[key] = struct{}{}
	}
	replaced = append(replaced, keys...)
	for _, ro := range prev.routes {
		if _, ok := gone[ro.key()]; ok {
			oldAtts = append(oldAtts, ro.att)
		}
	}
	out := &gatewayOutcome{classes: prev.classes, backendTLS: prev.backendTLS, claims: claims, rankFailed: prev.rankFailed,
		gateways: attach.RecountAttachedRoutes(prev.gateways, oldAtts, newAtts),
		routes:   mergeRouteOutcomes(prev.routes, gone, outcomes)}
	out.policies = policyOutcomes(&out.backendTLS, out.routes)
	return news, replaced, out, true
}

// certificatesChanged builds again, after a change of secrets, the parts
// of the Gateways that name one of them as a listener certificate, when
// processing the Gateways again concludes what the last render did (prev):
// the change left every listener as it was, as a renewed certificate
// does, so that no route attaches otherwise. It says false when it did
// not, or when a Gateway presents one of secrets to backends (its routes
// read it).
func (d *gatewayDialect) certificatesChanged(ps *engine.Pass, objs GatewaySnapshot, look attach.Lookups, prev *gatewayOutcome,
	secrets map[translate.Key]struct{}) (news []*engine.Part, replaced []translate.ObjectKey, ok bool) {
	for _, g := range prev.gateways {
		if ref := g.BackendClientCertificate; ref != nil {
			if _, named := secrets[translate.Key{Namespace: ref.Namespace, Name: ref.Name}]; named {
				return nil, nil, false
			}
		}
	}
	names := func(gw *gatewayv1.Gateway) bool {
		return slices.ContainsFunc(gatewayCertificateKeys(gw), func(key string) bool {
			ns, name, _ := strings.Cut(key, "/")
			_, named := secrets[translate.Key{Namespace: ns, Name: name}]
			return named
		})
	}
	if !slices.ContainsFunc(objs.Gateways(), names) {
		return nil, nil, true // nothing of the Gateway front end reads them
	}
	classes, mine, gateways := d.processGateways(objs, look)
	if len(gateways) != len(prev.gateways) {
		return nil, nil, false
	}
	for i := range gateways {
		// The routes' counts are the last render's: they are not what
		// changed.
		if len(gateways[i].Listeners) != len(prev.gateways[i].Listeners) {
			return nil, nil, false
		}
		for j := range gateways[i].Listeners {
			gateways[i].Listeners[j].AttachedRoutes = prev.gateways[i].Listeners[j].AttachedRoutes
		}
	}
	if !reflect.DeepEqual(classes, prev.classes) || !reflect.DeepEqual(gateways, prev.gateways) {
		return nil, nil, false
	}
	for i, gw := range mine {
		if !names(gw) {
			continue
		}
		replaced = append(replaced, translate.ObjectKey{Kind: string(attach.KindGateway), Key: translate.Key{Namespace: gw.Namespace, Name: gw.Name}})
		if p := d.gatewayPart(ps, gw, &gateways[i]); p != nil {
			news = append(news, p)
		}
	}
	return news, replaced, true
}

// key is the route's key, as its part's.
func (ro routeOutcome) key() translate.ObjectKey { return routeKey(ro.att.Route) }

// mergeRouteOutcomes is prev (in compareRouteKeys order) without the
// routes of gone, with news put in their places.
func mergeRouteOutcomes(prev []routeOutcome, gone map[translate.ObjectKey]struct{}, news []routeOutcome) []routeOutcome {
	slices.SortFunc(news, func(a, b routeOutcome) int { return compareRouteKeys(a.key(), b.key()) })
	out := make([]routeOutcome, 0, len(prev)+len(news))
	j := 0
	for _, ro := range prev {
		key := ro.key()
		if _, ok := gone[key]; ok {
			continue
		}
		for ; j < len(news) && compareRouteKeys(news[j].key(), key) < 0; j++ {
			out = append(out, news[j])
		}
		out = append(out, ro)
	}
	return append(out, news[j:]...)
}
