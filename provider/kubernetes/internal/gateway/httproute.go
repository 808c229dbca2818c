package gateway

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// HTTPRoute builds into p (zero) the part of route, attached as att, its
// backendRefs resolved as bc (attach.CheckBackends). It returns the rules
// it left out, with why, for the route's status
// (attach.ApplyDroppedRules); the other rules are served.
func HTTPRoute(env *Env, p *translate.Part, route *gatewayv1.HTTPRoute, att *attach.RouteAttachment, bc *attach.BackendCheck) (dropped []attach.DroppedRule) {
	t := begin(env, p, attach.KindHTTPRoute, route, bc)
	defer translate.RecoverPart(p)
	for ri := range route.Spec.Rules {
		rule := &route.Spec.Rules[ri]
		matches := rule.Matches
		if len(matches) == 0 {
			matches = []gatewayv1.HTTPRouteMatch{{}} // the API's one match of everything
		}
		path := field.NewPath("spec", "rules").Index(ri)
		timeouts, err := filter.HTTPRuleTimeouts(path, rule.Timeouts)
		if err != nil {
			dropped = append(dropped, *filterDropped(ri, err))
			continue
		}
		retry, err := filter.HTTPRuleRetry(path, rule.Retry, rule.Timeouts)
		if err != nil {
			dropped = append(dropped, *filterDropped(ri, err))
			continue
		}
		session, err := filter.SessionCookie(path, rule.SessionPersistence, t.names.rule(ri))
		if err != nil {
			dropped = append(dropped, *filterDropped(ri, err))
			continue
		}
		rv := ruleView{
			index: ri, matches: len(matches), timeouts: timeouts, retry: retry, session: session,
			rules: func(hostnames []string, mi int) ([]match.Rule, error) { return match.HTTP(hostnames, matches[mi]) },
			filters: func(fe filter.Env, path *field.Path, prefix string) (filter.Result, error) {
				return filter.HTTPRuleFilters(fe, path, prefix, rule)
			},
			backendFilters: func(fe filter.Env, path *field.Path, prefix string, bi int) (filter.Result, error) {
				return filter.HTTPBackendFilters(fe, path, prefix, rule, bi)
			},
		}
		if d := t.rule(rv, att, backendsOf(bc, ri)); d != nil {
			dropped = append(dropped, *d)
		}
	}
	return dropped
}
