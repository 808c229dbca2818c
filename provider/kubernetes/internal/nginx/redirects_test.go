package nginx

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// location is where Traefik's redirectRegex sends url, as it computes it
// (the regex replaced in the whole URL); "" when it sends the request on
// (no match, or the same URL).
func location(t *testing.T, regex, replacement, url string) string {
	t.Helper()
	re, err := regexp.Compile(regex)
	require.NoError(t, err)
	if !re.MatchString(url) {
		return ""
	}
	if out := re.ReplaceAllString(url, replacement); out != url {
		return out
	}
	return ""
}

// The Locations below are ingress-nginx's, from its e2e tests and its
// templates.
func TestRedirectLocations(t *testing.T) {
	for _, tc := range []struct {
		name, regex, replacement, url, want string
	}{
		{"app-root on /", rootURL, "${1}/foo", "http://approot.bar.com/", "http://approot.bar.com/foo"},
		{"app-root keeps the port, drops the query", rootURL, "${1}/foo", "https://a.example:8443/?x=1", "https://a.example:8443/foo"},
		{"app-root not below /", rootURL, "${1}/foo", "http://a.example/bar", ""},
		{"app-root not on the root's query alone", rootURL, "${1}/foo", "http://a.example/bar?/", ""},
		{"www without its path", hostURL, "${1}://bar.com${2}${3}", "http://www.bar.com/", "http://bar.com"},
		{"www with port, path, query", hostURL, "${1}://bar.com${2}${3}", "https://www.bar.com:8443/foo?a=b", "https://bar.com:8443/foo?a=b"},
		{"www drops one trailing slash", hostURL, "${1}://bar.com${2}${3}", "http://www.bar.com/foo/", "http://bar.com/foo"},
		{"redirect everything", anyURL, "http://redirect.example.com", "http://redirect/something?q=1", "http://redirect.example.com"},
		{"redirect to a path of the host", anyURL, "${1}://${2}/moved", "https://shop.example:8443/a/b", "https://shop.example/moved"},
		{"redirect from an IPv6 host", anyURL, "${1}://${2}/moved", "http://[::1]:8080/a", "http://[::1]/moved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, location(t, tc.regex, tc.replacement, tc.url))
		})
	}
}

func TestRedirectCodes(t *testing.T) {
	for _, tc := range []struct {
		value     string
		codes     []int
		want      int
		permanent bool
	}{
		{"301", permanentCodes, 301, true},
		{" 308 ", permanentCodes, 308, true},
		{"302", permanentCodes, 302, false},
		{"303", temporalCodes, 303, false},
		{"307", temporalCodes, 307, false},
	} {
		got, err := parseRedirectCode(tc.value, tc.codes)
		require.NoError(t, err, tc.value)
		assert.Equal(t, tc.want, got, tc.value)
		assert.Equal(t, tc.permanent, permanentCode(got), tc.value)
	}
	for _, bad := range []struct {
		value string
		codes []int
	}{{"304", permanentCodes}, {"300", permanentCodes}, {"309", permanentCodes}, {"308", temporalCodes}, {"3o1", permanentCodes}, {"", temporalCodes}} {
		_, err := parseRedirectCode(bad.value, bad.codes)
		assert.ErrorContains(t, err, "must be one of the redirect codes", bad.value)
	}
}

func TestRedirectPrecedenceAndDefaults(t *testing.T) {
	cfg, problems := ParseAnnotations(map[string]string{
		AnnotationPrefix + "permanent-redirect":      "https://p.example",
		AnnotationPrefix + "permanent-redirect-code": "999",
		AnnotationPrefix + "ssl-redirect":            "maybe",
	})
	require.Len(t, problems, 2)
	to, permanent := cfg.Paths.Redirect.target()
	assert.Equal(t, "https://p.example", to)
	assert.True(t, permanent, "a bad code leaves the default 301")
	assert.True(t, cfg.Paths.SSLRedirect, "a bad ssl-redirect leaves it on")

	cfg, problems = ParseAnnotations(map[string]string{
		AnnotationPrefix + "permanent-redirect": "https://p.example",
		AnnotationPrefix + "temporal-redirect":  "https://t.example",
	})
	require.Empty(t, problems)
	to, permanent = cfg.Paths.Redirect.target()
	assert.Equal(t, "https://t.example", to, "temporal-redirect wins, as in ingress-nginx")
	assert.False(t, permanent)
}

func TestRedirectURLs(t *testing.T) {
	for _, ok := range []string{"https://www.google.com", "http://a.example:8080/x?y=1&z=2", "/moved", ""} {
		_, err := parseRedirectURL(ok)
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{"ftp://x.example", "www.example.com", "https://a.example/$uri", "https://a.example/\nx", "http:///nohost"} {
		_, err := parseRedirectURL(bad)
		assert.Error(t, err, bad)
	}
}

func TestWWWCounterpart(t *testing.T) {
	assert.Equal(t, "www.example.com", wwwCounterpart("example.com"))
	assert.Equal(t, "example.com", wwwCounterpart("www.example.com"))
	assert.Empty(t, wwwCounterpart("*.example.com"))
	assert.Empty(t, wwwCounterpart(""))
}
