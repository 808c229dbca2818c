package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The mirror references of a route are found in its rules' filters and
// in its backendRefs' filters, each named by the filter's field as the
// filter package names it, and resolved as backendRefs are: an
// unusable one makes ResolvedRefs False.
func TestCheckMirrors(t *testing.T) {
	look := conformanceCluster().lookups()
	ok := backendRef("-", "", "", "infra-backend-v2", 8080, -1).BackendObjectReference
	bad := backendRef("-", "", webNS, "web-backend", 8080, -1).BackendObjectReference
	mirror := func(ref gatewayv1.BackendObjectReference) gatewayv1.HTTPRouteFilter {
		return gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterRequestMirror, RequestMirror: &gatewayv1.HTTPRequestMirrorFilter{BackendRef: ref}}
	}
	h := &gatewayv1.HTTPRoute{Spec: gatewayv1.HTTPRouteSpec{Rules: []gatewayv1.HTTPRouteRule{
		{Filters: []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier}, mirror(ok)},
			BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: backendRef("-", "", "", "infra-backend-v1", 8080, -1)}}},
		{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: backendRef("-", "", "", "infra-backend-v1", 8080, -1), Filters: []gatewayv1.HTTPRouteFilter{mirror(bad)}}}},
	}}}
	refs := HTTPRouteMirrorRefs(h)
	require.Equal(t, []MirrorRef{
		{Rule: 0, Field: "spec.rules[0].filters[1].requestMirror", Ref: ok},
		{Rule: 1, Field: "spec.rules[1].backendRefs[0].filters[0].requestMirror", Ref: bad},
	}, refs)

	r := route(KindHTTPRoute, infraNS, "r", nil)
	check := CheckBackends(r, HTTPRouteBackendRefs(h), look)
	require.True(t, check.ResolvedRefs)
	check.CheckMirrors(r, refs, look)
	require.False(t, check.ResolvedRefs)
	require.Equal(t, gatewayv1.RouteReasonRefNotPermitted, check.Reason)
	require.Contains(t, check.Message, "spec.rules[1].backendRefs[0].filters[0].requestMirror.backendRef: Service gateway-conformance-web-backend/web-backend is in another namespace")
	require.True(t, check.Rules[0].Mirrors["spec.rules[0].filters[1].requestMirror"].Usable)
	require.False(t, check.Rules[1].Mirrors["spec.rules[1].backendRefs[0].filters[0].requestMirror"].Usable)

	g := &gatewayv1.GRPCRoute{Spec: gatewayv1.GRPCRouteSpec{Rules: []gatewayv1.GRPCRouteRule{{Filters: []gatewayv1.GRPCRouteFilter{
		{Type: gatewayv1.GRPCRouteFilterRequestMirror, RequestMirror: &gatewayv1.HTTPRequestMirrorFilter{BackendRef: ok}}}}}}}
	require.Equal(t, []MirrorRef{{Rule: 0, Field: "spec.rules[0].filters[0].requestMirror", Ref: ok}}, GRPCRouteMirrorRefs(g))
}
