package match

import (
	"regexp"
	"strconv"
	"strings"
)

// term is one operand of a rule's conjunction: a matcher, or matchers
// joined by || (which needs parentheses when it stands beside others).
type term struct {
	text string
	or   bool
}

// call is the matcher name("arg", ...), each argument Go-quoted, spelt
// as the rule package prints it so that a rule reads back unchanged.
func call(name string, args ...string) term {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(a))
	}
	b.WriteByte(')')
	return term{text: b.String()}
}

// anyOf joins terms with ||; one term stays as it is.
func anyOf(terms ...term) term {
	if len(terms) == 1 {
		return terms[0]
	}
	texts := make([]string, len(terms))
	for i, t := range terms {
		texts[i] = t.text
	}
	return term{text: strings.Join(texts, " || "), or: true}
}

// allOf joins terms with &&, parenthesising those that hold ||. The
// empty terms (a host part for any host) are left out.
func allOf(terms ...term) string {
	var kept []term
	for _, t := range terms {
		if t.text != "" {
			kept = append(kept, t)
		}
	}
	if len(kept) == 1 {
		return kept[0].text
	}
	var b strings.Builder
	for i, t := range kept {
		if i > 0 {
			b.WriteString(" && ")
		}
		if t.or {
			b.WriteString("(" + t.text + ")")
		} else {
			b.WriteString(t.text)
		}
	}
	return b.String()
}

// wholeMatch turns a user's regular expression into one that must match
// the whole value: ^(?:re)$. The specification leaves the dialect and
// anchoring of RegularExpression matches to the implementation; Traefik's
// matchers find the expression anywhere in the value, so without anchors
// "/v1" would also route "/api/v1/x". A whole match is what most
// implementations do and the safer reading: a partial match silently
// widens what a route takes. Whoever wants a partial match writes .*.
func wholeMatch(re string) (string, error) {
	g, err := group(re)
	if err != nil {
		return "", err
	}
	return "^" + g + "$", nil
}

// group is a user's regular expression as a group, (?:re), to stand in a
// larger one unchanged. It is compiled alone first: wrapping can make a
// bad expression valid ("a)|(b" becomes "(?:a)|(b)") and must not. The
// only valid expression that wrapping breaks ends inside \Q: quoting to
// the end of the pattern, it would swallow the closing parenthesis, so
// \E closes the quote first.
func group(re string) (string, error) {
	if _, err := regexp.Compile(re); err != nil {
		return "", regexpError(err)
	}
	g := "(?:" + re + ")"
	if _, err := regexp.Compile(g); err == nil {
		return g, nil
	}
	g = "(?:" + re + `\E)`
	if _, err := regexp.Compile(g); err != nil {
		return "", regexpError(err)
	}
	return g, nil
}
