package nginx

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func canaryAnns(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[AnnotationPrefix+kv[i]] = kv[i+1]
	}
	return m
}

// The canary parsers read what the annotations they depend on set: that
// holds only because ParseAnnotations reads keys in sorted order.
func TestCanaryAnnotationsReadInOrder(t *testing.T) {
	cfg, problems := ParseAnnotations(canaryAnns(
		"canary-weight", "30", "canary-by-header-value", "v2", "canary-by-header", "X_Beta", "canary", "true",
		"canary-by-header-pattern", "^v", "canary-by-cookie", "beta", "canary-weight-total", "300"))
	require.Empty(t, problems)
	assert.Equal(t, CanaryConfig{Enabled: true, Weight: 30, WeightTotal: 300, Header: "X-Beta", HeaderValue: "v2", HeaderPattern: "^v", Cookie: "beta"}, cfg.Canary)
	assert.Equal(t, headerValue, cfg.Canary.headerMode(), "the value wins over the pattern")
	main, canary := cfg.Canary.shares()
	assert.Equal(t, []int{270, 30}, []int{main, canary})
}

func TestCanaryAnnotationsWithoutCanary(t *testing.T) {
	for _, value := range []string{"false", ""} {
		anns := canaryAnns("canary-weight", "30", "canary-by-cookie", "beta")
		if value != "" {
			anns[AnnotationPrefix+"canary"] = value
		}
		cfg, problems := ParseAnnotations(anns)
		require.Len(t, problems, 2, "canary=%q", value)
		for _, p := range problems {
			assert.Contains(t, p.Err.Error(), "the Ingress is not a canary")
			assert.False(t, p.Closed)
		}
		assert.False(t, cfg.Canary.decides())
	}
}

func TestCanaryShares(t *testing.T) {
	for _, c := range []struct {
		weight, total, main, canary int
	}{
		{0, 0, 100, 0},
		{20, 0, 80, 20},
		{100, 0, 0, 100},
		{150, 0, 0, 100},    // over the total: every request
		{5, 10, 95, 5},      // a total under 100 counts as 100
		{10, 1000, 990, 10}, // a larger one is kept
	} {
		cfg := CanaryConfig{Enabled: true, Weight: c.weight, WeightTotal: c.total}
		main, canary := cfg.shares()
		assert.Equal(t, []int{c.main, c.canary}, []int{main, canary}, "weight %d of %d", c.weight, c.total)
	}
}

func TestCanaryBadValues(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"canary-weight", "-1", "from 0 to 1000000"},
		{"canary-weight", "ten", "from 0 to 1000000"},
		{"canary-weight-total", "0", "from 1 to 1000000"},
		{"canary-by-header", "X Canary", "header name"},
		{"canary-by-header", "X:Canary", "header name"},
		{"canary-by-cookie", "a;b", "cookie name"},
		{"canary-by-header-pattern", "(?=x)", "RE2"},
		{"canary-by-header-pattern", "a b", "regular expression of"},
	} {
		_, problems := ParseAnnotations(canaryAnns("canary", "true", "canary-by-header", "X-Canary", c.name, c.value))
		require.Len(t, problems, 1, "%s=%q", c.name, c.value)
		assert.Equal(t, AnnotationPrefix+c.name, problems[0].Annotation)
		assert.Contains(t, problems[0].Err.Error(), c.want, "%s=%q", c.name, c.value)
	}
	cfg, _ := ParseAnnotations(canaryAnns("canary", "true", "canary-by-header", "X-Canary", "canary-by-header-pattern", "(?=x)"))
	assert.Equal(t, headerBroken, cfg.Canary.headerMode(), "a pattern RE2 cannot compile sends the header's requests to the main backend")
}

// cookieRegexp is the regular expression of a cookie rule, as Traefik
// reads it out of the rule.
func cookieRegexp(t *testing.T, name, value string) *regexp.Regexp {
	t.Helper()
	rule := cookieMatch(name, value)
	prefix := `HeaderRegexp("Cookie", `
	require.True(t, strings.HasPrefix(rule, prefix), rule)
	re, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(rule, prefix), ")"))
	require.NoError(t, err)
	return regexp.MustCompile(re)
}

func TestCookieMatch(t *testing.T) {
	re := cookieRegexp(t, "site.beta", "always")
	for header, want := range map[string]bool{
		"site.beta=always":              true,
		"a=1; site.beta=always":         true,
		"a=1;site.beta=always; b=2":     true,
		"SITE.Beta=always":              true, // nginx matches cookie names case-insensitively
		"site.beta=Always":              false,
		"site.beta=always2":             false,
		"site.beta=never":               false,
		"xsite.beta=always":             false,
		"siteXbeta=always":              false, // the dot is quoted
		"a=site.beta=always":            false,
		"other=1; my-site.beta=always":  false,
		"site.beta=; other=always":      false,
		"site.beta=always;":             true,
		"":                              false,
		"a=1; site.beta=always;other=2": true,
	} {
		assert.Equal(t, want, re.MatchString(header), "Cookie: %q", header)
	}
}

func TestCanaryRoutesPrecedence(t *testing.T) {
	main, canary := routedService{name: "main"}, routedService{name: "canary"}
	route := func(cfg CanaryConfig, path string) map[string]canaryRoute {
		s := &canarySplit{cfg: &cfg, main: main, canary: canary, path: path}
		out := map[string]canaryRoute{}
		for _, r := range s.routes() {
			out[r.suffix] = r
		}
		return out
	}
	// Header and cookie with a weighted path: all four routers, the
	// cookie's saying that the header did not decide.
	got := route(CanaryConfig{Enabled: true, Header: "X-Canary", Cookie: "c", Weight: 10}, "split")
	require.Len(t, got, 4)
	assert.Equal(t, `Header("X-Canary", "always")`, got["canary-header"].match)
	assert.True(t, got["canary-header"].toCanary)
	assert.False(t, got["canary-header-never"].toCanary)
	assert.True(t, strings.HasSuffix(got["canary-cookie"].match, ` && !Header("X-Canary", "always") && !Header("X-Canary", "never")`), got["canary-cookie"].match)
	assert.False(t, got["canary-cookie-never"].toCanary)
	// Without a weight, the path sends to the main backend: the "never"
	// routers would say the same and are left out.
	got = route(CanaryConfig{Enabled: true, Header: "X-Canary", Cookie: "c"}, "main")
	assert.ElementsMatch(t, []string{"canary-header", "canary-cookie"}, keys(got))
	// With the whole weight, the "always" routers are left out.
	got = route(CanaryConfig{Enabled: true, Header: "X-Canary", Weight: 100}, "canary")
	assert.ElementsMatch(t, []string{"canary-header-never"}, keys(got))
	// A header value: only that value decides.
	got = route(CanaryConfig{Enabled: true, Header: "X-Canary", HeaderValue: `a"b`, Cookie: "c"}, "main")
	assert.Equal(t, `Header("X-Canary", "a\"b")`, got["canary-header"].match, "the value is quoted")
	assert.True(t, strings.HasSuffix(got["canary-cookie"].match, ` && !Header("X-Canary", "a\"b")`))
}

func keys(m map[string]canaryRoute) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
