package rule_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/rule"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		rule  string
		host  string
		path  string
		match bool
	}{
		// Host: case-insensitive, without the port, trailing dots ignored.
		{`Host("a.example")`, "a.example", "/", true},
		{`Host("a.example")`, "A.Example", "/", true},
		{`Host("A.EXAMPLE")`, "a.example", "/", true},
		{`Host("a.example")`, "a.example:8080", "/", true},
		{`Host("a.example")`, " a.example ", "/", true},
		{`Host("a.example")`, "a.example.", "/", true},
		{`Host("a.example.")`, "a.example", "/", true},
		{`Host("a.example")`, "b.a.example", "/", false},
		{`Host("a.example")`, "a.example.org", "/", false},
		{`Host("a.example")`, "", "/", false},
		{`Host("")`, "", "/", false},
		{`Host("::1")`, "[::1]:443", "/", true},
		{`Host("[::1]")`, "[::1]", "/", true}, // no port: kept as written, as Traefik does
		{`Host("a.example:8080")`, "a.example:8080", "/", false},
		// HostRegexp: Go regexp on the lower-cased host without port; not anchored.
		{`HostRegexp("^[a-zA-Z0-9-]+\\.example\\.com$")`, "shop.example.com", "/", true},
		{`HostRegexp("^[a-zA-Z0-9-]+\\.example\\.com$")`, "SHOP.Example.COM:443", "/", true},
		{`HostRegexp("^[a-zA-Z0-9-]+\\.example\\.com$")`, "example.com", "/", false},
		{`HostRegexp("^[a-zA-Z0-9-]+\\.example\\.com$")`, "a.b.example.com", "/", false},
		{`HostRegexp("^[a-zA-Z0-9-]+\\.example\\.com$")`, "shopXexample.com", "/", false},
		{`HostRegexp("^[A-Z]+$")`, "ABC", "/", false}, // the host is lower-cased first
		{`HostRegexp("example")`, "www.example.org", "/", true},
		// Path: exact.
		{`Path("/p")`, "x", "/p", true},
		{`Path("/p")`, "x", "/p/", false},
		{`Path("/p")`, "x", "/P", false},
		{`Path("/p")`, "x", "/pp", false},
		// PathPrefix: a string prefix, as in Traefik.
		{`PathPrefix("/p")`, "x", "/p", true},
		{`PathPrefix("/p")`, "x", "/p/q", true},
		{`PathPrefix("/p")`, "x", "/pq", true},
		{`PathPrefix("/p")`, "x", "/", false},
		{`PathPrefix("/")`, "x", "/anything", true},
		// Strict prefix: element by element.
		{`(Path("/p") || PathPrefix("/p/"))`, "x", "/p", true},
		{`(Path("/p") || PathPrefix("/p/"))`, "x", "/p/", true},
		{`(Path("/p") || PathPrefix("/p/"))`, "x", "/p/q", true},
		{`(Path("/p") || PathPrefix("/p/"))`, "x", "/pq", false},
		// PathRegexp: Go regexp, not anchored.
		{`PathRegexp("^/v[0-9]+/")`, "x", "/v2/users", true},
		{`PathRegexp("^/v[0-9]+/")`, "x", "/api/v2/", false},
		{`PathRegexp("[0-9]")`, "x", "/api/v2/", true},
		// Operators.
		{`Host("a") && Path("/p")`, "a", "/p", true},
		{`Host("a") && Path("/p")`, "b", "/p", false},
		{`Host("a") && Path("/p")`, "a", "/q", false},
		{`Host("a") || Path("/p")`, "b", "/p", true},
		{`Host("a") || Path("/p")`, "b", "/q", false},
		{`!Host("a")`, "a", "/", false},
		{`!Host("a")`, "b", "/", true},
		{`Host("a") || Host("b") && Path("/p")`, "a", "/q", true},
		{`(Host("a") || Host("b")) && Path("/p")`, "a", "/q", false},
		// Values holding rule syntax stay values.
		{`Host("safe.example") && Path("/a\") || Host(\"evil.example")`, "evil.example", "/", false},
		{`Host("safe.example") && Path("/a\") || Host(\"evil.example")`, "safe.example", `/a") || Host("evil.example`, true},
	} {
		t.Run(fmt.Sprintf("%s %s %s", tc.rule, tc.host, tc.path), func(t *testing.T) {
			e, err := rule.Parse(tc.rule)
			require.NoError(t, err)
			assert.Equal(t, tc.match, e.Match(tc.host, tc.path))
		})
	}
}

func TestMatcherLiteral(t *testing.T) {
	// A Matcher written as a literal (not from Parse or NewMatcher) works,
	// compiling its regexp at each call; a bad one matches nothing.
	assert.True(t, (&rule.Matcher{Name: rule.Host, Value: "A"}).Match("a", "/"))
	assert.True(t, (&rule.Matcher{Name: rule.PathRegexp, Value: "^/x"}).Match("a", "/x"))
	assert.False(t, (&rule.Matcher{Name: rule.PathRegexp, Value: "("}).Match("a", "("))
	assert.False(t, (&rule.Matcher{Name: "ClientIP", Value: "10.0.0.0/8"}).Match("a", "/"))
	assert.True(t, (&rule.Matcher{Name: rule.Method, Value: "get"}).MatchRequest(rule.Request{Method: "GET"}))
	assert.True(t, (&rule.Matcher{Name: rule.QueryRegexp, Key: "q", Value: "^a"}).MatchRequest(rule.Request{RawQuery: "q=ab"}))

	_, err := rule.NewMatcher("ClientIP", "10.0.0.0/8")
	assert.ErrorContains(t, err, `unknown matcher "ClientIP"`)
	_, err = rule.NewMatcher("Query")
	assert.ErrorContains(t, err, "Query takes one or two string arguments, not 0")
	_, err = rule.NewMatcher("QueryRegexp", "q", "(")
	assert.ErrorContains(t, err, "QueryRegexp: invalid regular expression")
	_, err = rule.NewMatcher("Header", "x")
	assert.ErrorContains(t, err, "Header takes exactly two string arguments, not 1")
	_, err = rule.NewMatcher("Path", "/a", "/b")
	assert.ErrorContains(t, err, "Path takes exactly one string argument, not 2")
	_, err = rule.NewMatcher("PathRegexp", "(")
	assert.ErrorContains(t, err, "PathRegexp: invalid regular expression")
	mt, err := rule.NewMatcher("pathprefix", "/a")
	require.NoError(t, err)
	assert.Equal(t, rule.PathPrefix, mt.Name)
}
