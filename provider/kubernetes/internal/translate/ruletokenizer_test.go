package translate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
