package ingress

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	netv1 "k8s.io/api/networking/v1"
)

// Normalize joins the runs of letters and digits of name with single dashes:
// every run of other characters becomes one "-", and none is left at either end.
func Normalize(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	pendingDash := false
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if pendingDash && b.Len() > 0 {
				b.WriteByte('-')
			}
			pendingDash = false
			b.WriteRune(r)
			continue
		}
		pendingDash = true
	}
	return b.String()
}

// routerKey is the name of the router of one Ingress path.
func routerKey(namespace, ingressName, host, path string) string {
	return Normalize(namespace + "-" + ingressName + "-" + host + path)
}

// serviceKey is the name of the service of one Service port.
func serviceKey(namespace, serviceName, port string) string {
	return Normalize(namespace + "-" + serviceName + "-" + port)
}

// hashedRouterKey disambiguates routers that share a key: the key, a dash and
// the first 10 bytes of the SHA-256 of the rule, in hex.
func hashedRouterKey(key, rule string) string {
	sum := sha256.Sum256([]byte(rule))
	return key + "-" + hex.EncodeToString(sum[:10])
}

// hostRule matches the host of an Ingress rule. A wildcard host (*.foo.com)
// matches exactly one more label, as the Ingress specification says.
func hostRule(host string) string {
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		return fmt.Sprintf("HostRegexp(%q)", `^[a-zA-Z0-9-]+\.`+regexp.QuoteMeta(rest)+`$`)
	}
	return fmt.Sprintf("Host(%q)", host)
}

// pathRule matches the path of an Ingress path. matcher is the
// router.pathmatcher annotation, used for ImplementationSpecific paths.
func pathRule(pathType *netv1.PathType, path, matcher string, strictPrefix bool) string {
	pt := netv1.PathTypeImplementationSpecific
	if pathType != nil && *pathType != "" {
		pt = *pathType
	}
	switch pt {
	case netv1.PathTypeExact:
		return fmt.Sprintf("Path(%q)", path)
	case netv1.PathTypePrefix:
		if strictPrefix {
			return strictPrefixRule(path)
		}
		return fmt.Sprintf("PathPrefix(%q)", path)
	default:
		if matcher == "" {
			matcher = "PathPrefix"
		}
		return fmt.Sprintf("%s(%q)", matcher, path)
	}
}

// strictPrefixRule matches path element by element: /foo matches /foo, /foo/
// and /foo/bar, never /foobar; a trailing slash in the Ingress is ignored.
func strictPrefixRule(path string) string {
	trimmed := strings.TrimRight(path, "/")
	if trimmed == "" {
		return `PathPrefix("/")`
	}
	return fmt.Sprintf("(Path(%q) || PathPrefix(%q))", trimmed, trimmed+"/")
}

// buildRule is the rule of one Ingress path: its host and path matchers
// joined with &&. Values are Go-quoted, so no host or path can add a matcher.
func buildRule(host string, p netv1.HTTPIngressPath, matcher string, strictPrefix bool) string {
	var parts []string
	if host != "" {
		parts = append(parts, hostRule(host))
	}
	if p.Path != "" {
		parts = append(parts, pathRule(p.PathType, p.Path, matcher, strictPrefix))
	}
	if len(parts) == 0 {
		return `PathPrefix("/")`
	}
	return strings.Join(parts, " && ")
}
