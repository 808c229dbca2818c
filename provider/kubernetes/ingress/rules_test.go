package ingress

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{in: "", want: ""},
		{in: "abc", want: "abc"},
		{in: "Abc123", want: "Abc123"},
		{in: "default-whoami-80", want: "default-whoami-80"},
		{in: "default-foo-bar.example.com/api", want: "default-foo-bar-example-com-api"},
		{in: "a--b", want: "a-b"},
		{in: "a._/~b", want: "a-b"},
		{in: "a \t\nb", want: "a-b"},
		{in: "-abc", want: "abc"},
		{in: "abc-", want: "abc"},
		{in: "//a//b//", want: "a-b"},
		{in: "-", want: ""},
		{in: "/", want: ""},
		{in: "!@#$%^&*()", want: ""},
		{in: "ns-ing-/", want: "ns-ing"},
		{in: "héllo.wörld", want: "héllo-wörld"},
		{in: "ns/例え.テスト", want: "ns-例え-テスト"},
		{in: "Ωmega_σ", want: "Ωmega-σ"},
		{in: "a😀b", want: "a-b"},
		{in: "٣٤", want: "٣٤"}, // Arabic-Indic digits are digits
		{in: "a\x00b", want: "a-b"},
		{in: "a\xffb", want: "a-b"}, // invalid UTF-8 is not a letter
	}
	for _, tc := range tests {
		t.Run(strconv.Quote(tc.in), func(t *testing.T) {
			got := Normalize(tc.in)
			assert.Equal(t, tc.want, got)
			assert.False(t, strings.HasPrefix(got, "-"), "leading dash")
			assert.False(t, strings.HasSuffix(got, "-"), "trailing dash")
			assert.NotContains(t, got, "--")
			assert.Equal(t, got, Normalize(got), "Normalize must be idempotent")
		})
	}
}

func TestRouterKey(t *testing.T) {
	tests := []struct {
		desc                  string
		namespace, name, host string
		path                  string
		want                  string
	}{
		{desc: "host and path", namespace: "default", name: "whoami", host: "foo.example.com", path: "/api/v1", want: "default-whoami-foo-example-com-api-v1"},
		{desc: "no host, no path", namespace: "default", name: "whoami", want: "default-whoami"},
		{desc: "root path only", namespace: "default", name: "whoami", path: "/", want: "default-whoami"},
		{desc: "wildcard host", namespace: "team-a", name: "web", host: "*.foo.com", path: "/", want: "team-a-web-foo-com"},
		{desc: "host without path", namespace: "ns", name: "ing", host: "bar.com", want: "ns-ing-bar-com"},
		{desc: "host and path are concatenated", namespace: "ns", name: "ing", host: "a", path: "b", want: "ns-ing-ab"},
		{desc: "runs of symbols", namespace: "ns", name: "ing", host: "x.com", path: "/a//b/_c", want: "ns-ing-x-com-a-b-c"},
		{desc: "unicode", namespace: "ns", name: "ing", host: "bücher.de", path: "/straße", want: "ns-ing-bücher-de-straße"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			assert.Equal(t, tc.want, routerKey(tc.namespace, tc.name, tc.host, tc.path))
		})
	}
}

func TestServiceKey(t *testing.T) {
	tests := []struct {
		namespace, name, port string
		want                  string
	}{
		{namespace: "default", name: "whoami", port: "80", want: "default-whoami-80"},
		{namespace: "default", name: "whoami", port: "http", want: "default-whoami-http"},
		{namespace: "default", name: "whoami", port: "https-web", want: "default-whoami-https-web"},
		{namespace: "team.a", name: "svc_b", port: "web", want: "team-a-svc-b-web"},
		{namespace: "ns", name: "svc", port: "", want: "ns-svc"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, serviceKey(tc.namespace, tc.name, tc.port))
		})
	}
}

func TestHashedRouterKey(t *testing.T) {
	tests := []struct {
		desc string
		key  string
		rule string
		want string // when set, a known SHA-256 vector
	}{
		// sha256("") = e3b0c44298fc1c149afbf4c8996fb924...
		{desc: "empty rule", key: "k", rule: "", want: "k-e3b0c44298fc1c149afb"},
		// sha256("abc") = ba7816bf8f01cfea414140de5dae2223...
		{desc: "abc", key: "default-ing", rule: "abc", want: "default-ing-ba7816bf8f01cfea4141"},
		{desc: "path rule", key: "default-ing-foo", rule: `Path("/foo")`},
		{desc: "prefix rule", key: "default-ing-foo", rule: `PathPrefix("/foo")`},
		{desc: "host and path", key: "default-ing-foo-com-bar", rule: `Host("foo.com") && PathPrefix("/bar")`},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			sum := sha256.Sum256([]byte(tc.rule))
			want := tc.key + "-" + hex.EncodeToString(sum[:])[:20]
			if tc.want != "" {
				require.Equal(t, tc.want, want, "test vector")
			}
			got := hashedRouterKey(tc.key, tc.rule)
			assert.Equal(t, want, got)

			suffix, ok := strings.CutPrefix(got, tc.key+"-")
			require.True(t, ok, "the key must be kept as the prefix")
			assert.Regexp(t, `^[0-9a-f]{20}$`, suffix)
			assert.Equal(t, got, hashedRouterKey(tc.key, tc.rule), "stable")
			if other, dup := seen[got]; dup {
				t.Errorf("rules %q and %q give the same key %q", other, tc.rule, got)
			}
			seen[got] = tc.rule
		})
	}
}

func TestHostRule(t *testing.T) {
	tests := []struct {
		desc     string
		host     string
		want     string
		matches  []string // for HostRegexp
		excludes []string
	}{
		{desc: "plain host", host: "foo.com", want: `Host("foo.com")`},
		{desc: "plain subdomain", host: "a.b.foo.com", want: `Host("a.b.foo.com")`},
		{
			desc:     "wildcard",
			host:     "*.foo.com",
			want:     `HostRegexp("^[a-zA-Z0-9-]+\\.foo\\.com$")`,
			matches:  []string{"bar.foo.com", "BAR-1.foo.com", "x.foo.com"},
			excludes: []string{"foo.com", ".foo.com", "a.b.foo.com", "barxfooxcom", "bar.foo.com.evil", "evil.bar.foo.com", "bar_x.foo.com"},
		},
		{
			desc:     "wildcard with regexp metacharacters",
			host:     "*.a+b(c).com",
			want:     `HostRegexp("^[a-zA-Z0-9-]+\\.a\\+b\\(c\\)\\.com$")`,
			matches:  []string{"x.a+b(c).com"},
			excludes: []string{"x.aab(c).com", "x.abc.com"},
		},
		{desc: "star not followed by a dot is not a wildcard", host: "*foo.com", want: `Host("*foo.com")`},
		{desc: "inner star is not a wildcard", host: "a.*.foo.com", want: `Host("a.*.foo.com")`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got := hostRule(tc.host)
			assert.Equal(t, tc.want, got)
			if tc.matches == nil && tc.excludes == nil {
				return
			}
			args := quotedArgs(t, got)
			require.Len(t, args, 1)
			re, err := regexp.Compile(args[0])
			require.NoError(t, err)
			for _, h := range tc.matches {
				assert.True(t, re.MatchString(h), "%s should match %q", re, h)
			}
			for _, h := range tc.excludes {
				assert.False(t, re.MatchString(h), "%s should not match %q", re, h)
			}
		})
	}
}

func pathTypePtr(pt netv1.PathType) *netv1.PathType { return &pt }

func TestPathRule(t *testing.T) {
	exact := pathTypePtr(netv1.PathTypeExact)
	prefix := pathTypePtr(netv1.PathTypePrefix)
	implSpecific := pathTypePtr(netv1.PathTypeImplementationSpecific)
	empty := pathTypePtr("")

	tests := []struct {
		desc     string
		pathType *netv1.PathType
		path     string
		matcher  string
		strict   bool
		want     string
	}{
		{desc: "exact", pathType: exact, path: "/foo", want: `Path("/foo")`},
		{desc: "exact ignores the matcher annotation", pathType: exact, path: "/foo", matcher: "PathRegexp", want: `Path("/foo")`},
		{desc: "exact ignores strict prefix", pathType: exact, path: "/foo/", strict: true, want: `Path("/foo/")`},
		{desc: "prefix", pathType: prefix, path: "/foo", want: `PathPrefix("/foo")`},
		{desc: "prefix keeps a trailing slash when not strict", pathType: prefix, path: "/foo/", want: `PathPrefix("/foo/")`},
		{desc: "prefix ignores the matcher annotation", pathType: prefix, path: "/foo", matcher: "Path", want: `PathPrefix("/foo")`},
		{desc: "prefix root", pathType: prefix, path: "/", want: `PathPrefix("/")`},
		{desc: "strict prefix", pathType: prefix, path: "/foo", strict: true, want: `(Path("/foo") || PathPrefix("/foo/"))`},
		{desc: "strict prefix, trailing slash", pathType: prefix, path: "/foo/", strict: true, want: `(Path("/foo") || PathPrefix("/foo/"))`},
		{desc: "strict prefix, several trailing slashes", pathType: prefix, path: "/foo//", strict: true, want: `(Path("/foo") || PathPrefix("/foo/"))`},
		{desc: "strict prefix, nested", pathType: prefix, path: "/foo/bar", strict: true, want: `(Path("/foo/bar") || PathPrefix("/foo/bar/"))`},
		{desc: "strict prefix, root", pathType: prefix, path: "/", strict: true, want: `PathPrefix("/")`},
		{desc: "strict prefix, double slash root", pathType: prefix, path: "//", strict: true, want: `PathPrefix("/")`},
		{desc: "strict prefix ignores the matcher annotation", pathType: prefix, path: "/foo", matcher: "Path", strict: true, want: `(Path("/foo") || PathPrefix("/foo/"))`},
		{desc: "implementation specific defaults to PathPrefix", pathType: implSpecific, path: "/foo", want: `PathPrefix("/foo")`},
		{desc: "implementation specific is not strict", pathType: implSpecific, path: "/foo", strict: true, want: `PathPrefix("/foo")`},
		{desc: "implementation specific with Path", pathType: implSpecific, path: "/foo", matcher: "Path", want: `Path("/foo")`},
		{desc: "implementation specific with PathPrefix", pathType: implSpecific, path: "/foo", matcher: "PathPrefix", want: `PathPrefix("/foo")`},
		{desc: "implementation specific with PathRegexp", pathType: implSpecific, path: "^/foo/[0-9]+$", matcher: "PathRegexp", want: `PathRegexp("^/foo/[0-9]+$")`},
		{desc: "nil path type is implementation specific", pathType: nil, path: "/foo", want: `PathPrefix("/foo")`},
		{desc: "nil path type with the matcher annotation", pathType: nil, path: "/foo", matcher: "Path", want: `Path("/foo")`},
		{desc: "empty path type is implementation specific", pathType: empty, path: "/foo", matcher: "PathRegexp", want: `PathRegexp("/foo")`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			assert.Equal(t, tc.want, pathRule(tc.pathType, tc.path, tc.matcher, tc.strict))
		})
	}
}

func TestBuildRule(t *testing.T) {
	exact := pathTypePtr(netv1.PathTypeExact)
	prefix := pathTypePtr(netv1.PathTypePrefix)

	tests := []struct {
		desc    string
		host    string
		path    netv1.HTTPIngressPath
		matcher string
		strict  bool
		want    string
	}{
		{desc: "nothing matches everything", want: `PathPrefix("/")`},
		{desc: "host only", host: "foo.com", want: `Host("foo.com")`},
		{desc: "path only", path: netv1.HTTPIngressPath{Path: "/bar", PathType: exact}, want: `Path("/bar")`},
		{desc: "host and exact path", host: "foo.com", path: netv1.HTTPIngressPath{Path: "/bar", PathType: exact}, want: `Host("foo.com") && Path("/bar")`},
		{desc: "host and prefix path", host: "foo.com", path: netv1.HTTPIngressPath{Path: "/bar", PathType: prefix}, want: `Host("foo.com") && PathPrefix("/bar")`},
		{desc: "wildcard host and strict prefix", host: "*.foo.com", path: netv1.HTTPIngressPath{Path: "/bar/", PathType: prefix}, strict: true,
			want: `HostRegexp("^[a-zA-Z0-9-]+\\.foo\\.com$") && (Path("/bar") || PathPrefix("/bar/"))`},
		{desc: "host and matcher annotation", host: "foo.com", path: netv1.HTTPIngressPath{Path: "/b.r"}, matcher: "PathRegexp", want: `Host("foo.com") && PathRegexp("/b.r")`},
		{desc: "host, path type without a path", host: "foo.com", path: netv1.HTTPIngressPath{PathType: exact}, want: `Host("foo.com")`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got := buildRule(tc.host, tc.path, tc.matcher, tc.strict)
			assert.Equal(t, tc.want, got)
			assertParsesAsMatchers(t, got)
		})
	}
}

// TestBuildRuleInjection checks that no host or path can add a matcher or
// change the meaning of a rule: each value comes back intact from its
// Go-quoted argument, and the rule has exactly the expected matchers.
func TestBuildRuleInjection(t *testing.T) {
	nasty := []string{
		`a") || Host("evil.com`,
		"a`) || Host(`evil.com",
		`a" && PathPrefix("/`,
		`"`,
		`\`,
		`\"`,
		`a\") || Host(\"evil`,
		"`",
		"a\nb",
		"a\r\nHost(\"x\")",
		"a\x00b",
		"\x00",
		"a\tb",
		"a\xffb",
		"ünïcödé",
		"a\u2028b",
		`) || Path("/`,
		`PathPrefix("/")`,
		"$(x)",
		"%s%q%v",
		"a'b",
		"/a/../b",
	}
	exact := pathTypePtr(netv1.PathTypeExact)
	prefix := pathTypePtr(netv1.PathTypePrefix)

	for i, v := range nasty {
		host := "h" + v
		path := "/" + v
		// Strict prefix matching ignores the trailing slashes of a path.
		strictPath := strings.TrimRight(path, "/")
		t.Run(fmt.Sprintf("%d %q", i, v), func(t *testing.T) {
			tests := []struct {
				desc      string
				host      string
				path      netv1.HTTPIngressPath
				matcher   string
				strict    bool
				wantCalls []string
				wantArgs  []string
			}{
				{desc: "host", host: host, wantCalls: []string{"Host"}, wantArgs: []string{host}},
				{desc: "exact path", path: netv1.HTTPIngressPath{Path: path, PathType: exact}, wantCalls: []string{"Path"}, wantArgs: []string{path}},
				{desc: "prefix path", path: netv1.HTTPIngressPath{Path: path, PathType: prefix}, wantCalls: []string{"PathPrefix"}, wantArgs: []string{path}},
				{desc: "matcher annotation", path: netv1.HTTPIngressPath{Path: path}, matcher: "PathRegexp", wantCalls: []string{"PathRegexp"}, wantArgs: []string{path}},
				{desc: "host and path", host: host, path: netv1.HTTPIngressPath{Path: path, PathType: exact},
					wantCalls: []string{"Host", "Path"}, wantArgs: []string{host, path}},
				{desc: "host and strict prefix", host: host, path: netv1.HTTPIngressPath{Path: path, PathType: prefix}, strict: true,
					wantCalls: []string{"Host", "Path", "PathPrefix"}, wantArgs: []string{host, strictPath, strictPath + "/"}},
			}
			for _, tc := range tests {
				rule := buildRule(tc.host, tc.path, tc.matcher, tc.strict)
				assert.Equal(t, tc.wantArgs, quotedArgs(t, rule), "%s: rule %s", tc.desc, rule)
				assert.Equal(t, tc.wantCalls, matcherCalls(t, rule), "%s: rule %s", tc.desc, rule)
				assertParsesAsMatchers(t, rule)
			}

			// A wildcard host: the regexp argument must be a quoted regexp
			// that matches the literal rest of the host and nothing else.
			rule := buildRule("*."+v, netv1.HTTPIngressPath{}, "", false)
			args := quotedArgs(t, rule)
			require.Len(t, args, 1, rule)
			assert.Equal(t, []string{"HostRegexp"}, matcherCalls(t, rule))
			if !strings.Contains(v, "\xff") {
				re, err := regexp.Compile(args[0])
				require.NoError(t, err, rule)
				assert.True(t, re.MatchString("x."+v), "%s should match %q", re, "x."+v)
				assert.False(t, re.MatchString("evil.com"), "%s should not match evil.com", re)
			}
		})
	}
}

// ruleToken is one token of a rule: an identifier, an operator, a
// parenthesis, or a quoted string (kept as written, quotes included).
type ruleToken struct {
	kind string // "ident", "string", "op", "(", ")"
	text string
}

// tokenizeRule splits a rule as Traefik's rule parser would: identifiers,
// "(", ")", ",", "&&", "||", "!" and double-quoted or backquoted strings.
// Anything else is a test failure.
func tokenizeRule(t *testing.T, rule string) []ruleToken {
	t.Helper()
	var toks []ruleToken
	for i := 0; i < len(rule); {
		c := rule[i]
		switch {
		case c == ' ':
			i++
		case c == '(' || c == ')':
			toks = append(toks, ruleToken{kind: string(c), text: string(c)})
			i++
		case c == ',' || c == '!':
			toks = append(toks, ruleToken{kind: "op", text: string(c)})
			i++
		case strings.HasPrefix(rule[i:], "&&") || strings.HasPrefix(rule[i:], "||"):
			toks = append(toks, ruleToken{kind: "op", text: rule[i : i+2]})
			i += 2
		case c == '"':
			j := i + 1
			for ; j < len(rule) && rule[j] != '"'; j++ {
				if rule[j] == '\\' {
					j++
				}
				if j < len(rule) && rule[j] == '\n' {
					t.Fatalf("raw newline inside a quoted string at %d in %q", j, rule)
				}
			}
			if j >= len(rule) {
				t.Fatalf("unterminated string at %d in %q", i, rule)
			}
			toks = append(toks, ruleToken{kind: "string", text: rule[i : j+1]})
			i = j + 1
		case c == '`':
			j := strings.IndexByte(rule[i+1:], '`')
			if j < 0 {
				t.Fatalf("unterminated raw string at %d in %q", i, rule)
			}
			toks = append(toks, ruleToken{kind: "string", text: rule[i : i+j+2]})
			i += j + 2
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(rule) && (rule[j] == '_' || rule[j] >= 'a' && rule[j] <= 'z' || rule[j] >= 'A' && rule[j] <= 'Z' || rule[j] >= '0' && rule[j] <= '9') {
				j++
			}
			toks = append(toks, ruleToken{kind: "ident", text: rule[i:j]})
			i = j
		default:
			t.Fatalf("unexpected character %q at %d in %q", c, i, rule)
		}
	}
	return toks
}

// quotedArgs returns the unquoted string arguments of a rule, in order.
func quotedArgs(t *testing.T, rule string) []string {
	t.Helper()
	var args []string
	for _, tok := range tokenizeRule(t, rule) {
		if tok.kind != "string" {
			continue
		}
		s, err := strconv.Unquote(tok.text)
		require.NoError(t, err, "argument %s of %q", tok.text, rule)
		args = append(args, s)
	}
	return args
}

// matcherCalls returns the names of the matchers a rule calls, in order:
// every identifier must be followed by "(" and one string argument.
func matcherCalls(t *testing.T, rule string) []string {
	t.Helper()
	toks := tokenizeRule(t, rule)
	var calls []string
	for i, tok := range toks {
		if tok.kind != "ident" {
			continue
		}
		require.Less(t, i+3, len(toks), "matcher %s at the end of %q", tok.text, rule)
		require.Equal(t, "(", toks[i+1].kind, "in %q", rule)
		require.Equal(t, "string", toks[i+2].kind, "in %q", rule)
		require.Equal(t, ")", toks[i+3].kind, "in %q", rule)
		calls = append(calls, tok.text)
	}
	return calls
}

// assertParsesAsMatchers parses the rule with go/parser, as Traefik's rule
// parser does, and checks that it only combines matcher calls that each
// take one string literal.
func assertParsesAsMatchers(t *testing.T, rule string) {
	t.Helper()
	expr, err := parser.ParseExpr(rule)
	require.NoError(t, err, "rule %q", rule)
	ast.Inspect(expr, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil, *ast.ParenExpr, *ast.Ident:
		case *ast.BinaryExpr:
			assert.Contains(t, []token.Token{token.LAND, token.LOR}, n.Op, "rule %q", rule)
		case *ast.CallExpr:
			require.Len(t, n.Args, 1, "rule %q", rule)
			lit, ok := n.Args[0].(*ast.BasicLit)
			require.True(t, ok, "rule %q", rule)
			assert.Equal(t, token.STRING, lit.Kind, "rule %q", rule)
		case *ast.BasicLit:
			assert.Equal(t, token.STRING, n.Kind, "rule %q", rule)
		default:
			t.Errorf("unexpected %T in rule %q", n, rule)
		}
		return true
	})
}

// normalizeReference is normalizeParts rune by rune, as it was written
// first: what the faster one must give.
func normalizeReference(parts ...string) string {
	var out []rune
	pendingDash := false
	for _, r := range strings.Join(parts, "") {
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r)) {
			if pendingDash && len(out) > 0 {
				out = append(out, '-')
			}
			pendingDash = false
			out = append(out, r)
			continue
		}
		pendingDash = true
	}
	return string(out)
}

// TestNormalizePartsMatchesReference: random parts of names, hosts and
// paths, with other bytes and runes among them, normalise as the reference
// does, however they are split into parts.
func TestNormalizePartsMatchesReference(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 3))
	pieces := []string{"a", "Z", "9", "shop", "-", ".", "/", "_", " ", "é", "例", "😀", "٣", "\xff", "\x00", "--", "api/v1", "*."}
	for range 20000 {
		parts := make([]string, 1+rnd.IntN(5))
		for i := range parts {
			var b strings.Builder
			for range rnd.IntN(6) {
				b.WriteString(pieces[rnd.IntN(len(pieces))])
			}
			parts[i] = b.String()
		}
		require.Equal(t, normalizeReference(parts...), normalizeParts(parts...), "%q", parts)
	}
}

// TestAppendQuoted: the quick path quotes as strconv.Quote does, every
// byte alone and random texts.
func TestAppendQuoted(t *testing.T) {
	for c := range 256 {
		s := "a" + string([]byte{byte(c)}) + "b"
		require.Equal(t, strconv.Quote(s), string(appendQuoted(nil, s)), "byte %#x", c)
	}
	rnd := rand.New(rand.NewPCG(5, 8))
	for range 5000 {
		b := make([]byte, rnd.IntN(12))
		for i := range b {
			b[i] = byte(' ' + rnd.IntN(96))
		}
		require.Equal(t, strconv.Quote(string(b)), string(appendQuoted([]byte("x"), string(b))[1:]))
	}
}

// BenchmarkRouterName is what every path of a full render spends on its
// router's key and rule.
func BenchmarkRouterName(b *testing.B) {
	prefix := netv1.PathTypePrefix
	path := netv1.HTTPIngressPath{Path: "/", PathType: &prefix}
	b.ReportAllocs()
	for b.Loop() {
		_ = routerKey("default", "shop-01234", "shop-01234.example.com", path.Path)
		_ = buildRule("shop-01234.example.com", path, "", false)
	}
}
