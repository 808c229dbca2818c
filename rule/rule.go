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
package rule

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// Match implements Expr.
func (m *Matcher) Match(host, path string) bool {
	return m.MatchRequest(Request{Host: host, Path: path})
}

// MatchRequest implements Expr. A Matcher built as a literal rather than
// by NewMatcher or Parse compiles its regular expression at each call,
// and matches nothing if it does not compile.
func (m *Matcher) MatchRequest(r Request) bool {
	host, path := r.Host, r.Path
	switch m.Name {
	case Host:
		want := m.lower
		if want == "" && m.Value != "" {
			want = strings.ToLower(m.Value)
		}
		return hostMatches(canonicalHost(host), want)
	case HostRegexp:
		re := m.regexp()
		return re != nil && re.MatchString(canonicalHost(host))
	case Path:
		return path == m.Value
	case PathPrefix:
		return strings.HasPrefix(path, m.Value)
	case PathRegexp:
		re := m.regexp()
		return re != nil && re.MatchString(path)
	case Header:
		return slices.Contains(r.headerValues(m.Key), m.Value)
	case HeaderRegexp:
		re := m.regexp()
		return re != nil && slices.ContainsFunc(r.headerValues(m.Key), re.MatchString)
	}
	return false
}

func (m *Matcher) regexp() *regexp.Regexp {
	if m.re != nil {
		return m.re
	}
	re, err := regexp.Compile(m.Value)
	if err != nil {
		return nil
	}
	return re
}

// hostMatches compares a canonical request host with a lower-cased Host
// value, ignoring a trailing dot on either side, as Traefik does.
func hostMatches(req, want string) bool {
	if req == "" {
		return false
	}
	return req == want || strings.TrimSuffix(req, ".") == want || req == strings.TrimSuffix(want, ".")
}

// canonicalHost is Traefik's canonical request host: without its port
// (when net.SplitHostPort can split one off), trimmed of spaces,
// lower-cased.
func canonicalHost(host string) string {
	if strings.Contains(host, ":") {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	return strings.ToLower(strings.TrimSpace(host))
}

// Match implements Expr.
func (a *And) Match(host, path string) bool { return a.MatchRequest(Request{Host: host, Path: path}) }

// Match implements Expr.
func (o *Or) Match(host, path string) bool { return o.MatchRequest(Request{Host: host, Path: path}) }

// Match implements Expr.
func (n *Not) Match(host, path string) bool { return n.MatchRequest(Request{Host: host, Path: path}) }

// MatchRequest implements Expr.
func (a *And) MatchRequest(r Request) bool { return a.Left.MatchRequest(r) && a.Right.MatchRequest(r) }

// MatchRequest implements Expr.
func (o *Or) MatchRequest(r Request) bool { return o.Left.MatchRequest(r) || o.Right.MatchRequest(r) }

// MatchRequest implements Expr.
func (n *Not) MatchRequest(r Request) bool { return !n.Expr.MatchRequest(r) }

// Printing contexts: what surrounds an operand decides its parentheses.
const (
	ctxTop      = iota // the whole rule, or inside parentheses
	ctxOrRight         // right operand of ||: an || needs parentheses
	ctxAndLeft         // left operand of &&: an || needs parentheses
	ctxAndRight        // right operand of &&: && and || need parentheses
	ctxNot             // operand of !: && and || need parentheses
)

func (m *Matcher) String() string { return string(m.appendTo(nil, ctxTop)) }
func (a *And) String() string     { return string(a.appendTo(nil, ctxTop)) }
func (o *Or) String() string      { return string(o.appendTo(nil, ctxTop)) }
func (n *Not) String() string     { return string(n.appendTo(nil, ctxTop)) }
func (m *Matcher) appendTo(buf []byte, _ int) []byte {
	buf = append(buf, m.Name...)
	buf = append(buf, '(')
	if arity(m.Name) == 2 {
		buf = strconv.AppendQuote(buf, m.Key)
		buf = append(buf, ", "...)
	}
	buf = strconv.AppendQuote(buf, m.Value)
	return append(buf, ')')
}

func (a *And) appendTo(buf []byte, ctx int) []byte {
	paren := ctx == ctxAndRight || ctx == ctxNot
	if paren {
		buf = append(buf, '(')
	}
	buf = appendExpr(buf, a.Left, ctxAndLeft)
	buf = append(buf, " && "...)
	buf = appendExpr(buf, a.Right, ctxAndRight)
	if paren {
		buf = append(buf, ')')
	}
	return buf
}

func (o *Or) appendTo(buf []byte, ctx int) []byte {
	paren := ctx != ctxTop
	if paren {
		buf = append(buf, '(')
	}
	buf = appendExpr(buf, o.Left, ctxTop)
	buf = append(buf, " || "...)
	buf = appendExpr(buf, o.Right, ctxOrRight)
	if paren {
		buf = append(buf, ')')
	}
	return buf
}

func (n *Not) appendTo(buf []byte, _ int) []byte {
	buf = append(buf, '!')
	return appendExpr(buf, n.Expr, ctxNot)
}

func appendExpr(buf []byte, e Expr, ctx int) []byte {
	if e == nil {
		return append(buf, "<nil>"...)
	}
	return e.appendTo(buf, ctx)
}

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

// SyntaxError is a rule that cannot be parsed. Offset is the byte offset
// in the rule where the problem is.
type SyntaxError struct {
	Offset int
	Msg    string
	Err    error // the underlying error, for a bad string literal or regular expression
}

func (e *SyntaxError) Error() string {
	msg := fmt.Sprintf("rule: at byte %d: %s", e.Offset, e.Msg)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// MustParse is Parse that panics on an error, for rules written in programs
// and tests.
func MustParse(rule string) Expr {
	e, err := Parse(rule)
	if err != nil {
		panic(err)
	}
	return e
}

// Parse parses a rule (see the package documentation for its syntax).
func Parse(rule string) (Expr, error) {
	if len(rule) > MaxLength {
		return nil, &SyntaxError{Offset: MaxLength, Msg: fmt.Sprintf("the rule is %d bytes long, more than the %d allowed", len(rule), MaxLength)}
	}
	for i := 0; i < len(rule); {
		c := rule[i]
		if c == 0 {
			return nil, &SyntaxError{Offset: i, Msg: "NUL byte (write \\x00 inside a string)"}
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(rule[i:])
		if r == utf8.RuneError && size == 1 {
			return nil, &SyntaxError{Offset: i, Msg: "invalid UTF-8 (write \\xNN inside a string)"}
		}
		i += size
	}
	p := &parser{src: rule}
	if err := p.next(); err != nil {
		return nil, err
	}
	if p.tok.kind == tokEOF {
		return nil, p.errorf(p.tok.pos, "empty rule")
	}
	e, err := p.parseOr(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, p.errorf(p.tok.pos, "expected && or || or the end of the rule, found %s", p.tok.describe())
	}
	return e, nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokString
	tokLParen
	tokRParen
	tokAnd
	tokOr
	tokNot
	tokComma
)

type token struct {
	kind  tokKind
	pos   int
	text  string // the source text of the token
	value string // the unquoted value of a string
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "the end of the rule"
	case tokString:
		return "string " + shorten(t.text)
	case tokIdent:
		return "name " + shorten(t.text)
	}
	return strconv.Quote(t.text)
}

// shorten quotes s, cut to 32 bytes, so that errors stay short whatever
// the rule.
func shorten(s string) string {
	const limit = 32
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

type parser struct {
	src string
	pos int // next byte to scan
	tok token
}

func (p *parser) errorf(pos int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: pos, Msg: fmt.Sprintf(format, args...)}
}

// next scans the next token into p.tok.
func (p *parser) next() error {
	src := p.src
	for p.pos < len(src) {
		if c := src[p.pos]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			p.pos++
			continue
		}
		break
	}
	start := p.pos
	if start >= len(src) {
		p.tok = token{kind: tokEOF, pos: start}
		return nil
	}
	single := func(kind tokKind, n int) error {
		p.pos += n
		p.tok = token{kind: kind, pos: start, text: src[start:p.pos]}
		return nil
	}
	switch src[start] {
	case '(':
		return single(tokLParen, 1)
	case ')':
		return single(tokRParen, 1)
	case ',':
		return single(tokComma, 1)
	case '!':
		return single(tokNot, 1)
	case '&':
		if strings.HasPrefix(src[start:], "&&") {
			return single(tokAnd, 2)
		}
		return p.errorf(start, "a single & (want &&)")
	case '|':
		if strings.HasPrefix(src[start:], "||") {
			return single(tokOr, 2)
		}
		return p.errorf(start, "a single | (want ||)")
	case '"', '`':
		return p.scanString()
	}
	// A name, as Go spells identifiers, so that "Hôst" is reported as an
	// unknown name rather than as a stray character after "H".
	for p.pos < len(src) {
		r, size := utf8.DecodeRuneInString(src[p.pos:])
		if r != '_' && !unicode.IsLetter(r) && (p.pos == start || !unicode.IsDigit(r)) {
			break
		}
		p.pos += size
	}
	if p.pos > start {
		p.tok = token{kind: tokIdent, pos: start, text: src[start:p.pos]}
		return nil
	}
	r, _ := utf8.DecodeRuneInString(src[start:])
	return p.errorf(start, "unexpected character %q", r)
}

// scanString scans a double-quoted or raw string literal.
func (p *parser) scanString() error {
	src, start := p.src, p.pos
	quote := src[start]
	i := start + 1
	for {
		if i >= len(src) {
			return p.errorf(start, "string not terminated")
		}
		c := src[i]
		if c == quote {
			break
		}
		if quote == '"' {
			if c == '\n' {
				return p.errorf(start, "newline in string (write \\n, or use a `raw string`)")
			}
			if c == '\\' {
				i++ // whatever follows is part of the escape
			}
		}
		i++
	}
	text := src[start : i+1]
	value, err := strconv.Unquote(text)
	if err != nil {
		return &SyntaxError{Offset: start, Msg: "invalid string " + shorten(text), Err: err}
	}
	p.pos = i + 1
	p.tok = token{kind: tokString, pos: start, text: text, value: value}
	return nil
}

// parseOr parses and-expressions joined by ||.
func (p *parser) parseOr(depth int) (Expr, error) {
	left, err := p.parseAnd(depth)
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tokOr {
		if err := p.next(); err != nil {
			return nil, err
		}
		right, err := p.parseAnd(depth)
		if err != nil {
			return nil, err
		}
		left = &Or{Left: left, Right: right}
	}
	return left, nil
}

// parseAnd parses unary expressions joined by &&.
func (p *parser) parseAnd(depth int) (Expr, error) {
	left, err := p.parseUnary(depth)
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tokAnd {
		if err := p.next(); err != nil {
			return nil, err
		}
		right, err := p.parseUnary(depth)
		if err != nil {
			return nil, err
		}
		left = &And{Left: left, Right: right}
	}
	return left, nil
}

// parseUnary parses !x, (x) or a matcher.
func (p *parser) parseUnary(depth int) (Expr, error) {
	switch p.tok.kind {
	case tokNot, tokLParen:
		if depth >= MaxDepth {
			return nil, p.errorf(p.tok.pos, "nested more than %d deep", MaxDepth)
		}
		open := p.tok
		if err := p.next(); err != nil {
			return nil, err
		}
		if open.kind == tokNot {
			e, err := p.parseUnary(depth + 1)
			if err != nil {
				return nil, err
			}
			return &Not{Expr: e}, nil
		}
		e, err := p.parseOr(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, p.errorf(p.tok.pos, "expected ) to close the ( at byte %d, found %s", open.pos, p.tok.describe())
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		return e, nil
	case tokIdent:
		return p.parseMatcher()
	}
	return nil, p.errorf(p.tok.pos, "expected a matcher, ! or (, found %s", p.tok.describe())
}

// parseMatcher parses Name("value"), or Name("key", "value") for the
// matchers of two arguments.
func (p *parser) parseMatcher() (Expr, error) {
	name := p.tok
	canonical, ok := matcherNames[name.text]
	if !ok {
		return nil, p.errorf(name.pos, "unknown matcher %s (want %s)", shorten(name.text), wantMatchers())
	}
	if err := p.next(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokLParen {
		return nil, p.errorf(p.tok.pos, "expected ( after %s, found %s", canonical, p.tok.describe())
	}
	n := arity(canonical)
	var args []token
	for {
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.tok.kind != tokString {
			if p.tok.kind == tokRParen {
				return nil, p.errorf(p.tok.pos, "%s takes %s, found %s", canonical, argumentsText(n), countText(len(args)))
			}
			return nil, p.errorf(p.tok.pos, "expected a string argument to %s, found %s", canonical, p.tok.describe())
		}
		args = append(args, p.tok)
		if err := p.next(); err != nil {
			return nil, err
		}
		if len(args) == n {
			break
		}
		switch p.tok.kind {
		case tokComma:
		case tokRParen:
			return nil, p.errorf(p.tok.pos, "%s takes %s, found %s", canonical, argumentsText(n), countText(len(args)))
		default:
			return nil, p.errorf(p.tok.pos, "expected , after argument %d of %s, found %s", len(args), canonical, p.tok.describe())
		}
	}
	switch p.tok.kind {
	case tokRParen:
	case tokComma:
		return nil, p.errorf(p.tok.pos, "%s takes %s, found more", canonical, argumentsText(n))
	default:
		if n == 1 {
			return nil, p.errorf(p.tok.pos, "expected ) after the argument of %s, found %s", canonical, p.tok.describe())
		}
		return nil, p.errorf(p.tok.pos, "expected ) after the arguments of %s, found %s", canonical, p.tok.describe())
	}
	if err := p.next(); err != nil {
		return nil, err
	}
	values := make([]string, len(args))
	for i, a := range args {
		values[i] = a.value
	}
	m, err := NewMatcher(canonical, values...)
	if err != nil {
		last := args[len(args)-1]
		return nil, &SyntaxError{Offset: last.pos, Msg: canonical + ": invalid regular expression " + shorten(last.value), Err: unwrapRegexp(err)}
	}
	return m, nil
}

// wantMatchers names the supported matchers, for errors.
func wantMatchers() string {
	return strings.Join(allMatchers[:len(allMatchers)-1], ", ") + " or " + allMatchers[len(allMatchers)-1]
}

// argumentsText says how many arguments a matcher takes, for errors.
func argumentsText(n int) string {
	if n == 2 {
		return "exactly two string arguments"
	}
	return "exactly one string argument"
}

// countText says how many arguments were found, for errors.
func countText(n int) string {
	switch n {
	case 0:
		return "none"
	case 1:
		return "one"
	}
	return strconv.Itoa(n)
}

// unwrapRegexp returns the regexp package's error inside NewMatcher's.
func unwrapRegexp(err error) error {
	if u, ok := err.(interface{ Unwrap() error }); ok && u.Unwrap() != nil {
		return u.Unwrap()
	}
	return err
}
