package rule

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

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
