package filter

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func requestHeaders(f gwapiv1.HTTPHeaderFilter) gwapiv1.HTTPRouteFilter {
	return gwapiv1.HTTPRouteFilter{Type: gwapiv1.HTTPRouteFilterRequestHeaderModifier, RequestHeaderModifier: &f}
}

func responseHeaders(f gwapiv1.HTTPHeaderFilter) gwapiv1.HTTPRouteFilter {
	return gwapiv1.HTTPRouteFilter{Type: gwapiv1.HTTPRouteFilterResponseHeaderModifier, ResponseHeaderModifier: &f}
}

var setA = gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X-A", "a")}}

// The middlewares follow the filters' order, named by the caller's
// prefix, the filter's type and its index; mirrors are not middlewares.
func TestOrderAndNames(t *testing.T) {
	r := &gwapiv1.HTTPRouteRule{
		Matches: prefixMatch("/full/rewrite-path-and-modify-headers"),
		Filters: []gwapiv1.HTTPRouteFilter{
			{Type: gwapiv1.HTTPRouteFilterCORS, CORS: &gwapiv1.HTTPCORSFilter{AllowOrigins: origins("*")}},
			mirrorFilter("infra-backend-v2", nil, nil),
			{Type: gwapiv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwapiv1.HTTPURLRewriteFilter{
				Hostname: new(gwapiv1.PreciseHostname("h.example")),
				Path:     &gwapiv1.HTTPPathModifier{Type: gwapiv1.FullPathHTTPPathModifier, ReplaceFullPath: new("/test")},
			}},
			requestHeaders(setA),
			responseHeaders(setA),
			mirrorFilter("infra-backend-v3", nil, nil),
		},
		BackendRefs: []gwapiv1.HTTPBackendRef{{}},
	}
	res, err := HTTPRuleFilters(Env{}, rule0, "httproute-ns-name-r0-web", r)
	require.NoError(t, err)
	require.Equal(t, []string{
		"httproute-ns-name-r0-web-cors-0",
		"httproute-ns-name-r0-web-urlrewrite-2-host",
		"httproute-ns-name-r0-web-urlrewrite-2-path",
		"httproute-ns-name-r0-web-requestheadermodifier-3",
		"httproute-ns-name-r0-web-responseheadermodifier-4",
	}, res.Names())
	require.Len(t, res.Mirrors, 2)
	require.Equal(t, "spec.rules[0].filters[5].requestMirror", res.Mirrors[1].Field)

	// Translating again gives the same, byte for byte.
	again, err := HTTPRuleFilters(Env{}, rule0, "httproute-ns-name-r0-web", r)
	require.NoError(t, err)
	require.Equal(t, mustJSON(t, res), mustJSON(t, again))
}

// A backendRef's filters name their field under the backendRef and take
// their prefix from the caller, apart from the rule's.
func TestBackendFilters(t *testing.T) {
	r := &gwapiv1.HTTPRouteRule{
		Matches: prefixMatch("/prefix"),
		Filters: []gwapiv1.HTTPRouteFilter{requestHeaders(setA)},
		BackendRefs: []gwapiv1.HTTPBackendRef{
			{},
			{Filters: []gwapiv1.HTTPRouteFilter{
				{Type: gwapiv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwapiv1.HTTPURLRewriteFilter{Path: prefixRewrite("/rewritten-prefix")}},
				mirrorFilter("mirror", new(int32(10)), nil),
			}},
		},
	}
	res, err := HTTPBackendFilters(Env{}, rule0, "svc-r0-b1", r, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"svc-r0-b1-urlrewrite-0-path"}, res.Names())
	require.Equal(t, "/rewritten-prefix/x", rewriteOf(t, res.Middlewares[0].Middleware, "/prefix/x"))
	require.Equal(t, "spec.rules[0].backendRefs[1].filters[1].requestMirror", res.Mirrors[0].Field)

	none, err := HTTPBackendFilters(Env{}, rule0, "svc-r0-b0", r, 0)
	require.NoError(t, err)
	require.Empty(t, none.Middlewares)

	_, err = HTTPBackendFilters(Env{}, rule0, "svc", r, 2)
	require.Error(t, err)

	// A RequestRedirect answers whatever the backend: the rule's filters
	// take it, a backendRef's do not.
	r.BackendRefs[0].Filters = []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterRequestRedirect,
		RequestRedirect: &gwapiv1.HTTPRequestRedirectFilter{Hostname: new(gwapiv1.PreciseHostname("elsewhere.example"))}}}
	_, err = HTTPBackendFilters(Env{}, rule0, "svc-r0-b0", r, 0)
	require.EqualError(t, err, `spec.rules[0].backendRefs[0].filters[0].type: "RequestRedirect" is not a filter type this list takes`)
}

func TestGRPCFilters(t *testing.T) {
	r := &gwapiv1.GRPCRouteRule{
		Filters: []gwapiv1.GRPCRouteFilter{
			{Type: gwapiv1.GRPCRouteFilterRequestHeaderModifier, RequestHeaderModifier: &gwapiv1.HTTPHeaderFilter{
				Set: []gwapiv1.HTTPHeader{header("x-header-set", "set-overwrites-values")},
				Add: []gwapiv1.HTTPHeader{header("x-header-add", "add-appends-values")},
			}},
			{Type: gwapiv1.GRPCRouteFilterRequestMirror, RequestMirror: &gwapiv1.HTTPRequestMirrorFilter{
				BackendRef: gwapiv1.BackendObjectReference{Name: "grpc-mirror"}}},
		},
		BackendRefs: []gwapiv1.GRPCBackendRef{{Filters: []gwapiv1.GRPCRouteFilter{
			{Type: gwapiv1.GRPCRouteFilterResponseHeaderModifier, ResponseHeaderModifier: &gwapiv1.HTTPHeaderFilter{Remove: []string{"x-drop"}}},
		}}},
	}
	res, err := GRPCRuleFilters(Env{Target: Plugin}, rule0, "grpc", r)
	require.NoError(t, err)
	requireJSON(t, `[{"Name":"grpc-requestheadermodifier-0","Middleware":{"requestHeaderModifier":{
		"set":{"X-Header-Set":"set-overwrites-values"},"add":{"X-Header-Add":"add-appends-values"}}}}]`, res.Middlewares)
	require.Equal(t, 100, res.Mirrors[0].Percent)

	// Portable: the append is refused, as for an HTTPRoute.
	_, err = GRPCRuleFilters(Env{}, rule0, "grpc", r)
	requireOneError(t, err, "spec.rules[0].filters[0].requestHeaderModifier.add", gwapiv1.RouteReasonUnsupportedValue)

	res, err = GRPCBackendFilters(Env{}, rule0, "grpc-b0", r, 0)
	require.NoError(t, err)
	requireJSON(t, `[{"Name":"grpc-b0-responseheadermodifier-0","Middleware":{"headers":{"customResponseHeaders":{"X-Drop":""}}}}]`, res.Middlewares)

	// A filter type GRPCRoute does not take.
	r.Filters = []gwapiv1.GRPCRouteFilter{{Type: "URLRewrite"}}
	_, err = GRPCRuleFilters(Env{}, rule0, "grpc", r)
	requireOneError(t, err, "spec.rules[0].filters[0].type", gwapiv1.RouteReasonUnsupportedValue)
}

func TestRefusedFilters(t *testing.T) {
	redirect := gwapiv1.HTTPRouteFilter{Type: gwapiv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwapiv1.HTTPRequestRedirectFilter{}}
	rewrite := gwapiv1.HTTPRouteFilter{Type: gwapiv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwapiv1.HTTPURLRewriteFilter{}}
	extension := gwapiv1.HTTPRouteFilter{Type: gwapiv1.HTTPRouteFilterExtensionRef,
		ExtensionRef: &gwapiv1.LocalObjectReference{Group: "example.net", Kind: "Filter", Name: "f"}}
	for _, tc := range []struct {
		name      string
		rule      gwapiv1.HTTPRouteRule
		field     string
		condition gwapiv1.RouteConditionType
		reason    gwapiv1.RouteConditionReason
	}{
		{"redirect and rewrite", gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{redirect, rewrite}},
			"spec.rules[0].filters", gwapiv1.RouteConditionAccepted, gwapiv1.RouteReasonIncompatibleFilters},
		{"a second header modifier", gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{requestHeaders(setA), requestHeaders(setA)}},
			"spec.rules[0].filters[1].type", gwapiv1.RouteConditionAccepted, gwapiv1.RouteReasonIncompatibleFilters},
		{"a redirect on a rule with backends", gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{redirect}, BackendRefs: []gwapiv1.HTTPBackendRef{{}}},
			"spec.rules[0].filters[0]", gwapiv1.RouteConditionAccepted, gwapiv1.RouteReasonIncompatibleFilters},
		{"an extension", gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{extension}},
			"spec.rules[0].filters[0].extensionRef", gwapiv1.RouteConditionResolvedRefs, gwapiv1.RouteReasonInvalidKind},
		{"external auth", gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterExternalAuth}}},
			"spec.rules[0].filters[0].type", gwapiv1.RouteConditionAccepted, gwapiv1.RouteReasonUnsupportedValue},
		{"an unknown type", gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{{Type: "Teleport"}}},
			"spec.rules[0].filters[0].type", gwapiv1.RouteConditionAccepted, gwapiv1.RouteReasonUnsupportedValue},
		{"a type without its field", gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterCORS}}},
			"spec.rules[0].filters[0].cors", gwapiv1.RouteConditionAccepted, gwapiv1.RouteReasonUnsupportedValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := HTTPRuleFilters(Env{Target: Plugin}, rule0, "r", &tc.rule)
			e := oneError(t, err, tc.field, tc.reason)
			require.Equal(t, tc.condition, e.Condition)
			require.Empty(t, res.Middlewares)
			require.Empty(t, res.Mirrors)
		})
	}
}

// Every problem of a list is reported, in field order, and the valid
// filters beside them give nothing.
func TestAllProblemsReported(t *testing.T) {
	r := &gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{
		requestHeaders(setA),
		responseHeaders(gwapiv1.HTTPHeaderFilter{Add: []gwapiv1.HTTPHeader{header("X-A", "a")}}),
		mirrorFilter("m", new(int32(200)), nil),
	}}
	res, err := HTTPRuleFilters(Env{}, rule0, "r", r)
	var errs Errors
	require.True(t, errors.As(err, &errs))
	require.Len(t, errs, 2)
	require.Equal(t, "spec.rules[0].filters[1].responseHeaderModifier.add", errs[0].Field)
	require.Equal(t, "spec.rules[0].filters[2].requestMirror.percent", errs[1].Field)
	require.Equal(t, Result{}, res)

	var first *Error
	require.True(t, errors.As(err, &first))
	require.Equal(t, errs[0], first)
	require.Contains(t, err.Error(), "spec.rules[0].filters[2].requestMirror.percent: 200 is not a percentage")
}
