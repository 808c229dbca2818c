package rule_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/rule"
)

func m(name, value string) *rule.Matcher {
	mt, err := rule.NewMatcher(name, value)
	if err != nil {
		panic(err)
	}
	return mt
}

func and(l, r rule.Expr) rule.Expr { return &rule.And{Left: l, Right: r} }
func or(l, r rule.Expr) rule.Expr  { return &rule.Or{Left: l, Right: r} }
func not(e rule.Expr) rule.Expr    { return &rule.Not{Expr: e} }

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		rule   string
		want   rule.Expr
		string string // String() of the result; "" = the rule itself
	}{
		{rule: `Host("a.example")`, want: m("Host", "a.example")},
		{rule: `PathPrefix("/")`, want: m("PathPrefix", "/")},
		{rule: `Path("/p")`, want: m("Path", "/p")},
		{rule: `PathRegexp("^/v[0-9]+/")`, want: m("PathRegexp", "^/v[0-9]+/")},
		{
			rule: `HostRegexp("^[a-zA-Z0-9-]+\\.example\\.com$")`,
			want: m("HostRegexp", `^[a-zA-Z0-9-]+\.example\.com$`),
		},
		{
			rule: `Host("a.example") && PathPrefix("/app")`,
			want: and(m("Host", "a.example"), m("PathPrefix", "/app")),
		},
		{
			// The strict prefix form sliceway emits.
			rule: `Host("a.example") && (Path("/p") || PathPrefix("/p/"))`,
			want: and(m("Host", "a.example"), or(m("Path", "/p"), m("PathPrefix", "/p/"))),
		},
		{
			// Backquoted raw strings, as Traefik accepts: no escapes inside.
			rule:   "Host(`a.example`) && PathRegexp(`^/a\\d+$`)",
			want:   and(m("Host", "a.example"), m("PathRegexp", `^/a\d+$`)),
			string: `Host("a.example") && PathRegexp("^/a\\d+$")`,
		},
		{
			// Escapes of every kind, quotes and backquotes inside values.
			rule:   `Path("/a\") || Host(\"evil") && Path("\x00\n\t\u00e9\U0001F600\"")`,
			want:   and(m("Path", `/a") || Host("evil`), m("Path", "\x00\n\t\u00e9\U0001F600\"")),
			string: `Path("/a\") || Host(\"evil") && Path("\x00\n\té😀\"")`,
		},
		{
			rule: "Path(\"/b`) || Host(`evil\")",
			want: m("Path", "/b`) || Host(`evil"),
		},
		{
			// A raw string holding a double quote and a backslash.
			rule:   "Path(`/a\"\\`)",
			want:   m("Path", `/a"\`),
			string: `Path("/a\"\\")`,
		},
		{
			// Invalid UTF-8 through an escape survives the round trip.
			rule: `Path("/\xff")`,
			want: m("Path", "/\xff"),
		},
		{
			// Whitespace anywhere between tokens, none needed.
			rule:   " \tHost ( \"a\" )\n&&\r\n!Path(\"/x\")||Path(\"/y\") ",
			want:   or(and(m("Host", "a"), not(m("Path", "/x"))), m("Path", "/y")),
			string: `Host("a") && !Path("/x") || Path("/y")`,
		},
		{
			// Traefik's other spellings of the names.
			rule:   `host("a") && PATHPREFIX("/") && Hostregexp("b") && pathregexp("c") && Path("/")`,
			want:   and(and(and(and(m("Host", "a"), m("PathPrefix", "/")), m("HostRegexp", "b")), m("PathRegexp", "c")), m("Path", "/")),
			string: `Host("a") && PathPrefix("/") && HostRegexp("b") && PathRegexp("c") && Path("/")`,
		},
		{
			// Redundant parentheses are not kept.
			rule:   `((Host("a")))`,
			want:   m("Host", "a"),
			string: `Host("a")`,
		},
		{
			rule: `!!Host("a")`,
			want: not(not(m("Host", "a"))),
		},
		{
			rule: `!(Host("a") || Host("b"))`,
			want: not(or(m("Host", "a"), m("Host", "b"))),
		},
		{
			rule: `Host("") && Path("")`,
			want: and(m("Host", ""), m("Path", "")),
		},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			got, err := rule.Parse(tc.rule)
			require.NoError(t, err)
			assert.True(t, rule.Equal(tc.want, got), "got %s, want %s", got, tc.want)
			want := tc.string
			if want == "" {
				want = tc.rule
			}
			assert.Equal(t, want, got.String())
			again, err := rule.Parse(got.String())
			require.NoError(t, err)
			assert.True(t, rule.Equal(got, again), "String() does not parse back to the same tree")
		})
	}
}

func TestPrecedence(t *testing.T) {
	a, b, c, d := m("Host", "a"), m("Host", "b"), m("Host", "c"), m("Host", "d")
	for _, tc := range []struct {
		rule, string string
		want         rule.Expr
	}{
		// && binds tighter than ||, on either side.
		{`Host("a") || Host("b") && Host("c")`, `Host("a") || Host("b") && Host("c")`, or(a, and(b, c))},
		{`Host("a") && Host("b") || Host("c")`, `Host("a") && Host("b") || Host("c")`, or(and(a, b), c)},
		{`Host("a") && Host("b") || Host("c") && Host("d")`, `Host("a") && Host("b") || Host("c") && Host("d")`, or(and(a, b), and(c, d))},
		// ! binds tightest.
		{`!Host("a") && Host("b")`, `!Host("a") && Host("b")`, and(not(a), b)},
		{`!Host("a") || Host("b")`, `!Host("a") || Host("b")`, or(not(a), b)},
		// Both operators are left-associative.
		{`Host("a") && Host("b") && Host("c")`, `Host("a") && Host("b") && Host("c")`, and(and(a, b), c)},
		{`Host("a") || Host("b") || Host("c")`, `Host("a") || Host("b") || Host("c")`, or(or(a, b), c)},
		// Parentheses override, and String keeps the ones that matter.
		{`(Host("a") || Host("b")) && Host("c")`, `(Host("a") || Host("b")) && Host("c")`, and(or(a, b), c)},
		{`Host("a") && (Host("b") && Host("c"))`, `Host("a") && (Host("b") && Host("c"))`, and(a, and(b, c))},
		{`Host("a") || (Host("b") || Host("c"))`, `Host("a") || (Host("b") || Host("c"))`, or(a, or(b, c))},
		{`(Host("a") && Host("b")) || Host("c")`, `Host("a") && Host("b") || Host("c")`, or(and(a, b), c)},
		{`!(Host("a") && Host("b"))`, `!(Host("a") && Host("b"))`, not(and(a, b))},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			got, err := rule.Parse(tc.rule)
			require.NoError(t, err)
			assert.True(t, rule.Equal(tc.want, got), "got %s", got)
			assert.Equal(t, tc.string, got.String())
		})
	}
	// Trees built by hand print with the parentheses they need.
	for _, e := range []rule.Expr{
		and(a, or(b, c)), or(a, and(b, c)), and(or(a, b), or(c, d)), or(or(a, b), or(c, d)),
		and(and(a, b), and(c, d)), not(not(or(a, b))), and(not(and(a, b)), c), or(not(a), not(or(b, c))),
	} {
		got, err := rule.Parse(e.String())
		require.NoError(t, err, e.String())
		assert.True(t, rule.Equal(e, got), "%s parsed as %s", e, got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		rule   string
		offset int
		msg    string
	}{
		{``, 0, "empty rule"},
		{"  \n ", 4, "empty rule"},
		{`Host`, 4, "expected ( after Host, found the end of the rule"},
		{`Host(`, 5, "expected a string argument to Host, found the end of the rule"},
		{`Host()`, 5, "Host takes exactly one string argument, found none"},
		{`Host("a"`, 8, "expected ) after the argument of Host, found the end of the rule"},
		{`Host("a", "b")`, 8, "Host takes exactly one string argument, found more"},
		{`Host(a)`, 5, `expected a string argument to Host, found name "a"`},
		{`Host('a')`, 5, `unexpected character '\''`},
		{`Host("a`, 5, "string not terminated"},
		{"Host(`a", 5, "string not terminated"},
		{"Host(\"a\nb\")", 5, "newline in string"},
		{`Host("\q")`, 5, `invalid string "\"\\q\""`},
		{`ClientIP("10.0.0.0/8")`, 0, `unknown matcher "ClientIP" (want Host, HostRegexp, Path, PathPrefix, PathRegexp, Method, Header, HeaderRegexp, Query or QueryRegexp)`},
		{`hOST("a")`, 0, `unknown matcher "hOST"`},
		{`Host("a") &&`, 12, "expected a matcher, ! or (, found the end of the rule"},
		{`Host("a") & Path("/")`, 10, "a single & (want &&)"},
		{`Host("a") | Path("/")`, 10, "a single | (want ||)"},
		{`Host("a") Path("/")`, 10, `expected && or || or the end of the rule, found name "Path"`},
		{`Host("a"))`, 9, `expected && or || or the end of the rule, found ")"`},
		{`(Host("a")`, 10, "expected ) to close the ( at byte 0, found the end of the rule"},
		{`()`, 1, `expected a matcher, ! or (, found ")"`},
		{`!`, 1, "expected a matcher, ! or (, found the end of the rule"},
		{`&& Host("a")`, 0, `expected a matcher, ! or (, found "&&"`},
		{`Host("a") # comment`, 10, `unexpected character '#'`},
		{`Hôst("a")`, 0, `unknown matcher "Hôst"`},
		{`Host("a") && €`, 13, `unexpected character '€'`},
		{"Host(\"a\x00\")", 7, "NUL byte"},
		{"Host(\"a\xff\")", 7, "invalid UTF-8"},
		{`HostRegexp("(")`, 11, `HostRegexp: invalid regular expression "(": error parsing regexp: missing closing ): ` + "`(`"},
		{`Host("a") && PathRegexp("a**")`, 24, `PathRegexp: invalid regular expression "a**": error parsing regexp: invalid nested repetition operator: ` + "`**`"},
		{`Host("` + strings.Repeat("a", 40) + `)`, 5, `string not terminated`},
		{`Path("/") && ` + strings.Repeat("x", 40), 13, `unknown matcher "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"...`},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			e, err := rule.Parse(tc.rule)
			require.Error(t, err, "parsed as %v", e)
			assert.Nil(t, e)
			var se *rule.SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.offset, se.Offset, err.Error())
			assert.Contains(t, err.Error(), tc.msg)
			assert.True(t, strings.HasPrefix(err.Error(), fmt.Sprintf("rule: at byte %d: ", tc.offset)), err.Error())
		})
	}

	// A bad regexp's error unwraps to the regexp package's.
	_, err := rule.Parse(`PathRegexp("[z-a]")`)
	var re *syntax.Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, syntax.ErrInvalidCharRange, re.Code)
}

func TestBounds(t *testing.T) {
	t.Run("length", func(t *testing.T) {
		// Exactly MaxLength bytes parse; one more is refused before any work.
		prefix, suffix := `Path("`, `")`
		ok := prefix + strings.Repeat("a", rule.MaxLength-len(prefix)-len(suffix)) + suffix
		require.Len(t, ok, rule.MaxLength)
		e, err := rule.Parse(ok)
		require.NoError(t, err)
		assert.Equal(t, ok, e.String())

		tooLong := prefix + strings.Repeat("a", rule.MaxLength-len(prefix)-len(suffix)+1) + suffix
		_, err = rule.Parse(tooLong)
		assert.ErrorContains(t, err, fmt.Sprintf("the rule is %d bytes long, more than the %d allowed", rule.MaxLength+1, rule.MaxLength))
	})
	t.Run("nesting", func(t *testing.T) {
		for _, tc := range []struct {
			open, close string
		}{{"(", ")"}, {"!", ""}, {"!(", ")"}} {
			depth := func(n int) string {
				return strings.Repeat(tc.open, n/len(tc.open)) + `Host("a")` + strings.Repeat(tc.close, n/len(tc.open))
			}
			n := rule.MaxDepth
			if len(tc.open) == 2 {
				n = 2 * (rule.MaxDepth / 2)
			}
			_, err := rule.Parse(depth(n))
			require.NoError(t, err, "%d deep", n)
			_, err = rule.Parse(depth(n + len(tc.open)))
			require.ErrorContains(t, err, fmt.Sprintf("nested more than %d deep", rule.MaxDepth))
		}
		// A deeply nested hostile rule fails fast at the first level too deep.
		_, err := rule.Parse(strings.Repeat("(", rule.MaxLength))
		var se *rule.SyntaxError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, rule.MaxDepth, se.Offset)
	})
	t.Run("long chains are not nesting", func(t *testing.T) {
		// Thousands of matchers joined by && and ||: left-associative, no
		// nesting limit, and String and Match handle the deep tree.
		var parts []string
		for i := 0; len(strings.Join(parts, " || ")) < rule.MaxLength-40; i++ {
			parts = append(parts, fmt.Sprintf(`Path("/%d")`, i))
		}
		r := strings.Join(parts, " || ")
		e, err := rule.Parse(r)
		require.NoError(t, err)
		assert.Equal(t, r, e.String())
		assert.True(t, e.Match("x", "/0"))
		assert.True(t, e.Match("x", fmt.Sprintf("/%d", len(parts)-1)))
		assert.False(t, e.Match("x", "/none"))
		assert.Len(t, rule.Matchers(e), len(parts))
	})
}

func TestFixtureRulesParse(t *testing.T) {
	// Every rule of every fixture's expected configuration (of both
	// dialects) parses, and prints back to itself: sliceway emits exactly
	// the canonical form.
	rules := fixtureRules(t)
	require.NotEmpty(t, rules)
	for _, r := range rules {
		e, err := rule.Parse(r)
		if assert.NoError(t, err, r) {
			assert.Equal(t, r, e.String())
		}
	}
}

// fixtureRules are the router rules of fixtures/*/expected.yaml and
// fixtures/nginx/*/expected.yaml.
func fixtureRules(t testing.TB) []string {
	files, err := filepath.Glob("../fixtures/*/expected.yaml")
	require.NoError(t, err)
	nginx, err := filepath.Glob("../fixtures/nginx/*/expected.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, nginx)
	files = append(files, nginx...)
	var rules []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var conf struct {
			HTTP struct {
				Routers map[string]struct{ Rule string }
			}
		}
		require.NoError(t, yaml.Unmarshal(data, &conf), f)
		for _, r := range conf.HTTP.Routers {
			rules = append(rules, r.Rule)
		}
	}
	return rules
}

func FuzzParse(f *testing.F) {
	for _, r := range fixtureRules(f) {
		f.Add(r)
	}
	for _, r := range []string{
		"Host(`a`) && PathRegexp(`^/a\\d+$`)",
		`!(Host("a") || !Path("/")) && host("b")`,
		`Path("\x00\xff\u00e9")`,
		`HostRegexp("(")`,
		`((((Host("a")))))`,
		`Host("a", "b")`,
		`Header("X-A", "b") && !HeaderRegexp("cookie", "(?i)^a=") || header("a")`,
		`Method("get") && Query("a") && QueryRegexp("b") || queryregexp("c", "^d$") && Query("e", "f", "g")`,
		"",
	} {
		f.Add(r)
	}
	f.Fuzz(func(t *testing.T, r string) {
		e, err := rule.Parse(r)
		if err != nil {
			require.Nil(t, e)
			var se *rule.SyntaxError
			require.True(t, errors.As(err, &se), "%T is not a *SyntaxError", err)
			require.GreaterOrEqual(t, se.Offset, 0)
			require.LessOrEqual(t, se.Offset, len(r))
			require.LessOrEqual(t, len(err.Error()), 512+len(se.Msg), "the error is bounded, not the whole rule")
			return
		}
		require.NotNil(t, e)
		printed := e.String()
		again, err := rule.Parse(printed)
		require.NoError(t, err, "String() of %q is %q", r, printed)
		require.True(t, rule.Equal(e, again), "%q printed as %q parses to %q", r, printed, again.String())
		require.Equal(t, printed, again.String(), "printing is stable")
		// Matching never panics, whatever the request.
		for _, req := range [][2]string{{"", ""}, {"a", "/"}, {"[::1]:80", "/a/b"}, {r, r}} {
			_ = e.Match(req[0], req[1])
			_ = e.MatchRequest(rule.Request{Host: req[0], Path: req[1], Method: req[0], RawQuery: r, Header: http.Header{"X": {r}, "": {""}}})
		}
		// Each matcher matches what it says.
		for _, mt := range rule.Matchers(e) {
			switch mt.Name {
			case rule.Path:
				require.True(t, mt.Match("h", mt.Value))
			case rule.PathPrefix:
				require.True(t, mt.Match("h", mt.Value+"/x"))
			case rule.Method:
				if mt.Value != "" {
					require.True(t, mt.MatchRequest(rule.Request{Method: strings.ToUpper(mt.Value)}), "Method(%q)", mt.Value)
				}
			case rule.Query:
				// Whatever the name and value, encoded they read back.
				q := url.Values{mt.Key: {mt.Value}}.Encode()
				require.True(t, mt.MatchRequest(rule.Request{RawQuery: q}), "Query(%q, %q) on %q", mt.Key, mt.Value, q)
			case rule.Host:
				// Hosts are ASCII (Traefik refuses others): case folding is simple there.
				if isPlainASCII(mt.Value) && !strings.ContainsAny(mt.Value, ":[]") && mt.Value != "" && !strings.HasSuffix(mt.Value, ".") {
					require.True(t, mt.Match(strings.ToUpper(mt.Value), "/"), "Host(%q)", mt.Value)
				}
			}
		}
	})
}

func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

func ExampleParse() {
	e, err := rule.Parse("Host(`shop.example.com`) && (Path(\"/cart\") || PathPrefix(\"/cart/\"))")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e)
	for _, m := range rule.Matchers(e) {
		fmt.Printf("%s %q\n", m.Name, m.Value)
	}
	fmt.Println(e.Match("Shop.Example.com:443", "/cart/items"))
	fmt.Println(e.Match("shop.example.com", "/cartoons"))
	// Output:
	// Host("shop.example.com") && (Path("/cart") || PathPrefix("/cart/"))
	// Host "shop.example.com"
	// Path "/cart"
	// PathPrefix "/cart/"
	// true
	// false
}

func ExampleParse_error() {
	_, err := rule.Parse(`Host("a.example") && PathRegexp("^/(v1|v2")`)
	fmt.Println(err)
	// Output:
	// rule: at byte 32: PathRegexp: invalid regular expression "^/(v1|v2": error parsing regexp: missing closing ): `^/(v1|v2`
}
