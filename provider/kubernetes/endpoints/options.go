package endpoints

import (
	"fmt"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// TerminatingPolicy says what to do with endpoints that are serving but terminating (KEP-1669).
type TerminatingPolicy string

const (
	// TerminatingFallback (default): while any endpoint is ready, serving-terminating ones are kept
	// as fenced backends; when none is ready they are used as normal backends (as kube-proxy does).
	TerminatingFallback TerminatingPolicy = "fallback"
	// TerminatingFence: serving-terminating endpoints are always fenced (Traefik's behaviour).
	TerminatingFence TerminatingPolicy = "fence"
	// TerminatingExclude: serving-terminating endpoints are never used.
	TerminatingExclude TerminatingPolicy = "exclude"
)

// ParseTerminatingPolicy validates a user-given value; "" means TerminatingFallback.
// Matching ignores case and surrounding spaces. The error names the accepted values.
func ParseTerminatingPolicy(s string) (TerminatingPolicy, error) {
	switch p := TerminatingPolicy(strings.ToLower(strings.TrimSpace(s))); p {
	case "", TerminatingFallback:
		return TerminatingFallback, nil
	case TerminatingFence, TerminatingExclude:
		return p, nil
	}
	return "", fmt.Errorf("invalid terminating policy %s: accepted values are %q (default), %q and %q",
		excerpt.Quote(s), TerminatingFallback, TerminatingFence, TerminatingExclude)
}

// Options tune Select.
type Options struct {
	Terminating TerminatingPolicy // "" = fallback; an unknown value also behaves as fallback
	AllowFQDN   bool              // use slices of addressType FQDN (off by default: a hand-made FQDN slice can point the proxy anywhere)

	// AddressTypes limits the IP slices used to these types (IPv4, IPv6);
	// empty uses both. FQDN slices are governed by AllowFQDN alone.
	AddressTypes []discoveryv1.AddressType
	// Node and Zone say where the proxy runs. When set, ready endpoints are
	// narrowed by the slices' topology hints as kube-proxy does: to those
	// hinted for Node if every ready endpoint has node hints and one names
	// Node; else to those hinted for Zone if every ready endpoint has zone
	// hints and one names Zone; else all. Never to nothing.
	Node, Zone string
	// AllowLoopback lets loopback addresses through (local demos and tests).
	AllowLoopback bool
	// Managers, when not empty, lists the endpointslice.kubernetes.io/managed-by
	// values whose slices are used; other slices are ignored (CVE-2021-25740).
	Managers []string
	// PublishNotReady makes every endpoint with an address usable, whatever
	// its conditions (the Service's spec.publishNotReadyAddresses).
	PublishNotReady bool
}
