// Package rule parses and evaluates the router rules that sliceway emits, in
// the syntax of Traefik v3 rules, so that a program embedding the provider
// can route requests without Traefik, and so that tests can check what a rule
// says rather than how it is spelt.
//
// # Syntax
//
// A rule is an expression of matchers joined by operators:
//
//	Host("shop.example.com") && (Path("/cart") || PathPrefix("/cart/"))
//	HostRegexp("^[a-zA-Z0-9-]+\\.example\\.com$") && !PathPrefix(`/admin`)
//
// Its parts are:
//
//   - Matchers: Host, HostRegexp, Path, PathPrefix and PathRegexp, each with
//     exactly one argument, and Header and HeaderRegexp, each with two (the
//     header's name, then its value or regular expression), separated by a
//     comma. As in Traefik, a matcher name may also be written in lower
//     case, upper case or with only its first letter upper case (host,
//     HOST, Hostregexp); the parsed Matcher carries the canonical name.
//     Traefik's other matchers (Method, Query, ClientIP, ...) are not
//     supported: sliceway never emits them, and Parse reports them as
//     unknown.
//   - Arguments are Go string literals: double-quoted with Go's escapes
//     ("a\"b", "\x00", "\u00e9"), or raw strings in backquotes (`a\b`, in
//     which carriage returns are dropped, as in Go). The value is the
//     unquoted string (strconv.Unquote).
//   - Operators: ! (not), && (and), || (or) and parentheses. ! binds tighter
//     than &&, which binds tighter than ||; && and || are left-associative.
//     So a || b && c is a || (b && c), and !a && b is (!a) && b.
//   - Whitespace (space, tab, newline, carriage return) may stand between any
//     two tokens.
//
// The input must be valid UTF-8 without NUL bytes (escapes in literals may
// still produce any byte), at most MaxLength bytes long, and nest parentheses
// and ! at most MaxDepth deep. A regular expression (HostRegexp,
// PathRegexp, HeaderRegexp) is compiled by Parse, so a bad one is a parse
// error and matching never compiles anything. Every error is a
// *SyntaxError with the byte offset in the rule where the problem is.
//
// # Matching
//
// Expr.Match(host, path) says whether a request for host (the Host header or
// the URL's authority, with or without a port) and path (the request's URL
// path, decoded, as net/http's URL.Path) satisfies the rule, with Traefik
// v3's semantics:
//
//   - Host: the request host, without its port, trimmed of spaces and
//     lower-cased, equals the value lower-cased; a trailing dot on either
//     side is ignored ("example.com." matches Host("example.com")).
//   - HostRegexp: the Go regular expression matches the request host
//     without its port, trimmed and lower-cased. The expression is not
//     anchored for you: write ^ and $ for a whole-host match.
//   - Path: the path equals the value exactly.
//   - PathPrefix: the path starts with the value (a plain string prefix:
//     PathPrefix("/foo") matches "/foobar" too, as in Traefik).
//   - PathRegexp: the Go regular expression matches the path (not anchored).
//   - Header: one of the values of the header (its name in any case, as
//     http.CanonicalHeaderKey reads it) equals the value exactly.
//   - HeaderRegexp: the Go regular expression matches one of the values of
//     the header (not anchored).
//
// Match sees no headers: Header and HeaderRegexp match nothing there. To
// route on headers too, call MatchRequest with a Request.
//
// Traefik v3 routes on the path with percent-encodings decoded except
// those of reserved characters (gen-delims, sub-delims and %), which stay
// as the client sent them: a rule that holds such a character matches
// there only when the client sends it unencoded. Match takes the path
// decoded, as a client that encodes only what RFC 3986 requires sends it.
//
// Traefik also refuses Host and HostRegexp values that are not ASCII, and
// Path and PathPrefix values that do not start with "/"; this package does
// not, so that it can read back any rule sliceway built.
//
// # Priority
//
// Traefik orders routers by priority, which defaults to the length of the
// rule: Priority returns that default, so a longer (usually more specific)
// rule is tried first.
//
// # The AST
//
// Parse returns a tree of *Matcher, *And, *Or and *Not. Expr.String prints
// it back as a rule that parses to an equal tree (Equal), with only the
// parentheses the precedence needs and every value double-quoted with
// strconv.Quote.
//
// # Files
//
// Each file has one job:
//
//   - rule.go: this overview, the limits, the matcher names, the tree's
//     types (Expr, Matcher, And, Or, Not) with NewMatcher, and Equal,
//     Matchers and Priority.
//   - scan.go: the tokenizer, which cuts a rule into names, string
//     literals, operators and parentheses.
//   - parse.go: Parse and MustParse, the recursive-descent parser that
//     builds the tree from the tokens, and SyntaxError, its errors.
//   - print.go: Expr.String, which prints a tree back as a rule with only
//     the parentheses the precedence needs.
//   - evaluate.go: Match and MatchRequest, which say whether a request
//     satisfies a tree.
//   - request.go: Request, what a rule looks at in a request.
package rule

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxLength is the longest rule Parse accepts, in bytes.
const MaxLength = 64 << 10

// MaxDepth is the deepest nesting of parentheses and ! that Parse accepts.
const MaxDepth = 100

// Names of the supported matchers.
const (
	Host       = "Host"
	HostRegexp = "HostRegexp"
	Path       = "Path"
	PathPrefix = "PathPrefix"
	PathRegexp = "PathRegexp"
	// Header and HeaderRegexp take two arguments: the header's name
	// (Matcher.Key) and its value or regular expression (Matcher.Value).
	Header       = "Header"
	HeaderRegexp = "HeaderRegexp"
)

// allMatchers lists the supported matchers, in the order errors name them.
var allMatchers = []string{Host, HostRegexp, Path, PathPrefix, PathRegexp, Header, HeaderRegexp}

// arity is how many arguments a matcher takes.
func arity(canonical string) int {
	if canonical == Header || canonical == HeaderRegexp {
		return 2
	}
	return 1
}

// matcherNames maps every accepted spelling to the canonical name: the
// name itself, lower case, upper case and Title case, as Traefik does.
var matcherNames = func() map[string]string {
	m := map[string]string{}
	for _, name := range allMatchers {
		lower := strings.ToLower(name)
		for _, spelling := range []string{name, lower, strings.ToUpper(name), strings.ToUpper(lower[:1]) + lower[1:]} {
			m[spelling] = name
		}
	}
	return m
}()

// Expr is a parsed rule: a *Matcher, *And, *Or or *Not.
type Expr interface {
	// Match says whether a request for host and path, with no headers,
	// satisfies the rule (see the package documentation for each
	// matcher's semantics).
	Match(host, path string) bool
	// MatchRequest says whether a request satisfies the rule.
	MatchRequest(r Request) bool
	// String prints the expression as a rule that parses back to an equal
	// expression.
	String() string

	appendTo(buf []byte, ctx int) []byte
}

// Matcher is one matcher with its arguments, such as Host("example.com")
// or Header("X-Canary", "always").
type Matcher struct {
	Name  string // canonical: Host, HostRegexp, Path, PathPrefix, PathRegexp, Header or HeaderRegexp
	Key   string // the header's name, for Header and HeaderRegexp (their first argument)
	Value string // the unquoted (last) argument

	lower string         // Value lower-cased, for Host
	re    *regexp.Regexp // compiled Value, for HostRegexp, PathRegexp and HeaderRegexp
}

// NewMatcher builds a matcher from its arguments (one, or two for Header
// and HeaderRegexp: the header's name, then the value), compiling its
// regular expression once. name may be any spelling Parse accepts.
func NewMatcher(name string, args ...string) (*Matcher, error) {
	canonical, ok := matcherNames[name]
	if !ok {
		return nil, fmt.Errorf("unknown matcher %q (want %s)", name, wantMatchers())
	}
	if n := arity(canonical); len(args) != n {
		return nil, fmt.Errorf("%s takes %s, not %d", canonical, argumentsText(n), len(args))
	}
	value := args[len(args)-1]
	m := &Matcher{Name: canonical, Value: value}
	if len(args) == 2 {
		m.Key = args[0]
	}
	switch canonical {
	case Host:
		m.lower = strings.ToLower(value)
	case HostRegexp, PathRegexp, HeaderRegexp:
		re, err := regexp.Compile(value)
		if err != nil {
			return nil, fmt.Errorf("%s: invalid regular expression: %w", canonical, err)
		}
		m.re = re
	}
	return m, nil
}

// And matches when both sides match.
type And struct{ Left, Right Expr }

// Or matches when either side matches.
type Or struct{ Left, Right Expr }

// Not matches when its operand does not.
type Not struct{ Expr Expr }

// Equal says whether two expressions have the same tree: the same operators
// in the same places, and matchers of the same names and values.
func Equal(a, b Expr) bool {
	switch a := a.(type) {
	case *Matcher:
		b, ok := b.(*Matcher)
		if !ok || a == nil || b == nil {
			return ok && a == b
		}
		return a.Name == b.Name && a.Key == b.Key && a.Value == b.Value
	case *And:
		b, ok := b.(*And)
		if !ok || a == nil || b == nil {
			return ok && a == b
		}
		return Equal(a.Left, b.Left) && Equal(a.Right, b.Right)
	case *Or:
		b, ok := b.(*Or)
		if !ok || a == nil || b == nil {
			return ok && a == b
		}
		return Equal(a.Left, b.Left) && Equal(a.Right, b.Right)
	case *Not:
		b, ok := b.(*Not)
		if !ok || a == nil || b == nil {
			return ok && a == b
		}
		return Equal(a.Expr, b.Expr)
	case nil:
		return b == nil
	}
	return false
}

// Matchers returns the matchers of an expression, left to right.
func Matchers(e Expr) []*Matcher {
	var out []*Matcher
	var walk func(Expr)
	walk = func(e Expr) {
		switch e := e.(type) {
		case *Matcher:
			out = append(out, e)
		case *And:
			walk(e.Left)
			walk(e.Right)
		case *Or:
			walk(e.Left)
			walk(e.Right)
		case *Not:
			walk(e.Expr)
		}
	}
	walk(e)
	return out
}

// Priority is Traefik's default priority of a router with this rule: the
// length of the rule in bytes.
func Priority(rule string) int { return len(rule) }
