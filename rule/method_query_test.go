package rule_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/rule"
)

func TestParseMethodAndQuery(t *testing.T) {
	for _, tc := range []struct {
		rule, string string
		name         string
		key, value   string
	}{
		{rule: `Method("GET")`, string: `Method("GET")`, name: rule.Method, value: "GET"},
		{rule: `method("get")`, string: `Method("get")`, name: rule.Method, value: "get"},
		{rule: `Query("animal", "whale")`, string: `Query("animal", "whale")`, name: rule.Query, key: "animal", value: "whale"},
		// One argument: the value is empty, and Traefik wants it left out.
		{rule: "Query(`debug`)", string: `Query("debug")`, name: rule.Query, key: "debug"},
		{rule: `QUERY("a", "")`, string: `Query("a")`, name: rule.Query, key: "a"},
		{rule: `QueryRegexp("animal", "^(?:whale|dolphin)$")`, string: `QueryRegexp("animal", "^(?:whale|dolphin)$")`, name: rule.QueryRegexp, key: "animal", value: "^(?:whale|dolphin)$"},
		{rule: `Queryregexp("a", "")`, string: `QueryRegexp("a", "")`, name: rule.QueryRegexp, key: "a"},
		// QueryRegexp without a value is Query, as in Traefik.
		{rule: `QueryRegexp("debug")`, string: `Query("debug")`, name: rule.Query, key: "debug"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			e, err := rule.Parse(tc.rule)
			require.NoError(t, err)
			ms := rule.Matchers(e)
			require.Len(t, ms, 1)
			assert.Equal(t, tc.name, ms[0].Name)
			assert.Equal(t, tc.key, ms[0].Key)
			assert.Equal(t, tc.value, ms[0].Value)
			assert.Equal(t, tc.string, e.String())
			assert.True(t, rule.Equal(e, rule.MustParse(e.String())))
		})
	}
	assert.True(t, rule.Equal(rule.MustParse(`Query("a")`), rule.MustParse(`Query("a", "")`)))
	assert.False(t, rule.Equal(rule.MustParse(`Query("a", "")`), rule.MustParse(`QueryRegexp("a", "")`)), "a regexp that matches any value is not an empty value")
	assert.False(t, rule.Equal(rule.MustParse(`Query("a", "v")`), rule.MustParse(`Query("b", "v")`)), "the parameter's name counts")
}

func TestParseMethodAndQueryErrors(t *testing.T) {
	for _, tc := range []struct {
		rule   string
		offset int
		msg    string
	}{
		{`Method()`, 7, "Method takes exactly one string argument, found none"},
		{`Method("GET", "POST")`, 12, "Method takes exactly one string argument, found more"},
		{`Query()`, 6, "Query takes one or two string arguments, found none"},
		{`Query("a", "b", "c")`, 14, "Query takes one or two string arguments, found more"},
		{`Query("a", )`, 11, `expected a string argument to Query after the comma, found ")"`},
		{`Query("a" "b")`, 10, `expected , after argument 1 of Query, found string "\"b\""`},
		{`Query("a", Path("/"))`, 11, `expected a string argument to Query, found name "Path"`},
		{`Query("a"`, 9, "expected , after argument 1 of Query, found the end of the rule"},
		{`Query("a", "b"`, 14, "expected ) after the arguments of Query, found the end of the rule"},
		{`QueryRegexp("a", "(")`, 17, `QueryRegexp: invalid regular expression "("`},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			_, err := rule.Parse(tc.rule)
			var se *rule.SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.offset, se.Offset, err.Error())
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestMatchMethod(t *testing.T) {
	get := rule.MustParse(`Method("GET")`)
	for _, tc := range []struct {
		name   string
		expr   rule.Expr
		method string
		match  bool
	}{
		{"the method", get, http.MethodGet, true},
		{"another method", get, http.MethodHead, false},
		{"the value is upper-cased", rule.MustParse(`Method("get")`), http.MethodGet, true},
		{"the request's method is compared as sent", get, "get", false},
		{"no method", get, "", false},
		{"negated", rule.MustParse(`!Method("GET")`), http.MethodPost, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.match, tc.expr.MatchRequest(rule.Request{Host: "a", Path: "/", Method: tc.method}))
		})
	}
	assert.False(t, get.Match("a", "/"), "Match sees no method")
}

func TestMatchQuery(t *testing.T) {
	whale := rule.MustParse(`Query("animal", "whale")`)
	debug := rule.MustParse(`Query("debug")`)
	sea := rule.MustParse(`QueryRegexp("animal", "^(?:whale|dolphin)$")`)
	anyValue := rule.MustParse(`QueryRegexp("animal", "")`)
	for _, tc := range []struct {
		name  string
		expr  rule.Expr
		query string
		match bool
	}{
		{"the value", whale, "animal=whale", true},
		{"among other parameters", whale, "color=blue&animal=whale", true},
		{"any of a repeated parameter's values", whale, "animal=dolphin&animal=whale", true},
		{"another value", whale, "animal=dolphin", false},
		{"the value exactly", whale, "animal=Whale", false},
		{"not a part of it", whale, "animal=whaledolphin", false},
		{"the name exactly", whale, "ANIMAL=whale", false},
		{"no such parameter", whale, "color=whale", false},
		{"no query", whale, "", false},
		{"the value decoded", rule.MustParse(`Query("q", "a b&c")`), "q=a+b%26c", true},
		{"the name decoded", whale, "anim%61l=whale", true},
		{"a pair with a semicolon is skipped", whale, "animal=whale;x=1", false},
		{"the other pairs are still read", whale, "x=1;y=2&animal=whale", true},
		{"a pair with a bad escape is skipped", rule.MustParse(`Query("animal", "wh%zzale")`), "animal=wh%zzale", false},
		{"no value: present without one", debug, "debug", true},
		{"no value: present, empty", debug, "debug=", true},
		{"no value: present with one", debug, "debug=1", false},
		{"no value: absent", debug, "other", false},
		{"a regexp", sea, "animal=dolphin", true},
		{"a regexp on another of the values", sea, "animal=shark&animal=whale", true},
		{"a regexp that does not match", sea, "animal=whaleshark", false},
		{"a regexp on an absent parameter", sea, "color=whale", false},
		{"an empty regexp: present with any value", anyValue, "animal=x", true},
		{"an empty regexp: absent", anyValue, "color=x", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.match, tc.expr.MatchRequest(rule.Request{Host: "a", Path: "/", RawQuery: tc.query}))
		})
	}
	assert.False(t, whale.Match("a", "/?animal=whale"), "Match sees no query: the path is a path")
}

func TestNewRequest(t *testing.T) {
	req := httptest.NewRequest(http.MethodPatch, "http://Shop.Example:8080/a%20b/c?animal=whale&debug", nil)
	req.Header.Set("x-canary", "always")
	r := rule.NewRequest(req)
	assert.Equal(t, rule.Request{
		Host:     "Shop.Example:8080",
		Path:     "/a b/c",
		Method:   http.MethodPatch,
		RawQuery: "animal=whale&debug",
		Header:   http.Header{"X-Canary": {"always"}},
	}, r)
	e := rule.MustParse(`Host("shop.example") && PathPrefix("/a b/") && Method("PATCH") && Header("X-Canary", "always") && Query("animal", "whale") && Query("debug")`)
	assert.True(t, e.MatchRequest(r))
	assert.Equal(t, rule.Request{}, rule.NewRequest(&http.Request{}), "a request without a URL")
}
