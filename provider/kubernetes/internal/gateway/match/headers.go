package match

import (
	"fmt"
	"strings"
)

// valueMatch is a header or query parameter match of either route kind:
// its type ("" for the API's default, Exact), name and value.
type valueMatch struct {
	typ, name, value string
}

// unseenHeaders are the header names Traefik never sees in a request's
// headers: Go's HTTP server moves Host into the request's Host field (on
// HTTP/1 and HTTP/2 alike) and takes Transfer-Encoding out. A match on
// either could only ever fail, so it is refused rather than built into a
// router that routes nothing.
var unseenHeaders = map[string]bool{"host": true, "transfer-encoding": true}

// headerTerms are the Header and HeaderRegexp matchers of a match's
// header matches, one for each match that counts. Header names are
// case-insensitive: of matches on equivalent names only the first counts,
// as the specification says; the others are ignored, not even checked.
// Traefik compares a value with each of the request's values of the
// header (the specification leaves repeated headers to the
// implementation), and a regular expression must match one whole.
func headerTerms(headers []valueMatch) ([]term, *FieldError) {
	var terms []term
	seen := map[string]bool{}
	for i, h := range headers {
		field := fmt.Sprintf("headers[%d]", i)
		folded := strings.ToLower(h.name)
		if seen[folded] {
			continue
		}
		seen[folded] = true
		if unseenHeaders[folded] {
			return nil, unsupported(field+".name", h.name, "Traefik cannot match this header: Go's HTTP server takes it out of the request's headers")
		}
		t, err := valueTerm(field, "Header", h)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return terms, nil
}

// queryTerms are the Query and QueryRegexp matchers of an HTTPRoute
// match's query parameter matches, one for each match that counts. Names
// are compared exactly, as the specification says; of matches on one
// name only the first counts.
// Traefik compares the value with each of the request's values of the
// parameter, where the specification recommends the first: see the
// package documentation.
func queryTerms(params []valueMatch) ([]term, *FieldError) {
	var terms []term
	seen := map[string]bool{}
	for i, q := range params {
		field := fmt.Sprintf("queryParams[%d]", i)
		if seen[q.name] {
			continue
		}
		seen[q.name] = true
		t, err := valueTerm(field, "Query", q)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return terms, nil
}

// valueTerm is matcher(name, value) for an Exact match, or
// matcherRegexp(name, whole-match expression) for a RegularExpression.
// An empty name or value, which the API does not allow, is refused:
// Traefik refuses empty arguments to any matcher.
func valueTerm(field, matcher string, m valueMatch) (term, *FieldError) {
	if m.name == "" {
		return term{}, fieldError(field+".name", m.name, "must not be empty")
	}
	if m.value == "" {
		return term{}, fieldError(field+".value", m.value, "must not be empty")
	}
	switch m.typ {
	case "", "Exact":
		return call(matcher, m.name, m.value), nil
	case "RegularExpression":
		re, err := wholeMatch(m.value)
		if err != nil {
			return term{}, &FieldError{Field: field + ".value", Value: m.value, Err: err}
		}
		return call(matcher+"Regexp", m.name, re), nil
	}
	return term{}, unsupported(field+".type", m.typ, "want Exact or RegularExpression")
}
