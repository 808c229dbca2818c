package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// Normalize joins the runs of letters and digits of name with single dashes:
// every run of other characters becomes one "-", and none is left at either end.
func Normalize(name string) string {
	return normalizeParts(name)
}

// normalizeParts normalises the concatenation of parts without building it.
// Runs of ASCII letters and digits, what names mostly are, are copied whole.
func normalizeParts(parts ...string) string {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	var buf strings.Builder // its String does not copy
	buf.Grow(size)
	pendingDash := false
	for _, p := range parts {
		for i := 0; i < len(p); {
			c := p[i]
			if c < utf8.RuneSelf {
				if !asciiAlnum(c) {
					i++
					pendingDash = true
					continue
				}
				j := i + 1
				for j < len(p) && asciiAlnum(p[j]) {
					j++
				}
				if pendingDash && buf.Len() > 0 {
					buf.WriteByte('-')
				}
				pendingDash = false
				buf.WriteString(p[i:j])
				i = j
				continue
			}
			r, n := utf8.DecodeRuneInString(p[i:])
			i += n
			if unicode.IsLetter(r) || unicode.IsNumber(r) {
				if pendingDash && buf.Len() > 0 {
					buf.WriteByte('-')
				}
				pendingDash = false
				buf.WriteRune(r)
				continue
			}
			pendingDash = true
		}
	}
	return buf.String()
}

func asciiAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// routerKey is the name of the router of one Ingress path.
func routerKey(namespace, ingressName, host, path string) string {
	return normalizeParts(namespace, "-", ingressName, "-", host, path)
}

// serviceKey is the name of the service of one Service port.
func serviceKey(namespace, serviceName, port string) string {
	return normalizeParts(namespace, "-", serviceName, "-", port)
}

// hashedRouterKey disambiguates routers that share a key: the key, a dash and
// the first 10 bytes of the SHA-256 of the rule, in hex.
func HashedRouterKey(key, rule string) string {
	sum := sha256.Sum256([]byte(rule))
	return key + "-" + hex.EncodeToString(sum[:10])
}

// hostRule matches the host of an Ingress rule. A wildcard host (*.foo.com)
// matches exactly one more label, as the Ingress specification says.
func hostRule(host string) string { return string(appendHostRule(nil, host)) }

func appendHostRule(buf []byte, host string) []byte {
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		return appendMatcher(buf, "HostRegexp", `^[a-zA-Z0-9-]+\.`+regexp.QuoteMeta(rest)+`$`)
	}
	return appendMatcher(buf, "Host", host)
}

// appendMatcher appends name("value"), the value Go-quoted.
func appendMatcher(buf []byte, name, value string) []byte {
	buf = append(buf, name...)
	buf = append(buf, '(')
	buf = appendQuoted(buf, value)
	return append(buf, ')')
}

// appendQuoted is strconv.AppendQuote, which hosts and paths (printable
// ASCII without quotes or backslashes, mostly) get without a look at each
// rune.
func appendQuoted(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.AppendQuote(buf, s)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// specPriority orders routers as the Ingress specification matches
// requests (routerPriority spec): exact hosts before wildcard hosts before
// rules without a host; then, for the same host, longer paths before
// shorter ones; and on the same path Exact before Prefix before
// ImplementationSpecific. With strictPrefix a Prefix path matches by
// element, so its trailing slash does not count; without, PathPrefix is a
// literal prefix and every byte counts. Traefik tries the highest priority
// first; the values stay below 1<<22, far below the priorities Traefik
// keeps for its own routers, and above 0, which means "none".
func specPriority(host string, p netv1.HTTPIngressPath, strictPrefix bool) int {
	const pathBits = 20
	hostRank := HostRank(host)
	path := p.Path
	typeRank := 0 // ImplementationSpecific, or no pathType
	if p.PathType != nil {
		switch *p.PathType {
		case netv1.PathTypeExact:
			typeRank = 2
		case netv1.PathTypePrefix:
			typeRank = 1
			if strictPrefix {
				path = strings.TrimRight(path, "/")
			}
		}
	}
	length := min(len(path), 1<<(pathBits-2)-1)
	return (hostRank<<pathBits | length<<2 | typeRank) + 1
}

// HostRank is how specific a rule's host is: 2 for an exact host, 1 for
// a wildcard, 0 for none. A more specific host is tried first.
func HostRank(host string) int {
	switch {
	case strings.HasPrefix(host, "*."):
		return 1
	case host != "":
		return 2
	}
	return 0
}

// checkHost refuses a wildcard host whose rule Traefik could not compile
// (one that is not valid UTF-8).
func checkHost(host string) error {
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		if _, err := regexp.Compile(`^[a-zA-Z0-9-]+\.` + regexp.QuoteMeta(rest) + `$`); err != nil {
			return fmt.Errorf("wildcard host %s does not make a valid HostRegexp: %w", excerpt.Quote(host), regexpError(err))
		}
	}
	return nil
}

// checkPath refuses a path that the router.pathmatcher annotation makes a
// PathRegexp but that is not a regular expression.
func checkPath(p netv1.HTTPIngressPath, matcher string) error {
	implementationSpecific := p.PathType == nil || *p.PathType == "" || *p.PathType == netv1.PathTypeImplementationSpecific
	if matcher == "PathRegexp" && implementationSpecific && p.Path != "" {
		if _, err := regexp.Compile(p.Path); err != nil {
			return fmt.Errorf("path %s is not a regular expression (router.pathmatcher is PathRegexp): %w", excerpt.Quote(p.Path), regexpError(err))
		}
	}
	return nil
}

// regexpError is an error of regexp.Compile, whose text holds the part of
// the expression at fault (all of it, for some errors), with that part cut
// as excerpt cuts it.
func regexpError(err error) error {
	var se *syntax.Error
	if errors.As(err, &se) && len(se.Expr) > excerpt.Max {
		return &syntax.Error{Code: se.Code, Expr: excerpt.Text(se.Expr)}
	}
	return err
}

// pathRule matches the path of an Ingress path. matcher is the
// router.pathmatcher annotation, used for ImplementationSpecific paths.
func pathRule(pathType *netv1.PathType, path, matcher string, strictPrefix bool) string {
	return string(appendPathRule(nil, pathType, path, matcher, strictPrefix))
}

func appendPathRule(buf []byte, pathType *netv1.PathType, path, matcher string, strictPrefix bool) []byte {
	pt := netv1.PathTypeImplementationSpecific
	if pathType != nil && *pathType != "" {
		pt = *pathType
	}
	switch pt {
	case netv1.PathTypeExact:
		return appendMatcher(buf, "Path", path)
	case netv1.PathTypePrefix:
		if strictPrefix {
			return appendStrictPrefixRule(buf, path)
		}
		return appendMatcher(buf, "PathPrefix", path)
	default:
		if matcher == "" {
			matcher = "PathPrefix"
		}
		return appendMatcher(buf, matcher, path)
	}
}

// appendStrictPrefixRule matches path element by element: /foo matches /foo,
// /foo/ and /foo/bar, never /foobar; a trailing slash in the Ingress is ignored.
func appendStrictPrefixRule(buf []byte, path string) []byte {
	trimmed := strings.TrimRight(path, "/")
	if trimmed == "" {
		return append(buf, `PathPrefix("/")`...)
	}
	buf = append(buf, '(')
	buf = appendMatcher(buf, "Path", trimmed)
	buf = append(buf, " || "...)
	buf = appendMatcher(buf, "PathPrefix", trimmed+"/")
	return append(buf, ')')
}

// buildRule is the rule of one Ingress path: its host and path matchers
// joined with &&. Values are Go-quoted, so no host or path can add a matcher.
func buildRule(host string, p netv1.HTTPIngressPath, matcher string, strictPrefix bool) string {
	if host == "" && p.Path == "" {
		return `PathPrefix("/")`
	}
	var scratch [128]byte
	buf := scratch[:0]
	if host != "" {
		buf = appendHostRule(buf, host)
	}
	if p.Path != "" {
		if host != "" {
			buf = append(buf, " && "...)
		}
		buf = appendPathRule(buf, p.PathType, p.Path, matcher, strictPrefix)
	}
	return string(buf)
}
