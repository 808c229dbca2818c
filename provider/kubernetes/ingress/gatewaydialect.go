package ingress

import (
	"fmt"
	"slices"

	netv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// gatewayDialect is the Gateway API front end (package gateway): the
// parts of the HTTPRoutes and GRPCRoutes attached to the Gateways of the
// GatewayClasses whose controllerName is ours, and of those Gateways
// (their listeners' certificates). It serves no Ingress.
type gatewayDialect struct {
	controller gatewayv1.GatewayController
	addresses  *gatewayAddresses // a pointer: a dialect is a comparable value
	target     filter.Target
}

var _ engine.RouteDialect = (*gatewayDialect)(nil)

func (*gatewayDialect) name() string                        { return GatewayProviderName }
func (*gatewayDialect) Classes(Snapshot) engine.ServedSet   { return noIngress{} }
func (*gatewayDialect) Hosts(*netv1.Ingress) []string       { return nil }
func (*gatewayDialect) Defaults() engine.DefaultNames       { return engine.DefaultNames{} }
func (*gatewayDialect) keep() k8s.Keep                      { return translate.Reads }
func (*gatewayDialect) secretKeys(*netv1.Ingress) []string  { return nil }
func (*gatewayDialect) configMap() (string, string)         { return "", "" }
func (*gatewayDialect) SettingsIngresses() []*netv1.Ingress { return nil }
func (*gatewayDialect) plansByClient() bool                 { return false }
func (d *gatewayDialect) Settings(Snapshot, engine.Dialect) (engine.Dialect, []*ObjectError) {
	return d, nil
}

// Translate is never called: the dialect serves no Ingress.
func (*gatewayDialect) Translate(*translate.IngressEnv, *translate.Part, *netv1.Ingress, *translate.Plan) {
}

// noIngress serves no Ingress.
type noIngress struct{}

func (noIngress) Serves(*netv1.Ingress) bool { return false }

// RouteParts processes the GatewayClasses and Gateways of snap, attaches
// the routes to their listeners and translates the routes attached to at
// least one, then ranks the routers of each entry point over all routes
// (their priorities depend on each other). The outcome is what the
// render concluded about each object of ours (a *gatewayOutcome), for
// its status.
func (d *gatewayDialect) RouteParts(ps *engine.Pass, snap Snapshot, last any) ([]*engine.Part, any) {
	objs, ok := snap.(GatewaySnapshot)
	if !ok {
		return nil, nil
	}
	out := &gatewayOutcome{}
	look := gatewayLookups(snap, objs, ps.Env().Memos)
	var mine []*gatewayv1.Gateway
	out.classes, mine, out.gateways = d.processGateways(objs, look)
	var parts []*engine.Part
	for i, gw := range mine {
		if p := d.gatewayPart(ps, gw, &out.gateways[i]); p != nil {
			parts = append(parts, p)
		}
	}
	out.backendTLS = backendTLSPolicies(snap)
	env := d.routeEnv(ps, snap, &out.backendTLS, out.gateways)
	// Every route is attached before any is translated: an HTTPRoute and
	// a GRPCRoute may not share a hostname on a listener, and the older
	// keeps it.
	routes := gatewayRoutes(objs)
	atts := make([]attach.RouteAttachment, len(routes))
	for i, rt := range routes {
		atts[i] = attach.AttachRoute(rt.view(), env.Gateway, look)
	}
	out.claims = attach.NewKindClaims(atts)
	attach.ResolveKindConflicts(atts)
	reuse := newRouteReuse(last, out)
	var served []*engine.Part // the parts of the routes attached somewhere
	out.routes = make([]routeOutcome, 0, len(atts))
	for i := range atts {
		if len(atts[i].Parents) == 0 {
			continue // names no Gateway of ours: not ours to serve or to tell
		}
		ro, p, ok := reuse.route(ps, look, routes[i], &atts[i])
		if !ok {
			ro, p = buildRoute(ps, env, look, routes[i], &atts[i])
		}
		if p != nil {
			served = append(served, p)
		}
		out.routes = append(out.routes, ro)
	}
	attach.CountAttachedRoutes(out.gateways, atts)
	out.policies = policyOutcomes(&out.backendTLS, out.routes)
	// The routers of the parts translated now are this render's own, not
	// yet handed out: their priorities are set in place. Those of the
	// parts taken again were handed out: a moved one gets a new
	// configuration.
	if _, err := d.Rank(served, func(p *engine.Part) bool { return !ps.Took(p) }); err != nil {
		out.rankFailed = true
		for _, p := range served {
			for i := range p.Routers {
				p.Problem(p.Routers[i].Path.String(), translate.SeverityError, err)
			}
		}
	}
	return append(parts, served...), out
}

// processGateways processes the GatewayClasses of objs whose
// controllerName is ours and the Gateways of those classes, in the order
// of their keys: gateways[i] is what processing mine[i] gave.
func (d *gatewayDialect) processGateways(objs GatewaySnapshot, look attach.Lookups) (classes []attach.Class, mine []*gatewayv1.Gateway, gateways []attach.Gateway) {
	byName := map[string]*gatewayv1.GatewayClass{}
	for _, c := range sortedByKey(objs.GatewayClasses()) {
		byName[c.Name] = c
		if pc := attach.ProcessClass(c, d.controller); pc.Ours {
			classes = append(classes, pc)
		}
	}
	var candidates []*gatewayv1.Gateway
	for _, gw := range sortedByKey(objs.Gateways()) {
		if c := byName[string(gw.Spec.GatewayClassName)]; c != nil && c.Spec.ControllerName == d.controller {
			candidates = append(candidates, gw)
		}
	}
	assigned := d.addresses.assign(candidates)
	for _, gw := range candidates {
		if g, ours := attach.ProcessGateway(gw, byName[string(gw.Spec.GatewayClassName)], *assigned[gw], look); ours {
			mine, gateways = append(mine, gw), append(gateways, g)
		}
	}
	return classes, mine, gateways
}

// gatewayOutcome is what a render of the Gateway front end concluded
// about the Gateway API objects of ours: each GatewayClass of our
// controllerName, each Gateway of such a class (its listeners with their
// attached routes counted), each route naming one, attached or refused,
// with its backendRefs resolved, each BackendTLSPolicy that applies
// through one of those Gateways. The status writer turns it into their
// status. It is never modified once made.
type gatewayOutcome struct {
	classes    []attach.Class
	gateways   []attach.Gateway
	routes     []routeOutcome
	backendTLS attach.BackendTLSPolicies
	policies   []policyOutcome // of backendTLS's policies
	// rankFailed says that the routers could not be ranked: every part
	// carries the problem, and no later render takes one again.
	rankFailed bool
	// claims are the hostnames the routes' attachments claim, by kind:
	// what an incremental render checks a change against
	// (gatewayincremental.go). Unlike the rest, the renders update them
	// in place, and only the renderer reads them.
	claims *attach.KindClaims
}

// routeOutcome is what a render concluded about one route.
type routeOutcome struct {
	att      *attach.RouteAttachment
	backends attach.BackendCheck
	// What the route's part was built from besides att and backends,
	// which a full render checks before it takes the part again
	// (gatewayreuse.go): the route, and the rules its translation dropped
	// (written into att).
	route   gatewayRoute
	dropped []attach.DroppedRule
}

// gatewayPart is the part of a Gateway: the certificates of its
// programmed listeners that end TLS; nil when it has none.
func (d *gatewayDialect) gatewayPart(ps *engine.Pass, gw *gatewayv1.Gateway, g *attach.Gateway) *engine.Part {
	p := ps.Build(func(part *translate.Part) {
		part.BeginObject(string(attach.KindGateway), gw)
		for li, l := range g.Listeners {
			if !l.Programmed || l.TLSMode != gatewayv1.TLSModeTerminate {
				continue
			}
			for ci, c := range l.Certificates {
				ps.Env().Certificate(part, c.Namespace, c.Name, func() string {
					return fmt.Sprintf("spec.listeners[%d].tls.certificateRefs[%d]", li, ci)
				})
			}
		}
	})
	if len(p.Certs) == 0 && len(p.Errs) == 0 {
		return nil
	}
	return p
}

// gatewayLookups are what attachment reads of snap: namespaces' labels,
// Services' ports, TLS Secrets (their key pairs checked through memos)
// and ReferenceGrants.
func gatewayLookups(snap Snapshot, objs GatewaySnapshot, memos *translate.Memos) attach.Lookups {
	return attach.Lookups{
		NamespaceLabels: func(name string) (map[string]string, bool) {
			if ns := objs.Namespace(name); ns != nil {
				return ns.Labels, true
			}
			return nil, false
		},
		Service: func(ns, name string) (attach.Service, bool) {
			svc := snap.Service(ns, name)
			if svc == nil {
				return attach.Service{}, false
			}
			out := attach.Service{Ports: make([]attach.ServicePort, len(svc.Spec.Ports))}
			for i, p := range svc.Spec.Ports {
				out.Ports[i] = attach.ServicePort{Name: p.Name, Port: p.Port}
				if p.AppProtocol != nil {
					out.Ports[i].AppProtocol = *p.AppProtocol
				}
			}
			return out, true
		},
		TLSSecret: func(ns, name string) error {
			s := snap.Secret(ns, name)
			if s == nil {
				return fmt.Errorf("secret %s/%s not found", ns, name)
			}
			return memos.CheckCertificate(s)
		},
		ReferencePermitted: attach.GrantLookup(objs.ReferenceGrants()),
	}
}

// sortedByKey is objs in the order of their keys (namespace, then name).
func sortedByKey[T interface {
	GetNamespace() string
	GetName() string
}](objs []T) []T {
	out := slices.Clone(objs)
	slices.SortFunc(out, func(a, b T) int {
		return translate.CompareKeys(translate.Key{Namespace: a.GetNamespace(), Name: a.GetName()}, translate.Key{Namespace: b.GetNamespace(), Name: b.GetName()})
	})
	return out
}
