package filter

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// pathChange is a path modifier of a RequestRedirect or URLRewrite
// filter, read against the rule's matches. One of full and prefixed is
// set.
type pathChange struct {
	// full replaces the whole path (ReplaceFullPath).
	full string
	// prefixed replaces the matched prefix (ReplacePrefixMatch).
	prefixed *prefixChange
}

// prefixChange replaces the rule's path prefix, element by element:
// with prefix /foo and replacement /xyz, /foo/bar becomes /xyz/bar, /foo
// becomes /xyz and /foo/ becomes /xyz/; with an empty replacement, /foo
// and /foo/ become /. Both are kept without their trailing slash ("" for
// "/"): Gateway API ignores it on either side.
type prefixChange struct {
	prefix, replacement string
}

// pathValue is what a replacement path may hold: the characters Gateway
// API allows in a path match, so that it stays one path (no query, no
// fragment, no space) in a Location header or a rewritten request.
var pathValue = regexp.MustCompile(`^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})+$`)

// readPathModifier checks m and reads the prefix it replaces from the
// rule's matches: ReplacePrefixMatch needs exactly one match, of type
// PathPrefix (Gateway API's validation of HTTPRoute says so for rule
// filters; the same is asked of backendRef filters, so that one
// middleware serves every router of the rule).
func readPathModifier(p *field.Path, m *gwapiv1.HTTPPathModifier, matches []gwapiv1.HTTPRouteMatch) (pathChange, *Error) {
	switch m.Type {
	case gwapiv1.FullPathHTTPPathModifier:
		if m.ReplaceFullPath == nil {
			return pathChange{}, unsupported(p.Child("replaceFullPath"), "required when type is ReplaceFullPath")
		}
		full := *m.ReplaceFullPath
		if !strings.HasPrefix(full, "/") || !pathValue.MatchString(full) {
			return pathChange{}, unsupported(p.Child("replaceFullPath"), "%s is not an absolute path", excerpt.Quote(full))
		}
		return pathChange{full: full}, nil
	case gwapiv1.PrefixMatchHTTPPathModifier:
		if m.ReplacePrefixMatch == nil {
			return pathChange{}, unsupported(p.Child("replacePrefixMatch"), "required when type is ReplacePrefixMatch")
		}
		r := *m.ReplacePrefixMatch
		if r != "" && (!strings.HasPrefix(r, "/") || !pathValue.MatchString(r)) {
			return pathChange{}, unsupported(p.Child("replacePrefixMatch"), "%s is neither empty nor an absolute path", excerpt.Quote(r))
		}
		prefix, ok := onlyPathPrefix(matches)
		if !ok {
			return pathChange{}, unsupported(p.Child("replacePrefixMatch"), "ReplacePrefixMatch needs the rule to have exactly one match, of type PathPrefix")
		}
		return pathChange{prefixed: &prefixChange{
			prefix:      strings.TrimSuffix(prefix, "/"),
			replacement: strings.TrimSuffix(r, "/"),
		}}, nil
	default:
		return pathChange{}, unsupported(p.Child("type"), "%s is not a path modifier type (ReplaceFullPath, ReplacePrefixMatch)", excerpt.Quote(string(m.Type)))
	}
}

// onlyPathPrefix is the prefix of the rule's only match, when that match
// is a PathPrefix one; no match at all is Gateway API's default, the
// prefix "/".
func onlyPathPrefix(matches []gwapiv1.HTTPRouteMatch) (string, bool) {
	switch len(matches) {
	case 0:
		return "/", true
	case 1:
	default:
		return "", false
	}
	pm := matches[0].Path
	if pm == nil {
		return "/", true
	}
	if pm.Type != nil && *pm.Type != gwapiv1.PathMatchPathPrefix {
		return "", false
	}
	if pm.Value == nil {
		return "/", true
	}
	v := *pm.Value
	if !strings.HasPrefix(v, "/") || !pathValue.MatchString(v) {
		return "", false
	}
	return v, true
}

// The regular expressions below run on an escaped path (Traefik's
// replacePathRegex) or on a whole URL (redirectRegex); quote keeps a
// literal one and literal keeps a replacement one literal ("$" opens a
// group reference in Go's regexp replacements).

func quote(s string) string   { return regexp.QuoteMeta(s) }
func literal(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// pattern is the part of a regular expression that matches a path this
// change applies to, up to the query (stop is the class of characters
// the path cannot hold: "?" in a URL, nothing in a bare path), and
// replacement what it becomes. The group "rest" holds what follows the
// prefix. A path that does not start with the prefix, element by
// element, does not match: a middleware leaves such a request alone
// (the router never sends one).
func (c *prefixChange) pattern(notStop string) (pattern, replacement string) {
	if c.replacement == "" {
		// /foo -> /, /foo/ -> /, /foo/bar -> /bar
		return quote(c.prefix) + `(?:/(?P<rest>` + notStop + `*))?`, "/${rest}"
	}
	// /foo -> /xyz, /foo/ -> /xyz/, /foo/bar -> /xyz/bar
	return quote(c.prefix) + `(?P<rest>/` + notStop + `*)?`, literal(c.replacement) + "${rest}"
}
