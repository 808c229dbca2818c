package gateway

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/match"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/translate"
)

// routeTranslation is the translation of one route into its part.
type routeTranslation struct {
	env             *Env
	p               *translate.Part
	names           names
	created         time.Time
	namespace, name string
}

// HTTPRoute builds into p (zero) the part of route, attached as att, its
// backendRefs resolved as bc (attach.CheckBackends). It returns the rules
// it left out, with why, for the route's status
// (attach.ApplyDroppedRules); the other rules are served.
func HTTPRoute(env *Env, p *translate.Part, route *gatewayv1.HTTPRoute, att *attach.RouteAttachment, bc *attach.BackendCheck) (dropped []attach.DroppedRule) {
	p.BeginObject(string(attach.KindHTTPRoute), route)
	defer translate.RecoverPart(p)
	t := &routeTranslation{env: env, p: p, names: newNames(string(attach.KindHTTPRoute), route.Namespace, route.Name),
		created: route.CreationTimestamp.Time, namespace: route.Namespace, name: route.Name}
	for ri := range route.Spec.Rules {
		var rb attach.RuleBackends
		if ri < len(bc.Rules) {
			rb = bc.Rules[ri]
		}
		if d := t.httpRule(ri, &route.Spec.Rules[ri], att, rb); d != nil {
			dropped = append(dropped, *d)
		}
	}
	return dropped
}

// pendingRouter is a router of a rule, kept aside until the whole rule
// translated: a rule is served whole or not at all.
type pendingRouter struct {
	key        string
	entryPoint string
	tls        bool
	rule       match.Rule
	order      match.Order
	middleware []string
	matchIndex int
}

// httpRule adds the routers of rule ri on every programmed listener the
// route is attached to, or, when the rule cannot be served as written,
// nothing but the returned dropped rule.
func (t *routeTranslation) httpRule(ri int, rule *gatewayv1.HTTPRouteRule, att *attach.RouteAttachment, rb attach.RuleBackends) *attach.DroppedRule {
	path := field.NewPath("spec", "rules").Index(ri)
	if why := notServedYet(rule); why != "" {
		return &attach.DroppedRule{Index: ri, Reason: gatewayv1.RouteReasonUnsupportedValue, Message: why}
	}
	matches := rule.Matches
	if len(matches) == 0 {
		matches = []gatewayv1.HTTPRouteMatch{{}} // the API's one match of everything
	}
	var routers []pendingRouter
	var mws []filter.NamedMiddleware
	for pi := range att.Parents {
		parent := &att.Parents[pi]
		gw := t.env.Gateway(parent.GatewayNamespace, parent.GatewayName)
		if !parent.Accepted || gw == nil {
			continue
		}
		for li := range parent.Listeners {
			la := &parent.Listeners[li]
			l, ok := gw.Listener(la.Listener)
			if !la.Programmed || !ok {
				continue
			}
			prefix := t.names.listener(parent, la, ri)
			res, err := filter.HTTPRuleFilters(filter.Env{Target: t.env.Target, Listener: listenerOf(l)}, path, prefix, rule)
			if err != nil {
				return filterDropped(ri, err)
			}
			if len(res.Mirrors) > 0 {
				return &attach.DroppedRule{Index: ri, Reason: gatewayv1.RouteReasonUnsupportedValue,
					Message: res.Mirrors[0].Field + ": RequestMirror is not served yet"}
			}
			hostnames := hostnameStrings(la.Hostnames)
			for mi, m := range matches {
				rules, err := match.HTTP(hostnames, m)
				if err != nil {
					return matchDropped(ri, mi, err)
				}
				for k, r := range rules {
					routers = append(routers, pendingRouter{
						key: router(prefix, mi, k), entryPoint: la.EntryPoint, tls: l.Protocol == gatewayv1.HTTPSProtocolType,
						rule: r, middleware: res.Names(), matchIndex: mi,
						order: match.Order{Listener: listenerRank(l), Precedence: r.Precedence, Created: t.created,
							Namespace: t.namespace, Name: t.name, RuleIndex: ri, MatchIndex: mi},
					})
				}
			}
			mws = append(mws, res.Middlewares...)
		}
	}
	if len(routers) == 0 {
		return nil // attached to no programmed listener: nothing to serve
	}
	svc := t.service(ri, rb)
	for _, m := range mws {
		mw := m.Middleware
		t.p.Middlewares = append(t.p.Middlewares, translate.NamedMiddleware{Name: m.Name, Middleware: &mw})
	}
	for _, pr := range routers {
		rt := &dynamic.Router{EntryPoints: []string{pr.entryPoint}, Rule: pr.rule.Rule, Service: svc.name, Middlewares: pr.middleware}
		if pr.tls {
			rt.TLS = &dynamic.RouterTLSConfig{} // the listener's certificates are the Gateway's
		}
		t.p.AddRouter(pr.key, translate.NewMatchRef(ri, pr.matchIndex), rt, svc.svc)
		order := pr.order
		t.p.Routers[len(t.p.Routers)-1].Order = &order
	}
	return nil
}

// notServedYet says what of a rule this front end does not serve yet,
// "" when nothing: the rule is then left out rather than served without
// it.
func notServedYet(rule *gatewayv1.HTTPRouteRule) string {
	switch {
	case rule.Timeouts != nil:
		return "timeouts are not served yet"
	case rule.Retry != nil:
		return "retry is not served yet"
	case rule.SessionPersistence != nil:
		return "sessionPersistence is not served yet"
	}
	for _, b := range rule.BackendRefs {
		if len(b.Filters) > 0 {
			return "filters of backendRefs are not served yet"
		}
	}
	return ""
}

// filterDropped is the dropped rule of a filter problem: the first
// problem's reason, and every problem in the message.
func filterDropped(ri int, err error) *attach.DroppedRule {
	d := &attach.DroppedRule{Index: ri, Reason: gatewayv1.RouteReasonUnsupportedValue, Message: err.Error()}
	var fe *filter.Error
	if errors.As(err, &fe) && fe.Reason != "" {
		d.Reason = fe.Reason
	}
	return d
}

// matchDropped is the dropped rule of a problem of match mi.
func matchDropped(ri, mi int, err error) *attach.DroppedRule {
	var fe *match.FieldError
	if errors.As(err, &fe) {
		err = fe.Under(field.NewPath("spec", "rules").Index(ri).Child("matches").Index(mi).String())
	}
	return &attach.DroppedRule{Index: ri, Reason: gatewayv1.RouteReasonUnsupportedValue, Message: err.Error()}
}

// listenerOf is what a listener tells filters about its requests.
func listenerOf(l *attach.Listener) filter.Listener {
	out := filter.Listener{Port: l.Port}
	switch l.Protocol {
	case gatewayv1.HTTPProtocolType:
		out.Scheme = "http"
	case gatewayv1.HTTPSProtocolType:
		out.Scheme = "https"
	}
	return out
}

// listenerRank ranks a listener's hostname: a request goes to the most
// specific listener of its port that matches it.
func listenerRank(l *attach.Listener) match.HostRank {
	if l.Hostname == nil {
		return match.RankHostname("")
	}
	return match.RankHostname(string(*l.Hostname))
}

func hostnameStrings(hs []gatewayv1.Hostname) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = string(h)
	}
	return out
}
