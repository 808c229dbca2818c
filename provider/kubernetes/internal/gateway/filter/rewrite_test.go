package filter

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// prefixTable is what ReplacePrefixMatch does to a path: Gateway API's
// table of the field, the cases of the conformance test
// HTTPRouteRewritePath, and a few more.
var prefixTable = []struct{ path, prefix, replacement, want string }{
	{"/foo/bar", "/foo", "/xyz", "/xyz/bar"},
	{"/foo/bar", "/foo", "/xyz/", "/xyz/bar"},
	{"/foo/bar", "/foo/", "/xyz", "/xyz/bar"},
	{"/foo/bar", "/foo/", "/xyz/", "/xyz/bar"},
	{"/foo", "/foo", "/xyz", "/xyz"},
	{"/foo/", "/foo", "/xyz", "/xyz/"},
	{"/foo/bar", "/foo", "", "/bar"},
	{"/foo/", "/foo", "", "/"},
	{"/foo", "/foo", "", "/"},
	{"/foo/", "/foo", "/", "/"},
	{"/foo", "/foo", "/", "/"},
	{"/prefix/one/two", "/prefix/one", "/one", "/one/two"},
	{"/strip-prefix/three", "/strip-prefix", "/", "/three"},
	{"/strip-prefix", "/strip-prefix", "/", "/"},
	{"/prefix/rewrite-path-and-modify-headers/one", "/prefix/rewrite-path-and-modify-headers", "/prefix", "/prefix/one"},
	{"/prefix/one/three", "/prefix/one", "/xyz", "/xyz/three"},
	{"/prefix/one/three/", "/prefix/one", "/xyz", "/xyz/three/"},
	{"/", "/", "/xyz", "/xyz/"},
	{"/a", "/", "/xyz", "/xyz/a"},
	{"/a/", "/", "", "/a/"},
	{"/caf%C3%A9/x", "/caf%C3%A9", "/c", "/c/x"},
}

func rewriteRule(f gwapiv1.HTTPURLRewriteFilter, matches []gwapiv1.HTTPRouteMatch) *gwapiv1.HTTPRouteRule {
	return &gwapiv1.HTTPRouteRule{
		Matches: matches,
		Filters: []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterURLRewrite, URLRewrite: &f}},
	}
}

func prefixRewrite(replacement string) *gwapiv1.HTTPPathModifier {
	return &gwapiv1.HTTPPathModifier{Type: gwapiv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: new(replacement)}
}

func TestRewritePrefixAsSeen(t *testing.T) {
	for _, row := range prefixTable {
		res, err := HTTPRuleFilters(Env{}, rule0, "r", rewriteRule(gwapiv1.HTTPURLRewriteFilter{Path: prefixRewrite(row.replacement)}, prefixMatch(row.prefix)))
		require.NoError(t, err)
		require.Len(t, res.Middlewares, 1)
		require.Equal(t, "r-urlrewrite-0-path", res.Middlewares[0].Name)
		require.Equal(t, row.want, rewriteOf(t, res.Middlewares[0].Middleware, row.path), "%+v", row)
	}
	// Not the prefix, element by element: left alone.
	res, err := HTTPRuleFilters(Env{}, rule0, "r", rewriteRule(gwapiv1.HTTPURLRewriteFilter{Path: prefixRewrite("/x")}, prefixMatch("/foo")))
	require.NoError(t, err)
	require.Equal(t, "/foobar", rewriteOf(t, res.Middlewares[0].Middleware, "/foobar"))
}

func TestRewriteMiddlewares(t *testing.T) {
	full := &gwapiv1.HTTPPathModifier{Type: gwapiv1.FullPathHTTPPathModifier, ReplaceFullPath: new("/one")}
	host := new(gwapiv1.PreciseHostname("one.example.org"))
	cases := []struct {
		name   string
		target Target
		filter gwapiv1.HTTPURLRewriteFilter
		match  string
		want   []NamedMiddleware
	}{{
		name:   "portable host and full path",
		filter: gwapiv1.HTTPURLRewriteFilter{Hostname: host, Path: full},
		match:  "/full/one",
		want: []NamedMiddleware{
			{"r-urlrewrite-0-host", map[string]any{"headers": map[string]any{"customRequestHeaders": map[string]string{"Host": "one.example.org"}}}},
			{"r-urlrewrite-0-path", map[string]any{"replacePath": map[string]any{"path": "/one"}}},
		},
	}, {
		name:   "portable prefix",
		filter: gwapiv1.HTTPURLRewriteFilter{Path: prefixRewrite("/one")},
		match:  "/prefix/one/",
		want: []NamedMiddleware{
			{"r-urlrewrite-0-path", map[string]any{"replacePathRegex": map[string]any{"regex": "^/prefix/one(?P<rest>/.*)?$", "replacement": "/one${rest}"}}},
		},
	}, {
		name:   "portable prefix removed",
		filter: gwapiv1.HTTPURLRewriteFilter{Path: prefixRewrite("/")},
		match:  "/strip-prefix",
		want: []NamedMiddleware{
			{"r-urlrewrite-0-path", map[string]any{"replacePathRegex": map[string]any{"regex": "^/strip-prefix(?:/(?P<rest>.*))?$", "replacement": "/${rest}"}}},
		},
	}, {
		name:   "plugin host and prefix",
		target: Plugin,
		filter: gwapiv1.HTTPURLRewriteFilter{Hostname: host, Path: prefixRewrite("")},
		match:  "/foo/",
		want: []NamedMiddleware{
			{"r-urlrewrite-0", map[string]any{"URLRewrite": map[string]any{"hostname": "one.example.org", "path": "/", "pathPrefix": "/foo"}}},
		},
	}, {
		name:   "plugin full path",
		target: Plugin,
		filter: gwapiv1.HTTPURLRewriteFilter{Path: full},
		match:  "/",
		want: []NamedMiddleware{
			{"r-urlrewrite-0", map[string]any{"URLRewrite": map[string]any{"path": "/one"}}},
		},
	}, {
		name:   "a rewrite that changes nothing makes no middleware",
		filter: gwapiv1.HTTPURLRewriteFilter{},
		match:  "/",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := HTTPRuleFilters(Env{Target: tc.target}, rule0, "r", rewriteRule(tc.filter, prefixMatch(tc.match)))
			require.NoError(t, err)
			requireJSON(t, mustJSON(t, tc.want), res.Middlewares)
		})
	}
}

// What the backend sees of the conformance test HTTPRouteRewriteHost
// through the Portable host middleware.
func TestRewriteHostAsSeen(t *testing.T) {
	f := gwapiv1.HTTPURLRewriteFilter{Hostname: new(gwapiv1.PreciseHostname("one.example.org"))}
	res, err := HTTPRuleFilters(Env{}, rule0, "r", rewriteRule(f, nil))
	require.NoError(t, err)
	require.Equal(t, "one.example.org", applyHeaders(t, res.Middlewares[0].Middleware, "customRequestHeaders", http.Header{}))
}

func TestRewriteErrors(t *testing.T) {
	regex := []gwapiv1.HTTPRouteMatch{{Path: &gwapiv1.HTTPPathMatch{Type: new(gwapiv1.PathMatchRegularExpression), Value: new("/a.*")}}}
	base := "spec.rules[0].filters[0].urlRewrite."
	for _, tc := range []struct {
		name    string
		filter  gwapiv1.HTTPURLRewriteFilter
		matches []gwapiv1.HTTPRouteMatch
		field   string
	}{
		{"hostname", gwapiv1.HTTPURLRewriteFilter{Hostname: new(gwapiv1.PreciseHostname("*.example.org"))}, nil, base + "hostname"},
		{"prefix on a regular expression match", gwapiv1.HTTPURLRewriteFilter{Path: prefixRewrite("/x")}, regex, base + "path.replacePrefixMatch"},
		{"relative prefix replacement", gwapiv1.HTTPURLRewriteFilter{Path: prefixRewrite("x")}, nil, base + "path.replacePrefixMatch"},
		{"prefix type without its value", gwapiv1.HTTPURLRewriteFilter{Path: &gwapiv1.HTTPPathModifier{Type: gwapiv1.PrefixMatchHTTPPathModifier}}, nil, base + "path.replacePrefixMatch"},
		{"full path with a space", gwapiv1.HTTPURLRewriteFilter{Path: &gwapiv1.HTTPPathModifier{
			Type: gwapiv1.FullPathHTTPPathModifier, ReplaceFullPath: new("/a b")}}, nil, base + "path.replaceFullPath"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, target := range []Target{Portable, Plugin} {
				_, err := HTTPRuleFilters(Env{Target: target}, rule0, "r", rewriteRule(tc.filter, tc.matches))
				requireOneError(t, err, tc.field, gwapiv1.RouteReasonUnsupportedValue)
			}
		})
	}
}
