package match

import (
	"errors"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// PathKind is the kind of an HTTPRoute's path match, in the order of
// precedence (the greater goes first).
type PathKind int

const (
	// NoPath is a GRPCRoute's: it matches a service and method instead.
	NoPath PathKind = iota
	// PathPrefix matches a path and the paths under it.
	PathPrefix
	// PathRegularExpression matches the paths that a regular expression
	// matches whole. The specification leaves its precedence to the
	// implementation: it goes after Exact and before every PathPrefix,
	// so that "/" or another broad prefix never hides it; among
	// expressions, the longer goes first.
	PathRegularExpression
	// PathExact matches one path.
	PathExact
)

// pathMatch is the term and the precedence of an HTTPRoute's path match.
type pathMatch struct {
	term   term
	kind   PathKind
	length int
}

// httpPath turns a path match into its term. A nil match, type or value
// is what the API defaults it to: PathPrefix, "/".
func httpPath(p *gatewayv1.HTTPPathMatch) (pathMatch, *FieldError) {
	typ, value := gatewayv1.PathMatchPathPrefix, "/"
	if p != nil && p.Type != nil {
		typ = *p.Type
	}
	if p != nil && p.Value != nil {
		value = *p.Value
	}
	switch typ {
	case gatewayv1.PathMatchExact, gatewayv1.PathMatchPathPrefix:
		if !strings.HasPrefix(value, "/") {
			return pathMatch{}, fieldError("path.value", value, "must start with /")
		}
		routing, err := routingPath(value)
		if err != nil {
			return pathMatch{}, fieldError("path.value", value, "%v", err)
		}
		if typ == gatewayv1.PathMatchExact {
			return pathMatch{term: call("Path", routing), kind: PathExact, length: len(routing)}, nil
		}
		return prefix(routing), nil
	case gatewayv1.PathMatchRegularExpression:
		if value == "" {
			return pathMatch{}, fieldError("path.value", value, "an empty regular expression")
		}
		re, err := wholeMatch(value)
		if err != nil {
			return pathMatch{}, &FieldError{Field: "path.value", Value: value, Err: err}
		}
		return pathMatch{term: call("PathRegexp", re), kind: PathRegularExpression, length: len(value)}, nil
	}
	return pathMatch{}, unsupported("path.type", string(typ), "want Exact, PathPrefix or RegularExpression")
}

// prefix matches a path element by element: "/foo" (or "/foo/", whose
// trailing slash the specification ignores) matches "/foo", "/foo/" and
// "/foo/bar", not "/foobar"; "/" matches every path. Traefik's
// PathPrefix is a plain string prefix, hence the pair. The length that
// ranks it is that of the value without its trailing slash, so that
// "/foo" and "/foo/", which match the same paths, tie.
func prefix(path string) pathMatch {
	trimmed := strings.TrimRight(path, "/")
	if trimmed == "" {
		return pathMatch{term: call("PathPrefix", "/"), kind: PathPrefix, length: 1}
	}
	return pathMatch{
		term:   anyOf(call("Path", trimmed), call("PathPrefix", trimmed+"/")),
		kind:   PathPrefix,
		length: len(trimmed),
	}
}

// traefikReserved are the percent-encodings Traefik leaves encoded in
// the path it routes on (it decodes every other one): those of RFC 3986's
// reserved characters, and of "%". Traefik compares them as the client
// wrote them, so only the upper-case spelling is kept: "%3a" is decoded.
var traefikReserved = map[string]bool{
	"%3A": true, "%2F": true, "%3F": true, "%23": true, "%5B": true, "%5D": true, "%40": true,
	"%21": true, "%24": true, "%26": true, "%27": true, "%28": true, "%29": true, "%2A": true,
	"%2B": true, "%2C": true, "%3B": true, "%3D": true, "%25": true,
}

// routingPath is a path value as Traefik's routing path spells the
// requests it stands for: the percent-encodings of unreserved characters
// decoded ("/a%20b" routes "/a b"), those of reserved ones kept. Without
// this, a value that encodes a character would never match, as Traefik
// compares against the decoded form.
func routingPath(value string) (string, error) {
	if !strings.Contains(value, "%") {
		return value, nil
	}
	var b strings.Builder
	for i := 0; i < len(value); i++ {
		if value[i] != '%' {
			b.WriteByte(value[i])
			continue
		}
		if i+2 >= len(value) || !isHex(value[i+1]) || !isHex(value[i+2]) {
			return "", errBadEscape
		}
		if enc := value[i : i+3]; traefikReserved[enc] {
			b.WriteString(enc)
		} else {
			b.WriteByte(unhex(value[i+1])<<4 | unhex(value[i+2]))
		}
		i += 2
	}
	return b.String(), nil
}

// errBadEscape is a "%" that does not start a percent-encoding.
var errBadEscape = errors.New(`a "%" not followed by two hexadecimal digits`)

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
