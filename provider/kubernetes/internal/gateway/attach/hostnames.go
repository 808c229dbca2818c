package attach

import (
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Hostnames here are either precise ("foo.example.com") or wildcards
// ("*.example.com"). A wildcard stands for one or more labels in front of its
// suffix: "*.example.com" matches "foo.example.com" and
// "foo.bar.example.com", never "example.com". An empty listener hostname, or
// a route without hostnames, matches every host.

// isWildcard reports whether h is a wildcard hostname.
func isWildcard(h string) bool { return strings.HasPrefix(h, "*.") }

// coveredBy reports whether every host h stands for is also matched by the
// wildcard w: h (precise or wildcard) must end in w's suffix, dot included,
// so at least one more label stands in front ("example.com" does not end in
// ".example.com"; valid hostnames never start with a dot).
func coveredBy(h, w string) bool {
	return strings.HasSuffix(h, w[1:])
}

// intersectHostname returns the hostname that stands for exactly the hosts
// both a and b match, and false when they share none. Equal names are their
// own intersection; otherwise the more specific one wins if the other, a
// wildcard, covers it. Two different precise names never intersect, and
// neither do wildcards with unrelated suffixes.
func intersectHostname(a, b string) (string, bool) {
	switch {
	case a == b:
		return a, true
	case isWildcard(b) && coveredBy(a, b):
		return a, true
	case isWildcard(a) && coveredBy(b, a):
		return b, true
	}
	return "", false
}

// EffectiveHostnames returns the hostnames a route serves on a listener, and
// false when the route cannot attach there because none of its hostnames
// meet the listener's. It follows the HTTPRoute and GRPCRoute hostnames
// rules:
//
//   - a listener without hostname takes the route's hostnames as they are;
//   - a route without hostnames takes the listener's hostname;
//   - otherwise each route hostname is intersected with the listener's, the
//     ones that do not meet it are ignored, and at least one must meet it.
//
// The result keeps the route's order without duplicates; nil means every
// host (neither side names one).
func EffectiveHostnames(listener *gatewayv1.Hostname, route []gatewayv1.Hostname) ([]gatewayv1.Hostname, bool) {
	l := ""
	if listener != nil {
		l = string(*listener)
	}
	if l == "" {
		return dedupHostnames(route), true
	}
	if len(route) == 0 {
		return []gatewayv1.Hostname{gatewayv1.Hostname(l)}, true
	}
	var out []gatewayv1.Hostname
	for _, r := range route {
		if h, ok := intersectHostname(l, string(r)); ok {
			out = append(out, gatewayv1.Hostname(h))
		}
	}
	out = dedupHostnames(out)
	return out, len(out) > 0
}

// HostnamesOverlap reports whether some host is matched by both sets, nil
// standing for every host.
func HostnamesOverlap(a, b []gatewayv1.Hostname) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	for _, x := range a {
		for _, y := range b {
			if _, ok := intersectHostname(string(x), string(y)); ok {
				return true
			}
		}
	}
	return false
}

func dedupHostnames(in []gatewayv1.Hostname) []gatewayv1.Hostname {
	if len(in) == 0 {
		return nil
	}
	out := make([]gatewayv1.Hostname, 0, len(in))
	for _, h := range in {
		if !contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}
