package gateway

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// GRPCRoute builds into p (zero) the part of route as HTTPRoute does: its
// matches are gRPC services and methods (paths), and its backends are
// reached with HTTP/2 (h2c unless their load balancers say https).
func GRPCRoute(env *Env, p *translate.Part, route *gatewayv1.GRPCRoute, att *attach.RouteAttachment, bc *attach.BackendCheck) (dropped []attach.DroppedRule) {
	t := begin(env, p, attach.KindGRPCRoute, route, bc)
	defer translate.RecoverPart(p)
	for ri := range route.Spec.Rules {
		rule := &route.Spec.Rules[ri]
		matches := rule.Matches
		if len(matches) == 0 {
			matches = []gatewayv1.GRPCRouteMatch{{}} // the API's one match of every service and method
		}
		session, err := filter.SessionCookie(field.NewPath("spec", "rules").Index(ri), rule.SessionPersistence, t.names.rule(ri))
		if err != nil {
			dropped = append(dropped, *filterDropped(ri, err))
			continue
		}
		rv := ruleView{
			index: ri, matches: len(matches), h2c: true, session: session,
			rules: func(hostnames []string, mi int) ([]match.Rule, error) { return match.GRPC(hostnames, matches[mi]) },
			filters: func(fe filter.Env, path *field.Path, prefix string) (filter.Result, error) {
				return filter.GRPCRuleFilters(fe, path, prefix, rule)
			},
			backendFilters: func(fe filter.Env, path *field.Path, prefix string, bi int) (filter.Result, error) {
				return filter.GRPCBackendFilters(fe, path, prefix, rule, bi)
			},
		}
		if d := t.rule(rv, att, backendsOf(bc, ri)); d != nil {
			dropped = append(dropped, *d)
		}
	}
	return dropped
}
