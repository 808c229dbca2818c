package filter

import (
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

func corsRule(f gwapiv1.HTTPCORSFilter) *gwapiv1.HTTPRouteRule {
	return &gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{{Type: gwapiv1.HTTPRouteFilterCORS, CORS: &f}}}
}

func corsMiddleware(t *testing.T, f gwapiv1.HTTPCORSFilter) dynamic.Middleware {
	t.Helper()
	for _, target := range []Target{Portable, Plugin} {
		res, err := HTTPRuleFilters(Env{Target: target}, rule0, "r", corsRule(f))
		require.NoError(t, err)
		require.Len(t, res.Middlewares, 1)
		require.Equal(t, "r-cors-0", res.Middlewares[0].Name)
		if target == Plugin {
			return res.Middlewares[0].Middleware
		}
	}
	panic("unreachable")
}

func origins(o ...string) []gwapiv1.CORSOrigin {
	out := make([]gwapiv1.CORSOrigin, len(o))
	for i, s := range o {
		out[i] = gwapiv1.CORSOrigin(s)
	}
	return out
}

func names(n ...string) []gwapiv1.HTTPHeaderName {
	out := make([]gwapiv1.HTTPHeaderName, len(n))
	for i, s := range n {
		out[i] = gwapiv1.HTTPHeaderName(s)
	}
	return out
}

// allowed says whether Traefik's headers middleware m allows origin: in
// its exact list (or "*"), or matched by one of its expressions.
func allowed(m dynamic.Middleware, origin string) bool {
	h := m["headers"].(map[string]any)
	if list, ok := h["accessControlAllowOriginList"].([]string); ok && (slices.Contains(list, origin) || slices.Contains(list, "*")) {
		return true
	}
	patterns, _ := h["accessControlAllowOriginListRegex"].([]string)
	for _, p := range patterns {
		if regexp.MustCompile(p).MatchString(origin) {
			return true
		}
	}
	return false
}

func TestCORSMiddlewares(t *testing.T) {
	cases := []struct {
		name   string
		filter gwapiv1.HTTPCORSFilter
		want   string
	}{{
		name: "the conformance test's cors-multiple-origins-methods-headers",
		filter: gwapiv1.HTTPCORSFilter{
			AllowOrigins:     origins("https://www.foo.com", "https://*.bar.com"),
			AllowMethods:     []gwapiv1.HTTPMethodWithWildcard{"GET", "OPTIONS"},
			AllowHeaders:     names("x-header-1", "x-header-2"),
			ExposeHeaders:    names("x-header-3", "x-header-4"),
			AllowCredentials: new(true),
			MaxAge:           3600,
		},
		want: `{"headers":{
			"accessControlAllowOriginList":["https://www.foo.com"],
			"accessControlAllowOriginListRegex":["^https://(?:[a-z0-9-]+\\.)+bar\\.com$"],
			"accessControlAllowMethods":["GET","OPTIONS"],
			"accessControlAllowHeaders":["x-header-1","x-header-2"],
			"accessControlExposeHeaders":["x-header-3","x-header-4"],
			"accessControlAllowCredentials":true,
			"accessControlMaxAge":3600,
			"addVaryHeader":true}}`,
	}, {
		name:   "wildcard methods, Gateway API's max age",
		filter: gwapiv1.HTTPCORSFilter{AllowOrigins: origins("https://www.foo.com"), AllowMethods: []gwapiv1.HTTPMethodWithWildcard{"*"}},
		want: `{"headers":{"accessControlAllowOriginList":["https://www.foo.com"],"accessControlAllowMethods":["*"],
			"accessControlMaxAge":5,"addVaryHeader":true}}`,
	}, {
		name:   "any origin without credentials: the same answer for all",
		filter: gwapiv1.HTTPCORSFilter{AllowOrigins: origins("*"), AllowMethods: []gwapiv1.HTTPMethodWithWildcard{"PUT"}, AllowCredentials: new(false)},
		want:   `{"headers":{"accessControlAllowOriginList":["*"],"accessControlAllowMethods":["PUT"],"accessControlMaxAge":5}}`,
	}, {
		name: "any origin with credentials: Traefik echoes the origin",
		filter: gwapiv1.HTTPCORSFilter{AllowOrigins: origins("*"), AllowMethods: []gwapiv1.HTTPMethodWithWildcard{"*"},
			AllowHeaders: names("*"), AllowCredentials: new(true)},
		want: `{"headers":{"accessControlAllowOriginList":["*"],"accessControlAllowMethods":["*"],"accessControlAllowHeaders":["*"],
			"accessControlAllowCredentials":true,"accessControlMaxAge":5,"addVaryHeader":true}}`,
	}, {
		name:   "origins written as browsers send them",
		filter: gwapiv1.HTTPCORSFilter{AllowOrigins: origins("https://WWW.Foo.com:443", "http://a.example:8080", "http://*:8080")},
		want: `{"headers":{"accessControlAllowOriginList":["https://www.foo.com","http://a.example:8080"],
			"accessControlAllowOriginListRegex":["^http://(?:[a-z0-9.-]+|\\[[0-9a-f:.]+\\]):8080$"],
			"accessControlMaxAge":5,"addVaryHeader":true}}`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			requireJSON(t, tc.want, corsMiddleware(t, tc.filter))
		})
	}
}

// Which origins the conformance test's first route allows: an exact
// one, and any number of labels in place of "*".
func TestCORSOriginsAllowed(t *testing.T) {
	m := corsMiddleware(t, gwapiv1.HTTPCORSFilter{AllowOrigins: origins("https://www.foo.com", "https://*.bar.com", "http://*:8080")})
	for origin, want := range map[string]bool{
		"https://www.foo.com":       true,
		"https://www.bar.com":       true,
		"https://xpto.www.bar.com":  true,
		"http://any.where:8080":     true,
		"http://[::1]:8080":         true,
		"https://foobar.com":        false,
		"https://bar.com":           false,
		"http://www.bar.com":        false,
		"https://www.bar.com:8443":  false,
		"https://www.bar.com.evil":  false,
		"https://evil.com/.bar.com": false,
		"http://any.where":          false,
		"":                          false,
	} {
		require.Equal(t, want, allowed(m, origin), origin)
	}
}

func TestCORSErrors(t *testing.T) {
	base := "spec.rules[0].filters[0].cors."
	for _, tc := range []struct {
		name   string
		filter gwapiv1.HTTPCORSFilter
		field  string
	}{
		{"* with other origins", gwapiv1.HTTPCORSFilter{AllowOrigins: origins("*", "https://a.example")}, base + "allowOrigins"},
		{"not an origin", gwapiv1.HTTPCORSFilter{AllowOrigins: origins("ftp://a.example")}, base + "allowOrigins[0]"},
		{"a port out of range", gwapiv1.HTTPCORSFilter{AllowOrigins: origins("https://a.example:99999")}, base + "allowOrigins[0]"},
		{"not a method", gwapiv1.HTTPCORSFilter{AllowMethods: []gwapiv1.HTTPMethodWithWildcard{"FETCH"}}, base + "allowMethods[0]"},
		{"* with other methods", gwapiv1.HTTPCORSFilter{AllowMethods: []gwapiv1.HTTPMethodWithWildcard{"*", "GET"}}, base + "allowMethods"},
		{"not a header name", gwapiv1.HTTPCORSFilter{ExposeHeaders: names("x y")}, base + "exposeHeaders[0]"},
		{"* with other headers", gwapiv1.HTTPCORSFilter{AllowHeaders: names("*", "x-a")}, base + "allowHeaders"},
		{"negative max age", gwapiv1.HTTPCORSFilter{MaxAge: -1}, base + "maxAge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := HTTPRuleFilters(Env{}, rule0, "r", corsRule(tc.filter))
			requireOneError(t, err, tc.field, gwapiv1.RouteReasonUnsupportedValue)
		})
	}
}
