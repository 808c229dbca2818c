package filter

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// conformanceRow is one case of a Gateway API conformance test
// (gateway-api's release-1.6 branch, conformance/tests, unless said
// otherwise), in words, with the translation of its route rule: what a
// run through real Traefik must show. check asserts here what can be
// without Traefik.
type conformanceRow struct {
	test      string // the test and its case
	exchange  string // the request, and what the client and the backend must see
	translate func() (Result, error)
	check     func(t *testing.T, res Result)
}

func httpRow(env Env, r gwapiv1.HTTPRouteRule) func() (Result, error) {
	return func() (Result, error) { return HTTPRuleFilters(env, rule0, "row", &r) }
}

var conformanceRows = []conformanceRow{{
	test: "HTTPRouteRequestHeaderModifier, /add with the header already sent (Plugin target)",
	exchange: "GET /add with X-Header-Add: some-other-value and Some-Other-Header: val; the backend gets " +
		"X-Header-Add: some-other-value,add-appends-values (one or two header lines) and Some-Other-Header: val",
	translate: httpRow(Env{Target: Plugin}, gwapiv1.HTTPRouteRule{Matches: prefixMatch("/add"), Filters: []gwapiv1.HTTPRouteFilter{
		requestHeaders(gwapiv1.HTTPHeaderFilter{Add: []gwapiv1.HTTPHeader{header("X-Header-Add", "add-appends-values")}})}}),
	check: func(t *testing.T, res Result) {
		requireJSON(t, `{"requestHeaderModifier":{"add":{"X-Header-Add":"add-appends-values"}}}`, res.Middlewares[0].Middleware)
	},
}, {
	test: "HTTPRouteRequestHeaderModifier, /set with the header already sent (Portable target)",
	exchange: "GET /set with X-Header-Set: some-other-value and Some-Other-Header: val; the backend gets " +
		"X-Header-Set: set-overwrites-values and Some-Other-Header: val",
	translate: httpRow(Env{}, gwapiv1.HTTPRouteRule{Matches: prefixMatch("/set"), Filters: []gwapiv1.HTTPRouteFilter{
		requestHeaders(gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X-Header-Set", "set-overwrites-values")}})}}),
	check: func(t *testing.T, res Result) {
		h := http.Header{"X-Header-Set": {"some-other-value"}, "Some-Other-Header": {"val"}}
		applyHeaders(t, res.Middlewares[0].Middleware, "customRequestHeaders", h)
		require.Equal(t, http.Header{"X-Header-Set": {"set-overwrites-values"}, "Some-Other-Header": {"val"}}, h)
	},
}, {
	test: "HTTPRouteResponseHeaderModifier, /remove (Portable target)",
	exchange: "GET /remove to a backend told to answer with X-Header-Remove: val; " +
		"the client's answer has no X-Header-Remove",
	translate: httpRow(Env{}, gwapiv1.HTTPRouteRule{Matches: prefixMatch("/remove"), Filters: []gwapiv1.HTTPRouteFilter{
		responseHeaders(gwapiv1.HTTPHeaderFilter{Remove: []string{"X-Header-Remove"}})}}),
	check: func(t *testing.T, res Result) {
		h := http.Header{"X-Header-Remove": {"val"}, "Content-Type": {"application/json"}}
		applyHeaders(t, res.Middlewares[0].Middleware, "customResponseHeaders", h)
		require.Equal(t, http.Header{"Content-Type": {"application/json"}}, h)
	},
}, {
	test:     "HTTPRouteRedirectPortAndScheme, listener on 8080, /scheme-nil-and-port-nil (Portable target)",
	exchange: "GET http://<gateway>:8080/scheme-nil-and-port-nil; the client gets 302 and Location http://example.org:8080/scheme-nil-and-port-nil",
	translate: httpRow(Env{Listener: Listener{Scheme: "http", Port: 8080}}, gwapiv1.HTTPRouteRule{
		Matches: prefixMatch("/scheme-nil-and-port-nil"),
		Filters: []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwapiv1.HTTPRequestRedirectFilter{
			Hostname: new(gwapiv1.PreciseHostname("example.org"))}}}}),
	check: func(t *testing.T, res Result) {
		loc, ok := redirectOf(t, res.Middlewares[0].Middleware, "http://10.0.0.1:8080/scheme-nil-and-port-nil")
		require.True(t, ok)
		require.Equal(t, "http://example.org:8080/scheme-nil-and-port-nil", loc)
		require.NotContains(t, res.Middlewares[0].Middleware["redirectRegex"], "permanent") // 302 to GET
	},
}, {
	test: "HTTPRouteRedirectPortAndScheme, HTTPS listener, /scheme-nil-and-port-nil with Host example.org (Portable target)",
	exchange: "GET https://example.org/scheme-nil-and-port-nil; the client gets 302 and Location " +
		"https://example.org/scheme-nil-and-port-nil, its own URL (the replacement's capital scheme makes Traefik send it)",
	translate: httpRow(Env{Listener: Listener{Scheme: "https", Port: 443}}, gwapiv1.HTTPRouteRule{
		Matches: prefixMatch("/scheme-nil-and-port-nil"),
		Filters: []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwapiv1.HTTPRequestRedirectFilter{
			Hostname: new(gwapiv1.PreciseHostname("example.org"))}}}}),
	check: func(t *testing.T, res Result) {
		loc, ok := redirectOf(t, res.Middlewares[0].Middleware, "https://example.org/scheme-nil-and-port-nil")
		require.True(t, ok)
		require.Equal(t, "https://example.org/scheme-nil-and-port-nil", loc)
	},
}, {
	test: "HTTPRoute303Redirect, POST /see-other (Plugin target; the Portable one refuses 303)",
	exchange: "POST /see-other; the client gets 303 and a Location whose path is /see-other " +
		"(the request's own URL: Traefik's requestRedirect sends it all the same)",
	translate: httpRow(Env{Target: Plugin, Listener: Listener{Scheme: "http", Port: 80}}, gwapiv1.HTTPRouteRule{
		Matches: prefixMatch("/see-other"),
		Filters: []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwapiv1.HTTPRequestRedirectFilter{
			StatusCode: new(303)}}}}),
	check: func(t *testing.T, res Result) {
		requireJSON(t, `{"requestRedirect":{"scheme":"http","port":"","statusCode":303}}`, res.Middlewares[0].Middleware)
	},
}, {
	test:     "HTTPRouteRewritePath, /prefix/one/two (Portable target)",
	exchange: "GET /prefix/one/two; the backend gets GET /one/two",
	translate: httpRow(Env{}, gwapiv1.HTTPRouteRule{Matches: prefixMatch("/prefix/one"), Filters: []gwapiv1.HTTPRouteFilter{
		{Type: gwapiv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwapiv1.HTTPURLRewriteFilter{Path: prefixRewrite("/one")}}}}),
	check: func(t *testing.T, res Result) {
		require.Equal(t, "/one/two", rewriteOf(t, res.Middlewares[0].Middleware, "/prefix/one/two"))
	},
}, {
	test:     "HTTPRouteRewriteHost, /one (Portable target)",
	exchange: "GET /one with Host rewrite.example; the backend gets Host one.example.org and path /one",
	translate: httpRow(Env{}, gwapiv1.HTTPRouteRule{Matches: prefixMatch("/one"), Filters: []gwapiv1.HTTPRouteFilter{
		{Type: gwapiv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwapiv1.HTTPURLRewriteFilter{Hostname: new(gwapiv1.PreciseHostname("one.example.org"))}}}}),
	check: func(t *testing.T, res Result) {
		require.Equal(t, "one.example.org", applyHeaders(t, res.Middlewares[0].Middleware, "customRequestHeaders", http.Header{}))
	},
}, {
	test: "HTTPRouteRequestMirror, /mirror (either target)",
	exchange: "GET /mirror; infra-backend-v1 answers the client, and infra-backend-v2 logs a copy of the request; " +
		"the router's service is a mirroring service: service = the rule's, mirrors = [infra-backend-v2's at 100]",
	translate: httpRow(Env{}, gwapiv1.HTTPRouteRule{Matches: prefixMatch("/mirror"), Filters: []gwapiv1.HTTPRouteFilter{
		mirrorFilter("infra-backend-v2", nil, nil)}}),
	check: func(t *testing.T, res Result) {
		require.Empty(t, res.Middlewares)
		require.Len(t, res.Mirrors, 1)
		require.Equal(t, 100, res.Mirrors[0].Percent)
		require.Equal(t, gwapiv1.ObjectName("infra-backend-v2"), res.Mirrors[0].BackendRef.Name)
	},
}, {
	test: "HTTPRouteCORS, preflight from a wildcard matching origin on /cors-1 (either target; Traefik v3.7.6 or later)",
	exchange: "OPTIONS /cors-1 with Origin https://www.bar.com, Access-Control-Request-Method GET and " +
		"Access-Control-Request-Headers x-header-1, x-header-2; the client gets 200 (Traefik answers, no backend) with " +
		"Access-Control-Allow-Origin https://www.bar.com, -Allow-Methods GET,OPTIONS, -Allow-Headers x-header-1,x-header-2, " +
		"-Expose-Headers x-header-3,x-header-4, -Max-Age 3600, -Allow-Credentials true",
	translate: httpRow(Env{}, gwapiv1.HTTPRouteRule{Matches: prefixMatch("/cors-1"), Filters: []gwapiv1.HTTPRouteFilter{
		{Type: gwapiv1.HTTPRouteFilterCORS, CORS: &gwapiv1.HTTPCORSFilter{
			AllowOrigins:     origins("https://www.foo.com", "https://*.bar.com"),
			AllowMethods:     []gwapiv1.HTTPMethodWithWildcard{"GET", "OPTIONS"},
			AllowHeaders:     names("x-header-1", "x-header-2"),
			ExposeHeaders:    names("x-header-3", "x-header-4"),
			AllowCredentials: new(true),
			MaxAge:           3600,
		}}}}),
	check: func(t *testing.T, res Result) {
		m := res.Middlewares[0].Middleware
		require.True(t, allowed(m, "https://www.bar.com"))
		require.False(t, allowed(m, "https://foobar.com"))
		h := m["headers"].(map[string]any)
		require.Equal(t, []string{"GET", "OPTIONS"}, h["accessControlAllowMethods"])
		require.Equal(t, 3600, h["accessControlMaxAge"])
	},
}, {
	test:     "HTTPRouteExtensionRef (no conformance test: Gateway API's rule for an unresolved extension)",
	exchange: "any request the rule matches gets 500; the route's ResolvedRefs is False with reason InvalidKind",
	translate: httpRow(Env{}, gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterExtensionRef,
		ExtensionRef: &gwapiv1.LocalObjectReference{Group: "example.net", Kind: "Filter", Name: "f"}}}}),
}, {
	test:     "GRPCRouteRequestHeaderModifier, add to a header already sent (gateway-api main branch; Plugin target)",
	exchange: "a gRPC call with metadata X-Header-Add: some-other-value; the backend gets X-Header-Add: some-other-value,add-appends-values",
	translate: func() (Result, error) {
		return GRPCRuleFilters(Env{Target: Plugin}, rule0, "row", &gwapiv1.GRPCRouteRule{Filters: []gwapiv1.GRPCRouteFilter{{
			Type:                  gwapiv1.GRPCRouteFilterRequestHeaderModifier,
			RequestHeaderModifier: &gwapiv1.HTTPHeaderFilter{Add: []gwapiv1.HTTPHeader{header("X-Header-Add", "add-appends-values")}},
		}}})
	},
	check: func(t *testing.T, res Result) {
		requireJSON(t, `{"requestHeaderModifier":{"add":{"X-Header-Add":"add-appends-values"}}}`, res.Middlewares[0].Middleware)
	},
}}

func TestConformanceRows(t *testing.T) {
	for _, row := range conformanceRows {
		t.Run(row.test, func(t *testing.T) {
			require.NotEmpty(t, row.exchange)
			res, err := row.translate()
			if row.check == nil { // a row whose route is refused
				var e *Error
				require.ErrorAs(t, err, &e)
				require.Equal(t, gwapiv1.RouteReasonInvalidKind, e.Reason)
				return
			}
			require.NoError(t, err)
			row.check(t, res)
		})
	}
}

// The timeouts' conformance tests, HTTPRouteTimeoutRequest and
// HTTPRouteTimeoutBackendRequest: GET /request-timeout answers 200,
// GET /request-timeout?delay=1s (the backend answers after a second)
// answers 504, and with the timeout "0s" the delayed request answers
// 200. Traefik answers 504 when responseHeaderTimeout runs out.
func TestConformanceTimeouts(t *testing.T) {
	for _, timeouts := range []gwapiv1.HTTPRouteTimeouts{{Request: duration("500ms")}, {BackendRequest: duration("500ms")}} {
		got, err := HTTPRuleTimeouts(rule0, &timeouts)
		require.NoError(t, err)
		require.Equal(t, "500ms", got.ResponseHeaderTimeout.String())
	}
	for _, timeouts := range []gwapiv1.HTTPRouteTimeouts{{Request: duration("0s")}, {BackendRequest: duration("0s")}} {
		got, err := HTTPRuleTimeouts(rule0, &timeouts)
		require.NoError(t, err)
		require.Zero(t, got.ResponseHeaderTimeout)
	}
}
