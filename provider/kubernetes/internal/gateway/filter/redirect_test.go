package filter

import (
	"testing"

	"github.com/stretchr/testify/require"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

func redirectRule(f gwapiv1.HTTPRequestRedirectFilter, matches []gwapiv1.HTTPRouteMatch) *gwapiv1.HTTPRouteRule {
	return &gwapiv1.HTTPRouteRule{
		Matches: matches,
		Filters: []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &f}},
	}
}

func redirectMiddleware(t *testing.T, env Env, f gwapiv1.HTTPRequestRedirectFilter, matches []gwapiv1.HTTPRouteMatch) dynamic.Middleware {
	t.Helper()
	res, err := HTTPRuleFilters(env, rule0, "r", redirectRule(f, matches))
	require.NoError(t, err)
	require.Len(t, res.Middlewares, 1)
	require.Equal(t, "r-requestredirect-0", res.Middlewares[0].Name)
	return res.Middlewares[0].Middleware
}

// The port of Location, as the conformance test
// HTTPRouteRedirectPortAndScheme checks it on three listeners: the URL
// is what Traefik builds of the test's request (its client leaves the
// well-known port out of Host).
func TestRedirectPortAndScheme(t *testing.T) {
	http80 := ListenerOf(gwapiv1.Listener{Protocol: gwapiv1.HTTPProtocolType, Port: 80})
	http8080 := ListenerOf(gwapiv1.Listener{Protocol: gwapiv1.HTTPProtocolType, Port: 8080})
	https443 := ListenerOf(gwapiv1.Listener{Protocol: gwapiv1.HTTPSProtocolType, Port: 443})
	require.Equal(t, Listener{Scheme: "https", Port: 443}, https443)
	require.Equal(t, Listener{Port: 9000}, ListenerOf(gwapiv1.Listener{Protocol: gwapiv1.TCPProtocolType, Port: 9000}))
	host := new(gwapiv1.PreciseHostname("example.org"))
	cases := []struct {
		listener Listener
		url      string
		scheme   *string
		port     *gwapiv1.PortNumber
		want     string
		// wantPlugin is requestRedirect's scheme and port.
		wantPlugin string
	}{
		{http80, "http://10.0.0.1/p", nil, nil, "http://example.org/p", `"scheme":"http","port":""`},
		{http80, "http://10.0.0.1/p", nil, new(int32(80)), "http://example.org/p", `"scheme":"http","port":""`},
		{http80, "http://10.0.0.1/p", nil, new(int32(8080)), "http://example.org:8080/p", `"scheme":"http","port":"8080"`},
		{http80, "http://10.0.0.1/p", new("https"), nil, "https://example.org/p", `"scheme":"https","port":""`},
		{http80, "http://10.0.0.1/p", new("https"), new(int32(443)), "https://example.org/p", `"scheme":"https","port":""`},
		{http80, "http://10.0.0.1/p", new("https"), new(int32(8443)), "https://example.org:8443/p", `"scheme":"https","port":"8443"`},
		{http8080, "http://10.0.0.1:8080/p", nil, nil, "http://example.org:8080/p", `"scheme":"http","port":"8080"`},
		{http8080, "http://10.0.0.1:8080/p", nil, new(int32(80)), "http://example.org/p", `"scheme":"http","port":""`},
		{http8080, "http://10.0.0.1:8080/p", new("https"), nil, "https://example.org/p", `"scheme":"https","port":""`},
		// Redirects to the request's own URL, which happen all the same.
		{https443, "https://example.org/p", nil, nil, "https://example.org/p", `"scheme":"https","port":""`},
		{https443, "https://example.org/p", nil, new(int32(443)), "https://example.org/p", `"scheme":"https","port":""`},
		{https443, "https://example.org/p", nil, new(int32(8443)), "https://example.org:8443/p", `"scheme":"https","port":"8443"`},
		{https443, "https://example.org/p", new("http"), nil, "http://example.org/p", `"scheme":"http","port":""`},
		{https443, "https://example.org/p", new("http"), new(int32(80)), "http://example.org/p", `"scheme":"http","port":""`},
		{https443, "https://example.org/p", new("http"), new(int32(8080)), "http://example.org:8080/p", `"scheme":"http","port":"8080"`},
	}
	for _, tc := range cases {
		f := gwapiv1.HTTPRequestRedirectFilter{Scheme: tc.scheme, Hostname: host, Port: tc.port}
		m := redirectMiddleware(t, Env{Listener: tc.listener}, f, nil)
		loc, ok := redirectOf(t, m, tc.url)
		require.True(t, ok, "%+v: no redirect", tc)
		require.Equal(t, tc.want, loc, "%+v", tc)

		p := redirectMiddleware(t, Env{Target: Plugin, Listener: tc.listener}, f, nil)
		requireJSON(t, `{"requestRedirect":{"statusCode":302,"hostname":"example.org",`+tc.wantPlugin+`}}`, p)
	}
}

// Without the listener, Location keeps the request's scheme and port
// unless the filter says otherwise.
func TestRedirectUnknownListener(t *testing.T) {
	cases := []struct {
		filter gwapiv1.HTTPRequestRedirectFilter
		url    string
		want   string
		plugin string
	}{{
		filter: gwapiv1.HTTPRequestRedirectFilter{Hostname: new(gwapiv1.PreciseHostname("example.org"))},
		url:    "http://a.example:8000/x?q=1",
		want:   "http://example.org:8000/x?q=1",
		plugin: `{"requestRedirect":{"statusCode":302,"hostname":"example.org"}}`,
	}, {
		filter: gwapiv1.HTTPRequestRedirectFilter{Port: new(int32(8083))},
		url:    "https://[::1]:8443/port",
		want:   "https://[::1]:8083/port",
		plugin: `{"requestRedirect":{"statusCode":302,"port":"8083"}}`,
	}, {
		filter: gwapiv1.HTTPRequestRedirectFilter{Scheme: new("https")},
		url:    "http://a.example:8000/scheme",
		want:   "https://a.example/scheme",
		plugin: `{"requestRedirect":{"statusCode":302,"scheme":"https","port":""}}`,
	}}
	for _, tc := range cases {
		loc, ok := redirectOf(t, redirectMiddleware(t, Env{}, tc.filter, nil), tc.url)
		require.True(t, ok)
		require.Equal(t, tc.want, loc)
		requireJSON(t, tc.plugin, redirectMiddleware(t, Env{Target: Plugin}, tc.filter, nil))
	}
}

// The paths of the conformance test HTTPRouteRedirectPath, and the
// query, which a redirect keeps.
func TestRedirectPath(t *testing.T) {
	l := Listener{Scheme: "http", Port: 80}
	prefix := &gwapiv1.HTTPPathModifier{Type: gwapiv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: new("/replacement-prefix")}
	full := &gwapiv1.HTTPPathModifier{Type: gwapiv1.FullPathHTTPPathModifier, ReplaceFullPath: new("/full-path-replacement")}
	cases := []struct {
		name, match, url, want string
		filter                 gwapiv1.HTTPRequestRedirectFilter
	}{
		{"prefix", "/original-prefix", "http://gw/original-prefix/lemon", "http://gw/replacement-prefix/lemon", gwapiv1.HTTPRequestRedirectFilter{Path: prefix}},
		{"prefix and query", "/original-prefix", "http://gw/original-prefix/lemon?a=b&c", "http://gw/replacement-prefix/lemon?a=b&c", gwapiv1.HTTPRequestRedirectFilter{Path: prefix}},
		{"full", "/full", "http://gw/full/path/original", "http://gw/full-path-replacement", gwapiv1.HTTPRequestRedirectFilter{Path: full}},
		{"path and host", "/path-and-host", "http://gw/path-and-host", "http://example.org/replacement-prefix",
			gwapiv1.HTTPRequestRedirectFilter{Path: prefix, Hostname: new(gwapiv1.PreciseHostname("example.org"))}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			loc, ok := redirectOf(t, redirectMiddleware(t, Env{Listener: l}, tc.filter, prefixMatch(tc.match)), tc.url)
			require.True(t, ok)
			require.Equal(t, tc.want, loc)
		})
	}
	// Every row of Gateway API's table of ReplacePrefixMatch.
	for _, row := range prefixTable {
		f := gwapiv1.HTTPRequestRedirectFilter{Path: &gwapiv1.HTTPPathModifier{Type: gwapiv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: new(row.replacement)}}
		loc, _ := redirectOf(t, redirectMiddleware(t, Env{Listener: l}, f, prefixMatch(row.prefix)), "http://gw"+row.path+"?q")
		require.Equal(t, "http://gw"+row.want+"?q", loc, "%+v", row)
	}
	// A path the prefix does not start, element by element, is left
	// alone (the router never sends one).
	m := redirectMiddleware(t, Env{Listener: l}, gwapiv1.HTTPRequestRedirectFilter{Path: prefix}, prefixMatch("/original-prefix"))
	_, ok := redirectOf(t, m, "http://gw/original-prefixes")
	require.False(t, ok)
}

func TestRedirectPortableForm(t *testing.T) {
	f := gwapiv1.HTTPRequestRedirectFilter{
		Scheme:     new("https"),
		StatusCode: new(301),
		Path:       &gwapiv1.HTTPPathModifier{Type: gwapiv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: new("/a$1")},
	}
	m := redirectMiddleware(t, Env{Listener: Listener{Scheme: "http", Port: 80}}, f, prefixMatch("/old.path/"))
	requireJSON(t, `{"redirectRegex":{
		"regex":"^(?P<scheme>https?)://(?P<host>\\[[^\\]]*\\]|[^/:]*)(?P<port>:[0-9]*)?/old\\.path(?P<rest>/[^?]*)?(?P<query>\\?.*)?$",
		"replacement":"HTTPS://${host}/a$$1${rest}${query}",
		"permanent":true}}`, m)
	loc, ok := redirectOf(t, m, "http://gw:80/old.path/x")
	require.True(t, ok)
	require.Equal(t, "https://gw/a$1/x", loc)
}

func TestRedirectStatusCodes(t *testing.T) {
	for _, tc := range []struct {
		code     *int
		portable string // "" : refused
		plugin   int
	}{
		{nil, `{}`, 302},
		{new(301), `{"permanent":true}`, 301},
		{new(302), `{}`, 302},
		{new(303), "", 303},
		{new(307), "", 307},
		{new(308), "", 308},
	} {
		f := gwapiv1.HTTPRequestRedirectFilter{StatusCode: tc.code}
		p := redirectMiddleware(t, Env{Target: Plugin}, f, nil)
		require.Equal(t, tc.plugin, p["requestRedirect"].(map[string]any)["statusCode"])

		res, err := HTTPRuleFilters(Env{}, rule0, "r", redirectRule(f, nil))
		if tc.portable == "" {
			requireOneError(t, err, "spec.rules[0].filters[0].requestRedirect.statusCode", gwapiv1.RouteReasonUnsupportedValue)
			continue
		}
		require.NoError(t, err)
		rr := res.Middlewares[0].Middleware["redirectRegex"].(map[string]any)
		_, permanent := rr["permanent"]
		require.Equal(t, tc.portable != `{}`, permanent)
	}
}

func TestRedirectErrors(t *testing.T) {
	prefix := &gwapiv1.HTTPPathModifier{Type: gwapiv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: new("/x")}
	exact := []gwapiv1.HTTPRouteMatch{{Path: &gwapiv1.HTTPPathMatch{Type: new(gwapiv1.PathMatchExact), Value: new("/a")}}}
	two := append(prefixMatch("/a"), prefixMatch("/b")...)
	base := "spec.rules[0].filters[0].requestRedirect."
	for _, tc := range []struct {
		name    string
		target  Target
		filter  gwapiv1.HTTPRequestRedirectFilter
		matches []gwapiv1.HTTPRouteMatch
		field   string
	}{
		{"scheme", Plugin, gwapiv1.HTTPRequestRedirectFilter{Scheme: new("ftp")}, nil, base + "scheme"},
		{"hostname", Portable, gwapiv1.HTTPRequestRedirectFilter{Hostname: new(gwapiv1.PreciseHostname("Bad_Host"))}, nil, base + "hostname"},
		{"port", Portable, gwapiv1.HTTPRequestRedirectFilter{Port: new(int32(0))}, nil, base + "port"},
		{"status code", Plugin, gwapiv1.HTTPRequestRedirectFilter{StatusCode: new(300)}, nil, base + "statusCode"},
		{"prefix on an exact match", Portable, gwapiv1.HTTPRequestRedirectFilter{Path: prefix}, exact, base + "path.replacePrefixMatch"},
		{"prefix on two matches", Plugin, gwapiv1.HTTPRequestRedirectFilter{Path: prefix}, two, base + "path.replacePrefixMatch"},
		{"full path not absolute", Portable, gwapiv1.HTTPRequestRedirectFilter{Path: &gwapiv1.HTTPPathModifier{
			Type: gwapiv1.FullPathHTTPPathModifier, ReplaceFullPath: new("x?y")}}, nil, base + "path.replaceFullPath"},
		{"type without its value", Portable, gwapiv1.HTTPRequestRedirectFilter{Path: &gwapiv1.HTTPPathModifier{
			Type: gwapiv1.FullPathHTTPPathModifier}}, nil, base + "path.replaceFullPath"},
		{"unknown path type", Portable, gwapiv1.HTTPRequestRedirectFilter{Path: &gwapiv1.HTTPPathModifier{Type: "Regex"}}, nil, base + "path.type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := HTTPRuleFilters(Env{Target: tc.target}, rule0, "r", redirectRule(tc.filter, tc.matches))
			requireOneError(t, err, tc.field, gwapiv1.RouteReasonUnsupportedValue)
		})
	}
}
