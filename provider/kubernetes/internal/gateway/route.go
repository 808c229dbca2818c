package gateway

import (
	"errors"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// routeTranslation is the translation of one route into its part.
type routeTranslation struct {
	env             *Env
	p               *translate.Part
	bc              *attach.BackendCheck // the route's backendRefs resolved; the references filters name join them
	names           names
	created         time.Time
	namespace, name string
}

// begin makes p the part of route, of kind, and the translation into it.
func begin(env *Env, p *translate.Part, kind gatewayv1.Kind, route metav1.Object, bc *attach.BackendCheck) *routeTranslation {
	p.BeginObject(string(kind), route)
	return &routeTranslation{env: env, p: p, bc: bc, names: newNames(string(kind), route.GetNamespace(), route.GetName()),
		created: route.GetCreationTimestamp().Time, namespace: route.GetNamespace(), name: route.GetName()}
}

// ruleView is what translating one rule reads of it, whatever the
// route's kind.
type ruleView struct {
	index   int
	matches int // how many; at least one (a rule without matches has the API's one)
	// rules are the Traefik rules of match mi on a listener of hostnames.
	rules func(hostnames []string, mi int) ([]match.Rule, error)
	// filters are the rule's filters on one listener.
	filters func(env filter.Env, path *field.Path, prefix string) (filter.Result, error)
	// backendFilters are the filters of the rule's backendRef backend.
	backendFilters func(env filter.Env, path *field.Path, prefix string, backend int) (filter.Result, error)
	// h2c: the backends speak HTTP/2 without TLS (gRPC), unless their
	// load balancers say https.
	h2c bool
	// timeouts are the forwarding timeouts of the rule's backends; nil
	// when it sets none.
	timeouts *dynamic.ForwardingTimeouts
	// retry is the rule's retry middleware; nil when it retries nothing.
	retry dynamic.Middleware
	// session is the cookie of the rule's sessionPersistence; nil when
	// it keeps no session.
	session *dynamic.Cookie
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

// rule adds the routers of rv on every programmed listener the route is
// attached to, or, when the rule cannot be served as written, nothing but
// the returned dropped rule.
func (t *routeTranslation) rule(rv ruleView, att *attach.RouteAttachment, rb attach.RuleBackends) *attach.DroppedRule {
	ri := rv.index
	path := field.NewPath("spec", "rules").Index(ri)
	var routers []pendingRouter
	var mws []filter.NamedMiddleware
	var mirrors []filter.Mirror
	var closed filter.Errors // references the rule's filters name that cannot be followed
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
			res, err := rv.filters(filter.Env{Target: t.env.Target, Listener: listenerOf(l)}, path, prefix)
			if err != nil {
				if closed = unresolvedOnly(err); closed == nil {
					return filterDropped(ri, err)
				}
				res = filter.Result{} // the rule answers 500: no filter runs
			}
			mirrors = res.Mirrors // the same on every listener
			hostnames := hostnameStrings(la.Hostnames)
			narrower := narrowerListeners(gw, l)
			for mi := range rv.matches {
				rules, err := rv.rules(hostnames, mi)
				if err != nil {
					return matchDropped(ri, mi, err)
				}
				for k, r := range rules {
					r = match.Isolated(r, narrower)
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
	tw := backendTweaks{h2c: rv.h2c, timeouts: rv.timeouts, sticky: rv.session}
	var d *attach.DroppedRule
	if tw.clientSecret, tw.clientCertificate, d = t.clientCertificate(ri, att); d != nil {
		return d
	}
	if closed != nil {
		// The API forbids skipping a filter that cannot be resolved: every
		// request of the rule answers 500.
		t.unresolved(closed)
		rb = unusable(rb, -1)
	}
	for bi := range rb.Backends {
		if closed != nil {
			tw.filters, tw.mirrors = append(tw.filters, nil), append(tw.mirrors, nil)
			continue
		}
		res, d, shut := t.backendFilters(rv, path, bi)
		if d != nil {
			return d
		}
		if shut != nil { // the backend's share answers 500
			t.unresolved(shut)
			rb = unusable(rb, bi)
		}
		tw.filters = append(tw.filters, res.Middlewares)
		tw.mirrors = append(tw.mirrors, res.Mirrors)
		mws = append(mws, res.Middlewares...)
	}
	svc := t.mirrored(ri, t.names.rule(ri)+"-mirror", t.service(ri, rb, tw), mirrors, rb, rv.h2c)
	for _, m := range mws {
		mw := m.Middleware
		t.p.Middlewares = append(t.p.Middlewares, translate.NamedMiddleware{Name: m.Name, Middleware: &mw})
	}
	var last string
	if !svc.failing && rv.retry != nil {
		// Last before the service: a retry sends the request again as the
		// rule's filters left it.
		last = t.names.rule(ri) + "-retry"
		t.p.Middlewares = append(t.p.Middlewares, translate.NamedMiddleware{Name: last, Middleware: &rv.retry})
	}
	for _, pr := range routers {
		chain := pr.middleware
		if last != "" {
			chain = append(slices.Clip(chain), last)
		}
		rt := &dynamic.Router{EntryPoints: []string{pr.entryPoint}, Rule: pr.rule.Rule, Service: svc.name, Middlewares: chain}
		if pr.tls {
			rt.TLS = &dynamic.RouterTLSConfig{} // the listener's certificates are the Gateway's
		}
		t.p.AddRouter(pr.key, translate.NewMatchRef(ri, pr.matchIndex), rt, svc.svc)
		order := pr.order
		t.p.Routers[len(t.p.Routers)-1].Order = &order
	}
	return nil
}

// backendFilters translates the filters of rule rv's backendRef bi, or
// says why the rule is left out, or which references they name cannot be
// followed (closed: the backend's share then answers 500). They run after
// the router's middlewares whatever the listener, so they are translated
// once, without it.
func (t *routeTranslation) backendFilters(rv ruleView, path *field.Path, bi int) (res filter.Result, d *attach.DroppedRule, closed filter.Errors) {
	if rv.backendFilters == nil {
		return filter.Result{}, nil, nil
	}
	res, err := rv.backendFilters(filter.Env{Target: t.env.Target}, path, t.names.backend(rv.index, bi), bi)
	if err != nil {
		if closed = unresolvedOnly(err); closed == nil {
			return filter.Result{}, filterDropped(rv.index, err), nil
		}
		return filter.Result{}, nil, closed
	}
	return res, nil, nil
}

// unresolvedOnly is the problems of err, a filter problem, when each is a
// reference that cannot be followed (filter.Error's Condition
// ResolvedRefs: an ExtensionRef filter sliceway has no extension for),
// nil when err holds another.
func unresolvedOnly(err error) filter.Errors {
	var es filter.Errors
	if !errors.As(err, &es) || len(es) == 0 {
		return nil
	}
	for _, e := range es {
		if e.Condition != gatewayv1.RouteConditionResolvedRefs {
			return nil
		}
	}
	return es
}

// unresolved files es, references the route's filters name that cannot be
// followed, with its backendRefs' problems: its ResolvedRefs condition
// turns False.
func (t *routeTranslation) unresolved(es filter.Errors) {
	for _, e := range es {
		t.bc.Unresolved(e.Field, e.Reason, e.Detail)
	}
}

// unusable is rb with backend bi unusable (every backend, with bi < 0):
// its share of the requests answers 500. rb, which the route's outcome
// holds, is left as it is.
func unusable(rb attach.RuleBackends, bi int) attach.RuleBackends {
	out := rb
	out.Backends = slices.Clone(rb.Backends)
	for i := range out.Backends {
		if b := &out.Backends[i]; (bi < 0 || i == bi) && b.Usable {
			b.Usable = false
			out.UsableWeight -= int64(b.Weight)
			out.UnusableWeight += int64(b.Weight)
		}
	}
	return out
}

// backendsOf is rule ri's backends in bc; none when bc has no such rule.
func backendsOf(bc *attach.BackendCheck, ri int) attach.RuleBackends {
	if ri < len(bc.Rules) {
		return bc.Rules[ri]
	}
	return attach.RuleBackends{}
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

// narrowerListeners are the hostnames of gw's accepted listeners on l's
// entry point that are more specific than l's: the requests for them are
// theirs alone (listener isolation), even where l's routes match too.
func narrowerListeners(gw *attach.Gateway, l *attach.Listener) []string {
	var out []string
	for i := range gw.Listeners {
		o := &gw.Listeners[i]
		if o.Name == l.Name || !o.Accepted || o.EntryPoint != l.EntryPoint || o.Hostname == nil {
			continue
		}
		if match.MoreSpecific((*string)(o.Hostname), (*string)(l.Hostname)) {
			out = append(out, strings.ToLower(string(*o.Hostname)))
		}
	}
	return out
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
