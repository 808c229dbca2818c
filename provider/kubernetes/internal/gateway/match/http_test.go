package match_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
	"github.com/sliceway/sliceway/rule"
)

func TestHTTPRuleText(t *testing.T) {
	for _, tc := range []struct {
		name      string
		hostnames []string
		match     gatewayv1.HTTPRouteMatch
		rules     []string
	}{
		{name: "all defaults: any path", rules: []string{`PathPrefix("/")`}},
		{
			name:  "a path without a type is a PathPrefix",
			match: gatewayv1.HTTPRouteMatch{Path: &gatewayv1.HTTPPathMatch{Value: new("/foo")}},
			rules: []string{`Path("/foo") || PathPrefix("/foo/")`},
		},
		{
			name:  "a path without a value is /",
			match: gatewayv1.HTTPRouteMatch{Path: &gatewayv1.HTTPPathMatch{Type: new(gatewayv1.PathMatchExact)}},
			rules: []string{`Path("/")`},
		},
		{name: "a prefix's trailing slash is ignored", match: gatewayv1.HTTPRouteMatch{Path: prefix("/foo/")}, rules: []string{`Path("/foo") || PathPrefix("/foo/")`}},
		{name: "the / prefix", match: gatewayv1.HTTPRouteMatch{Path: prefix("/")}, rules: []string{`PathPrefix("/")`}},
		{
			name:  "unreserved characters decoded, reserved ones kept",
			match: gatewayv1.HTTPRouteMatch{Path: exact("/a%20b%2Fc%3ad%3A%7e")},
			rules: []string{`Path("/a b%2Fc:d%3A~")`},
		},
		{name: "a regular expression matches whole", match: gatewayv1.HTTPRouteMatch{Path: regex(`/v[0-9]+`)}, rules: []string{`PathRegexp("^(?:/v[0-9]+)$")`}},
		{name: "an open \\Q is closed", match: gatewayv1.HTTPRouteMatch{Path: regex(`/a\Q.b`)}, rules: []string{`PathRegexp("^(?:/a\\Q.b\\E)$")`}},
		{
			name:      "one hostname",
			hostnames: []string{"a.example.com"},
			match:     gatewayv1.HTTPRouteMatch{Path: prefix("/foo")},
			rules:     []string{`Host("a.example.com") && (Path("/foo") || PathPrefix("/foo/"))`},
		},
		{
			name:      "exact hostnames share a router; duplicates and case go",
			hostnames: []string{"a.example.com", "B.example.com", "A.Example.com"},
			rules:     []string{`(Host("a.example.com") || Host("b.example.com")) && PathPrefix("/")`},
		},
		{
			name:      "a wildcard: one or more labels",
			hostnames: []string{"*.example.com"},
			rules:     []string{`HostRegexp("^(?:[^.]+\\.)+example\\.com\\.?$") && PathPrefix("/")`},
		},
		{
			name:      "a router per rank of hostname: exact, then longer wildcards",
			hostnames: []string{"*.a.io", "x.io", "*.bb.io", "*.cc.io"},
			rules: []string{
				`Host("x.io") && PathPrefix("/")`,
				`(HostRegexp("^(?:[^.]+\\.)+bb\\.io\\.?$") || HostRegexp("^(?:[^.]+\\.)+cc\\.io\\.?$")) && PathPrefix("/")`,
				`HostRegexp("^(?:[^.]+\\.)+a\\.io\\.?$") && PathPrefix("/")`,
			},
		},
		{
			name: "every kind of match, in order",
			match: gatewayv1.HTTPRouteMatch{
				Path:        exact("/x"),
				Method:      method(http.MethodGet),
				Headers:     append(headers("Version", "one"), headerRegexp("color", "blue|green")),
				QueryParams: append(query("animal", "whale"), queryRegexp("n", "[0-9]+")),
			},
			rules: []string{`Path("/x") && Method("GET") && Header("Version", "one") && HeaderRegexp("color", "^(?:blue|green)$") && Query("animal", "whale") && QueryRegexp("n", "^(?:[0-9]+)$")`},
		},
		{
			name:  "values that hold rule syntax stay values",
			match: gatewayv1.HTTPRouteMatch{Headers: headers("x", `a") || Host("evil`), QueryParams: query("q", "\\\"\n")},
			rules: []string{`PathPrefix("/") && Header("x", "a\") || Host(\"evil") && Query("q", "\\\"\n")`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := match.HTTP(tc.hostnames, tc.match)
			require.NoError(t, err)
			var got []string
			for _, r := range rules {
				parse(t, r.Rule)
				got = append(got, r.Rule)
			}
			assert.Equal(t, tc.rules, got)
		})
	}
}

func TestHTTPPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		match gatewayv1.HTTPRouteMatch
		want  match.Precedence
	}{
		{"defaults", gatewayv1.HTTPRouteMatch{}, match.Precedence{Path: match.PathPrefix, PathLength: 1}},
		{"prefix without its trailing slash", gatewayv1.HTTPRouteMatch{Path: prefix("/abc/")}, match.Precedence{Path: match.PathPrefix, PathLength: 4}},
		{"prefix as routed", gatewayv1.HTTPRouteMatch{Path: prefix("/a%20")}, match.Precedence{Path: match.PathPrefix, PathLength: 3}},
		{"exact", gatewayv1.HTTPRouteMatch{Path: exact("/abc/")}, match.Precedence{Path: match.PathExact, PathLength: 5}},
		{"regexp as written", gatewayv1.HTTPRouteMatch{Path: regex("/a.*")}, match.Precedence{Path: match.PathRegularExpression, PathLength: 4}},
		{
			"method, headers and parameters, repeated names once",
			gatewayv1.HTTPRouteMatch{
				Method:      method(http.MethodPut),
				Headers:     headers("a", "1", "b", "2", "A", "3"),
				QueryParams: query("a", "1", "A", "2", "a", "3"),
			},
			match.Precedence{Path: match.PathPrefix, PathLength: 1, Method: true, Headers: 2, QueryParams: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := match.HTTP(nil, tc.match)
			require.NoError(t, err)
			require.Len(t, rules, 1)
			assert.Equal(t, tc.want, rules[0].Precedence)
			assert.Nil(t, rules[0].Hostnames)
		})
	}
}

// matches says whether one of a match's routers takes req.
func matches(t *testing.T, hostnames []string, m gatewayv1.HTTPRouteMatch, req *http.Request) bool {
	t.Helper()
	rules, err := match.HTTP(hostnames, m)
	require.NoError(t, err)
	for _, r := range rules {
		if parse(t, r.Rule).MatchRequest(rule.NewRequest(req)) {
			return true
		}
	}
	return false
}

func TestHTTPMatchSemantics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		match gatewayv1.HTTPRouteMatch
		yes   []*http.Request
		no    []*http.Request
	}{
		{
			name:  "prefix by path element",
			match: gatewayv1.HTTPRouteMatch{Path: prefix("/foo")},
			yes:   []*http.Request{get("http://h/foo"), get("http://h/foo/"), get("http://h/foo/bar"), get("http://h/foo/bar/")},
			no:    []*http.Request{get("http://h/foobar"), get("http://h/fo"), get("http://h/"), get("http://h/FOO")},
		},
		{
			name:  "prefix with a trailing slash",
			match: gatewayv1.HTTPRouteMatch{Path: prefix("/foo/")},
			yes:   []*http.Request{get("http://h/foo"), get("http://h/foo/"), get("http://h/foo/bar")},
			no:    []*http.Request{get("http://h/foobar")},
		},
		{
			name:  "the / prefix takes every path",
			match: gatewayv1.HTTPRouteMatch{Path: prefix("/")},
			yes:   []*http.Request{get("http://h/"), get("http://h/anything/at/all")},
		},
		{
			name:  "exact",
			match: gatewayv1.HTTPRouteMatch{Path: exact("/foo")},
			yes:   []*http.Request{get("http://h/foo"), get("http://h/foo?x=1")},
			no:    []*http.Request{get("http://h/foo/"), get("http://h/FOO"), get("http://h/foox")},
		},
		{
			name:  "an encoded value matches the path as sent",
			match: gatewayv1.HTTPRouteMatch{Path: exact("/a%20b")},
			yes:   []*http.Request{get("http://h/a%20b")},
			no:    []*http.Request{get("http://h/a%2520b")},
		},
		{
			name:  "a regular expression on the whole path, case-sensitive",
			match: gatewayv1.HTTPRouteMatch{Path: regex(`/v[0-9]+`)},
			yes:   []*http.Request{get("http://h/v1"), get("http://h/v42")},
			no:    []*http.Request{get("http://h/v1/x"), get("http://h/api/v1"), get("http://h/V1")},
		},
		{
			name:  "a regular expression's flags stay its own",
			match: gatewayv1.HTTPRouteMatch{Path: regex(`(?i)/admin|/root`)},
			yes:   []*http.Request{get("http://h/ADMIN"), get("http://h/root")},
			no:    []*http.Request{get("http://h/x/admin"), get("http://h/root/x")},
		},
		{
			name:  "\\Q quotes to the end of the expression",
			match: gatewayv1.HTTPRouteMatch{Path: regex(`/a\Q.b`)},
			yes:   []*http.Request{get("http://h/a.b")},
			no:    []*http.Request{get("http://h/axb"), get("http://h/a.b)$")},
		},
		{
			name:  "a header: name in any case, value exact, any of its values",
			match: gatewayv1.HTTPRouteMatch{Headers: headers("X-Version", "one")},
			yes:   []*http.Request{get("http://h/", "x-version", "one"), get("http://h/", "X-VERSION", "one"), get("http://h/", "X-Version", "two", "X-Version", "one")},
			no:    []*http.Request{get("http://h/", "X-Version", "One"), get("http://h/", "X-Version", "one,two"), get("http://h/")},
		},
		{
			name:  "a header's regular expression matches a value whole",
			match: gatewayv1.HTTPRouteMatch{Headers: []gatewayv1.HTTPHeaderMatch{headerRegexp("color", "blue|green")}},
			yes:   []*http.Request{get("http://h/", "Color", "green")},
			no:    []*http.Request{get("http://h/", "Color", "bluegreen"), get("http://h/", "Color", "light blue")},
		},
		{
			name:  "of repeated header names only the first counts",
			match: gatewayv1.HTTPRouteMatch{Headers: headers("version", "one", "Version", "two")},
			yes:   []*http.Request{get("http://h/", "Version", "one")},
			no:    []*http.Request{get("http://h/", "Version", "two")},
		},
		{
			name:  "query parameters: name exact, value exact, decoded",
			match: gatewayv1.HTTPRouteMatch{QueryParams: query("animal", "blue whale")},
			yes:   []*http.Request{get("http://h/?animal=blue+whale"), get("http://h/?animal=blue%20whale&x=1")},
			no:    []*http.Request{get("http://h/?Animal=blue+whale"), get("http://h/?animal=Blue+whale"), get("http://h/")},
		},
		{
			// The specification recommends the first value; Traefik takes any.
			name:  "a repeated parameter matches on any of its values",
			match: gatewayv1.HTTPRouteMatch{QueryParams: query("animal", "whale")},
			yes:   []*http.Request{get("http://h/?animal=dog&animal=whale"), get("http://h/?animal=whale&animal=dog")},
		},
		{
			name:  "a parameter's regular expression matches a value whole",
			match: gatewayv1.HTTPRouteMatch{QueryParams: []gatewayv1.HTTPQueryParamMatch{queryRegexp("n", "[0-9]+")}},
			yes:   []*http.Request{get("http://h/?n=42")},
			no:    []*http.Request{get("http://h/?n=42a"), get("http://h/?n="), get("http://h/?m=1")},
		},
		{
			name:  "a method",
			match: gatewayv1.HTTPRouteMatch{Method: method(http.MethodDelete)},
			yes:   []*http.Request{request(http.MethodDelete, "http://h/x")},
			no:    []*http.Request{request(http.MethodGet, "http://h/x"), request("delete", "http://h/x")},
		},
		{
			name: "everything at once",
			match: gatewayv1.HTTPRouteMatch{
				Path: prefix("/api"), Method: method(http.MethodPost),
				Headers: headers("v", "1"), QueryParams: query("q", "1"),
			},
			yes: []*http.Request{request(http.MethodPost, "http://h/api/x?q=1", "v", "1")},
			no: []*http.Request{
				request(http.MethodGet, "http://h/api/x?q=1", "v", "1"),
				request(http.MethodPost, "http://h/apix?q=1", "v", "1"),
				request(http.MethodPost, "http://h/api/x?q=2", "v", "1"),
				request(http.MethodPost, "http://h/api/x?q=1"),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, req := range tc.yes {
				assert.True(t, matches(t, nil, tc.match, req), describe(req))
			}
			for _, req := range tc.no {
				assert.False(t, matches(t, nil, tc.match, req), describe(req))
			}
		})
	}
}
