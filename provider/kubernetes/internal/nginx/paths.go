package nginx

import (
	"fmt"
	"regexp"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// How ingress-nginx matches paths (its locations), and the Traefik rule
// of each:
//   - on a host in regex mode (hostFacts.regex) every path, whatever its
//     type, is a case-insensitive regular expression anchored at the
//     start: PathRegexp("(?i)^path");
//   - else Exact is the path itself: Path("/foo");
//   - Prefix /foo is /foo itself and everything under /foo/ (a location
//     "/foo/" and an exact "= /foo"): Path("/foo") || PathPrefix("/foo/");
//     a Prefix path that ends with a slash, and "/", is a plain prefix;
//   - ImplementationSpecific is a plain nginx prefix: PathPrefix("/foo")
//     matches /foobar too.
//
// Which router wins is nginx's order too (pathPriority): an exact host
// before a wildcard one before none; then an exact location before any
// prefix; then the longer path.

// checkPath refuses a path the rule could not match as nginx would.
func checkPath(p netv1.HTTPIngressPath, regex bool) error {
	if !regex {
		if !strings.HasPrefix(p.Path, "/") {
			return fmt.Errorf("path %q must start with /", p.Path)
		}
		return nil
	}
	if _, err := regexp.Compile("(?i)^" + p.Path); err != nil {
		return fmt.Errorf("path %q is not a regular expression Go's RE2 can compile (a PCRE feature such as a look-ahead or a back-reference?): %w", p.Path, err)
	}
	return nil
}

// pathRule is the rule of a path on host.
func pathRule(host string, p netv1.HTTPIngressPath, regex bool) string {
	var match string
	switch {
	case regex:
		match = translate.Matcher("PathRegexp", "(?i)^"+p.Path)
	case isType(p, netv1.PathTypeExact):
		match = translate.Matcher("Path", p.Path)
	case isType(p, netv1.PathTypePrefix) && !strings.HasSuffix(p.Path, "/"):
		match = "(" + translate.Matcher("Path", p.Path) + " || " + translate.Matcher("PathPrefix", p.Path+"/") + ")"
	default:
		match = translate.Matcher("PathPrefix", p.Path)
	}
	if host == "" {
		return match
	}
	return translate.HostRule(host) + " && " + match
}

// pathPriority is the router priority of a path on host: nginx's order,
// above 0 (none) and below 1<<24, odd (a canary's routers take the even
// one above). Between two paths that nginx would rank alike, a path of
// the host's owner namespace (owner) comes first, so that another
// namespace's path never ties with one of the owner's and takes its
// requests at random (hostfacts.go).
func pathPriority(host string, p netv1.HTTPIngressPath, regex, owner bool) int {
	hostRank := translate.HostRank(host)
	exact := 0
	if !regex && isType(p, netv1.PathTypeExact) {
		exact = 1
	}
	length := min(len(p.Path), 1<<19-1)
	ownerBit := 0
	if owner {
		ownerBit = 1
	}
	return hostRank<<22 | exact<<21 | length<<2 | ownerBit<<1 | 1
}

func isType(p netv1.HTTPIngressPath, t netv1.PathType) bool {
	return p.PathType != nil && *p.PathType == t
}
