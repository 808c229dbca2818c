package filter

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// rule0 is the field path of the first rule of a route.
var rule0 = field.NewPath("spec", "rules").Index(0)

// prefixMatch is a rule's matches: one PathPrefix match.
func prefixMatch(prefix string) []gwapiv1.HTTPRouteMatch {
	return []gwapiv1.HTTPRouteMatch{{Path: &gwapiv1.HTTPPathMatch{Type: new(gwapiv1.PathMatchPathPrefix), Value: new(prefix)}}}
}

func header(name, value string) gwapiv1.HTTPHeader {
	return gwapiv1.HTTPHeader{Name: gwapiv1.HTTPHeaderName(name), Value: value}
}

// requireJSON asserts that v encodes as want, whatever the order of keys.
func requireJSON(t *testing.T, want string, v any) {
	t.Helper()
	got, err := json.Marshal(v)
	require.NoError(t, err)
	require.JSONEq(t, want, string(got))
}

// requireOneError asserts that err holds one Error, for field, with
// reason.
func requireOneError(t *testing.T, err error, field string, reason gwapiv1.RouteConditionReason) {
	t.Helper()
	_ = oneError(t, err, field, reason)
}

// oneError is requireOneError's problem, for a test that reads it further.
func oneError(t *testing.T, err error, field string, reason gwapiv1.RouteConditionReason) *Error {
	t.Helper()
	var errs Errors
	require.True(t, errors.As(err, &errs), "want Errors, got %v", err)
	require.Len(t, errs, 1, "%v", err)
	require.Equal(t, field, errs[0].Field, "%v", err)
	require.Equal(t, reason, errs[0].Reason, "%v", err)
	return errs[0]
}

// The functions below do what Traefik v3.7's middlewares do with the
// middlewares of the Portable target, where that is a regular
// expression or a map of headers: enough to check what a request would
// see without running Traefik.

// redirectOf is Traefik's redirectRegex on the URL Traefik builds of a
// request (scheme://host[:port]/path?query): the Location, when the
// expression matches and the replacement differs from the URL, as
// Traefik writes it (parsed, then printed).
func redirectOf(t *testing.T, m dynamic.Middleware, rawURL string) (string, bool) {
	t.Helper()
	rr, ok := m["redirectRegex"].(map[string]any)
	require.True(t, ok, "not a redirectRegex: %v", m)
	re := regexp.MustCompile(rr["regex"].(string))
	if !re.MatchString(rawURL) {
		return "", false
	}
	replaced := re.ReplaceAllString(rawURL, rr["replacement"].(string))
	if replaced == rawURL {
		return "", false
	}
	loc, err := url.Parse(replaced)
	require.NoError(t, err)
	return loc.String(), true
}

// rewriteOf is Traefik's replacePath or replacePathRegex on an escaped
// path: the path the backend gets.
func rewriteOf(t *testing.T, m dynamic.Middleware, path string) string {
	t.Helper()
	if rp, ok := m["replacePath"].(map[string]any); ok {
		return rp["path"].(string)
	}
	rr, ok := m["replacePathRegex"].(map[string]any)
	require.True(t, ok, "not a path middleware: %v", m)
	re := regexp.MustCompile(rr["regex"].(string))
	if !re.MatchString(path) {
		return path
	}
	return re.ReplaceAllString(path, rr["replacement"].(string))
}

// applyHeaders is Traefik's headers middleware's custom headers, key
// customRequestHeaders or customResponseHeaders, on the headers h of a
// request or a response: an empty value removes, any other sets, and
// "Host" in a request sets its host, which applyHeaders returns ("" when
// unchanged).
func applyHeaders(t *testing.T, m dynamic.Middleware, key string, h http.Header) (host string) {
	t.Helper()
	hm, ok := m["headers"].(map[string]any)
	require.True(t, ok, "not a headers middleware: %v", m)
	values, _ := hm[key].(map[string]string)
	for name, value := range values {
		switch {
		case value == "":
			h.Del(name)
		case key == "customRequestHeaders" && http.CanonicalHeaderKey(name) == "Host":
			host = value
		default:
			h.Set(name, value)
		}
	}
	return host
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
