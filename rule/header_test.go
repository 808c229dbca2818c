package rule_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/rule"
)

func TestParseHeaderMatchers(t *testing.T) {
	e, err := rule.Parse("Host(`a`) && header(\"x-canary\", `always`) && !HeaderRegexp(\"Cookie\", \"(?:^|;)\\\\s*canary=never\")")
	require.NoError(t, err)
	ms := rule.Matchers(e)
	require.Len(t, ms, 3)
	assert.Equal(t, rule.Header, ms[1].Name)
	assert.Equal(t, "x-canary", ms[1].Key, "the name as written: matching canonicalises it")
	assert.Equal(t, "always", ms[1].Value)
	assert.Equal(t, rule.HeaderRegexp, ms[2].Name)
	assert.Equal(t, "Cookie", ms[2].Key)
	assert.Equal(t, `Host("a") && Header("x-canary", "always") && !HeaderRegexp("Cookie", "(?:^|;)\\s*canary=never")`, e.String())
	again := rule.MustParse(e.String())
	assert.True(t, rule.Equal(e, again))
	assert.False(t, rule.Equal(rule.MustParse(`Header("a", "v")`), rule.MustParse(`Header("b", "v")`)), "the header's name counts")

	for _, tc := range []struct {
		rule   string
		offset int
		msg    string
	}{
		{`Header()`, 7, "Header takes exactly two string arguments, found none"},
		{`Header("a")`, 10, "Header takes exactly two string arguments, found one"},
		{`Header("a", "b", "c")`, 15, "Header takes exactly two string arguments, found more"},
		{`Header("a" "b")`, 11, `expected , after argument 1 of Header, found string "\"b\""`},
		{`Header("a", )`, 12, "Header takes exactly two string arguments, found one"},
		{`Header("a", Path("/"))`, 12, `expected a string argument to Header, found name "Path"`},
		{`Header("a", "b"`, 15, "expected ) after the arguments of Header, found the end of the rule"},
		{`HeaderRegexp("a", "(")`, 18, `HeaderRegexp: invalid regular expression "("`},
	} {
		_, err := rule.Parse(tc.rule)
		var se *rule.SyntaxError
		if assert.ErrorAs(t, err, &se, tc.rule) {
			assert.Equal(t, tc.offset, se.Offset, "%s: %v", tc.rule, err)
			assert.Contains(t, err.Error(), tc.msg, tc.rule)
		}
	}
}

func TestMatchHeaders(t *testing.T) {
	canary := rule.MustParse(`Host("shop.example") && PathPrefix("/") && Header("X-Canary", "always")`)
	cookie := rule.MustParse(`HeaderRegexp("Cookie", "(?:^|;)\\s*(?i:canary)=always(?:;|$)") && !Header("x-canary", "never")`)
	for _, tc := range []struct {
		name   string
		expr   rule.Expr
		header http.Header
		match  bool
	}{
		{"the value", canary, http.Header{"X-Canary": {"always"}}, true},
		{"one of the values", canary, http.Header{"X-Canary": {"never", "always"}}, true},
		{"the name in any case, as net/http canonicalises it", rule.MustParse(`Header("x-CANARY", "always")`), http.Header{"X-Canary": {"always"}}, true},
		{"the value exactly", canary, http.Header{"X-Canary": {"Always"}}, false},
		{"not a part of it", canary, http.Header{"X-Canary": {"always,never"}}, false},
		{"no such header", canary, http.Header{"X-Other": {"always"}}, false},
		{"no headers", canary, nil, false},
		{"a regexp on a value", cookie, http.Header{"Cookie": {"a=1; Canary=always"}}, true},
		{"a regexp on another of its values", cookie, http.Header{"Cookie": {"a=1", "canary=always"}}, true},
		{"a regexp that does not match", cookie, http.Header{"Cookie": {"canary=alwaysnot"}}, false},
		{"negated", cookie, http.Header{"Cookie": {"canary=always"}, "X-Canary": {"never"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.match, tc.expr.MatchRequest(rule.Request{Host: "shop.example", Path: "/cart", Header: tc.header}))
		})
	}
	// Match sees no headers: a Header matcher fails there, and its
	// negation holds.
	assert.False(t, canary.Match("shop.example", "/"))
	assert.True(t, rule.MustParse(`!Header("X-Canary", "always")`).Match("shop.example", "/"))
	// Host and path count in MatchRequest as in Match.
	assert.False(t, canary.MatchRequest(rule.Request{Host: "other.example", Path: "/", Header: http.Header{"X-Canary": {"always"}}}))
}
