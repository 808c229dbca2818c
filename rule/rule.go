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
	Method     = "Method"
	// Header and HeaderRegexp take two arguments: the header's name
	// (Matcher.Key) and its value or regular expression (Matcher.Value).
	Header       = "Header"
	HeaderRegexp = "HeaderRegexp"
	// Query and QueryRegexp take the query parameter's name (Matcher.Key)
	// and, optionally, its value or regular expression (Matcher.Value).
	Query       = "Query"
	QueryRegexp = "QueryRegexp"
)

// allMatchers lists the supported matchers, in the order errors name them.
var allMatchers = []string{Host, HostRegexp, Path, PathPrefix, PathRegexp, Method, Header, HeaderRegexp, Query, QueryRegexp}

// arity is the fewest and the most arguments a matcher takes.
func arity(canonical string) (least, most int) {
	switch canonical {
	case Header, HeaderRegexp:
		return 2, 2
	case Query, QueryRegexp:
		return 1, 2
	}
	return 1, 1
}

// keyed says whether a matcher's first argument is a name (Matcher.Key).
func keyed(canonical string) bool {
	_, most := arity(canonical)
	return most == 2
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
	// Match says whether a request with only a host and a path (no
	// headers, method or query) satisfies the rule (see the package documentation for each
	// matcher's semantics).
	Match(host, path string) bool
	// MatchRequest says whether a request satisfies the rule.
	MatchRequest(r Request) bool
	// String prints the expression as a rule that parses back to an equal
	// expression.
	String() string

	appendTo(buf []byte, ctx int) []byte
}

// Matcher is one matcher with its arguments, such as Host("example.com"),
// Header("X-Canary", "always") or Query("debug").
type Matcher struct {
	Name  string // canonical: one of the names above
	Key   string // the header's or query parameter's name (the first argument), for the matchers that take one
	Value string // the unquoted last argument; "" for a Query written without one

	folded string         // Value lower-cased for Host, upper-cased for Method
	re     *regexp.Regexp // compiled Value, for HostRegexp, PathRegexp, HeaderRegexp and QueryRegexp
}

// NewMatcher builds a matcher from its arguments (one; two for Header and
// HeaderRegexp: the header's name, then the value; one or two for Query
// and QueryRegexp: the parameter's name, then the value), compiling its
// regular expression once. name may be any spelling Parse accepts. A
// QueryRegexp without a value is a Query, as in Traefik, and is returned
// as one.
func NewMatcher(name string, args ...string) (*Matcher, error) {
	canonical, ok := matcherNames[name]
	if !ok {
		return nil, fmt.Errorf("unknown matcher %q (want %s)", name, wantMatchers())
	}
	if least, most := arity(canonical); len(args) < least || len(args) > most {
		return nil, fmt.Errorf("%s takes %s, not %d", canonical, argumentsText(least, most), len(args))
	}
	if canonical == QueryRegexp && len(args) == 1 {
		canonical = Query
	}
	m := &Matcher{Name: canonical}
	switch {
	case keyed(canonical) && len(args) == 2:
		m.Key, m.Value = args[0], args[1]
	case keyed(canonical):
		m.Key = args[0]
	default:
		m.Value = args[0]
	}
	switch canonical {
	case Host:
		m.folded = strings.ToLower(m.Value)
	case Method:
		m.folded = strings.ToUpper(m.Value)
	case HostRegexp, PathRegexp, HeaderRegexp, QueryRegexp:
		re, err := regexp.Compile(m.Value)
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
