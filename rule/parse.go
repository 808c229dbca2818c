package rule

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

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

// parser is the state of one Parse: the rule, the scanner's position in it
// (next and scanString, in scan.go) and the token just scanned.
type parser struct {
	src string
	pos int // next byte to scan
	tok token
}

func (p *parser) errorf(pos int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: pos, Msg: fmt.Sprintf(format, args...)}
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

// parseMatcher parses Name("value"), Name("key", "value") for the
// matchers of two arguments, and Name("key") too for those whose value is
// optional.
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
	least, most := arity(canonical)
	var args []token
	for {
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.tok.kind != tokString {
			if p.tok.kind == tokRParen && len(args) < least {
				return nil, p.errorf(p.tok.pos, "%s takes %s, found %s", canonical, argumentsText(least, most), countText(len(args)))
			}
			if p.tok.kind == tokRParen {
				// Enough arguments, and a comma after the last.
				return nil, p.errorf(p.tok.pos, "expected a string argument to %s after the comma, found %s", canonical, p.tok.describe())
			}
			return nil, p.errorf(p.tok.pos, "expected a string argument to %s, found %s", canonical, p.tok.describe())
		}
		args = append(args, p.tok)
		if err := p.next(); err != nil {
			return nil, err
		}
		if len(args) == most || p.tok.kind == tokRParen && len(args) >= least {
			break
		}
		switch p.tok.kind {
		case tokComma:
		case tokRParen:
			return nil, p.errorf(p.tok.pos, "%s takes %s, found %s", canonical, argumentsText(least, most), countText(len(args)))
		default:
			return nil, p.errorf(p.tok.pos, "expected , after argument %d of %s, found %s", len(args), canonical, p.tok.describe())
		}
	}
	switch p.tok.kind {
	case tokRParen:
	case tokComma:
		return nil, p.errorf(p.tok.pos, "%s takes %s, found more", canonical, argumentsText(least, most))
	default:
		if most == 1 {
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
func argumentsText(least, most int) string {
	switch {
	case least == 1 && most == 2:
		return "one or two string arguments"
	case most == 2:
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
