package ingress

import (
	"fmt"
	"slices"

	netv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/translate"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// routeDialect is a dialect whose parts are made of other objects than
// Ingresses (the Gateway front end's routes and Gateways): a full render
// takes its parts from routeParts, in a new render state, and assembles
// them as it does Ingresses' parts.
type routeDialect interface {
	dialect
	// routeParts translates the objects of snap this dialect serves, each
	// into its part through ps (which builds their load balancers), in
	// the order of their keys, and says what it concluded of them for
	// their status.
	routeParts(ps *pass, snap Snapshot) ([]*ingressPart, *gatewayOutcome)
}

// gatewayDialect is the Gateway API front end (package gateway): the
// parts of the HTTPRoutes and GRPCRoutes attached to the Gateways of the
// GatewayClasses whose controllerName is ours, and of those Gateways
// (their listeners' certificates). It serves no Ingress.
type gatewayDialect struct {
	controller gatewayv1.GatewayController
	addresses  *gatewayAddresses // a pointer: a dialect is a comparable value
	target     filter.Target
}

func (*gatewayDialect) name() string                                           { return GatewayProviderName }
func (*gatewayDialect) classes(Snapshot) servedSet                             { return noIngress{} }
func (*gatewayDialect) hosts(*netv1.Ingress) []string                          { return nil }
func (*gatewayDialect) defaults() defaultNames                                 { return defaultNames{} }
func (*gatewayDialect) keep() k8s.Keep                                         { return translate.Reads }
func (*gatewayDialect) secretKeys(*netv1.Ingress) []string                     { return nil }
func (*gatewayDialect) configMap() (string, string)                            { return "", "" }
func (*gatewayDialect) settingsIngresses() []*netv1.Ingress                    { return nil }
func (*gatewayDialect) plansByClient() bool                                    { return false }
func (d *gatewayDialect) settings(Snapshot, dialect) (dialect, []*ObjectError) { return d, nil }

// translate is never called: the dialect serves no Ingress.
func (*gatewayDialect) translate(*translate.IngressEnv, *translate.Part, *netv1.Ingress, *translate.Plan) {
}

// noIngress serves no Ingress.
type noIngress struct{}

func (noIngress) Serves(*netv1.Ingress) bool { return false }

// routeParts processes the GatewayClasses and Gateways of snap, attaches
// the routes to their listeners and translates the routes attached to at
// least one, then ranks the routers of each entry point over all routes
// (their priorities depend on each other). The outcome is what the
// render concluded about each object of ours, for its status.
func (d *gatewayDialect) routeParts(ps *pass, snap Snapshot) ([]*ingressPart, *gatewayOutcome) {
	objs, ok := snap.(GatewaySnapshot)
	if !ok {
		return nil, nil
	}
	out := &gatewayOutcome{}
	look := gatewayLookups(snap, objs, ps.tr.Memos)
	classes := map[string]*gatewayv1.GatewayClass{}
	for _, c := range sortedByKey(objs.GatewayClasses()) {
		classes[c.Name] = c
		if pc := attach.ProcessClass(c, d.controller); pc.Ours {
			out.classes = append(out.classes, pc)
		}
	}
	var parts []*ingressPart
	var mine []*gatewayv1.Gateway
	for _, gw := range sortedByKey(objs.Gateways()) {
		if c := classes[string(gw.Spec.GatewayClassName)]; c != nil && c.Spec.ControllerName == d.controller {
			mine = append(mine, gw)
		}
	}
	assigned := d.addresses.assign(mine)
	for _, gw := range mine {
		g, ours := attach.ProcessGateway(gw, classes[string(gw.Spec.GatewayClassName)], *assigned[gw], look)
		if !ours {
			continue
		}
		out.gateways = append(out.gateways, g)
		if p := d.gatewayPart(ps, gw, &g); p != nil {
			parts = append(parts, p)
		}
	}
	gateways := make(map[translate.Key]*attach.Gateway, len(out.gateways))
	for i := range out.gateways {
		g := &out.gateways[i]
		gateways[translate.Key{Namespace: g.Namespace, Name: g.Name}] = g
	}
	out.backendTLS = backendTLSPolicies(snap)
	env := &gateway.Env{LoadBalancer: ps.loadBalancer, Target: d.target, BackendTLS: out.backendTLS.For,
		ClientCertificate: func(ref attach.SecretRef) (dynamic.Certificate, error) { return clientCertificate(snap, ref) },
		Gateway:           func(ns, name string) *attach.Gateway { return gateways[translate.Key{Namespace: ns, Name: name}] }}
	// Every route is attached before any is translated: an HTTPRoute and
	// a GRPCRoute may not share a hostname on a listener, and the older
	// keeps it.
	https, grpcs := sortedByKey(objs.HTTPRoutes()), sortedByKey(objs.GRPCRoutes())
	atts := make([]attach.RouteAttachment, 0, len(https)+len(grpcs))
	for _, r := range https {
		atts = append(atts, attach.AttachRoute(attach.RouteFromHTTP(r), env.Gateway, look))
	}
	for _, r := range grpcs {
		atts = append(atts, attach.AttachRoute(attach.RouteFromGRPC(r), env.Gateway, look))
	}
	attach.ResolveKindConflicts(atts)
	var routers []*translate.Router
	for i := range atts {
		att := &atts[i]
		if len(att.Parents) == 0 {
			continue // names no Gateway of ours: not ours to serve or to tell
		}
		var bc attach.BackendCheck
		var translated func(*translate.Part) []attach.DroppedRule
		rules := 0
		if i < len(https) {
			route := https[i]
			bc, rules = attach.CheckBackends(att.Route, attach.HTTPRouteBackendRefs(route), look), len(route.Spec.Rules)
			bc.CheckMirrors(att.Route, attach.HTTPRouteMirrorRefs(route), look)
			translated = func(part *translate.Part) []attach.DroppedRule { return gateway.HTTPRoute(env, part, route, att, &bc) }
		} else {
			route := grpcs[i-len(https)]
			bc, rules = attach.CheckBackends(att.Route, attach.GRPCRouteBackendRefs(route), look), len(route.Spec.Rules)
			bc.CheckMirrors(att.Route, attach.GRPCRouteMirrorRefs(route), look)
			translated = func(part *translate.Part) []attach.DroppedRule { return gateway.GRPCRoute(env, part, route, att, &bc) }
		}
		if slices.ContainsFunc(att.Parents, func(p attach.ParentAttachment) bool { return p.Accepted }) {
			p := &ingressPart{}
			var dropped []attach.DroppedRule
			ps.build(p, func(part *translate.Part) { dropped = translated(part) })
			attach.ApplyDroppedRules(att, rules, dropped)
			parts = append(parts, p)
			for j := range p.Routers {
				routers = append(routers, &p.Routers[j])
			}
		}
		out.routes = append(out.routes, routeOutcome{att: att, backends: bc})
	}
	attach.CountAttachedRoutes(out.gateways, atts)
	out.policies = policyOutcomes(&out.backendTLS, out.routes)
	// The routers are this render's own, not yet handed out: their
	// priorities are set in place.
	prios, err := gateway.Priorities(routers)
	for _, rt := range routers {
		if err != nil {
			rt.Part.Problem(rt.Path.String(), translate.SeverityError, err)
			continue
		}
		rt.Config.Priority = prios[rt]
	}
	return parts, out
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
}

// routeOutcome is what a render concluded about one route.
type routeOutcome struct {
	att      *attach.RouteAttachment
	backends attach.BackendCheck
}

// gatewayPart is the part of a Gateway: the certificates of its
// programmed listeners that end TLS; nil when it has none.
func (d *gatewayDialect) gatewayPart(ps *pass, gw *gatewayv1.Gateway, g *attach.Gateway) *ingressPart {
	p := &ingressPart{}
	ps.build(p, func(part *translate.Part) {
		part.BeginObject(string(attach.KindGateway), gw)
		for li, l := range g.Listeners {
			if !l.Programmed || l.TLSMode != gatewayv1.TLSModeTerminate {
				continue
			}
			for ci, c := range l.Certificates {
				ps.tr.Certificate(part, c.Namespace, c.Name, func() string {
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
