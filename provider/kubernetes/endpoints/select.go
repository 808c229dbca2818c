package endpoints

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/validation"
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
	return "", fmt.Errorf("invalid terminating policy %q: accepted values are %q (default), %q and %q",
		s, TerminatingFallback, TerminatingFence, TerminatingExclude)
}

// Options tune Select.
type Options struct {
	Terminating TerminatingPolicy // "" = fallback; an unknown value also behaves as fallback
	AllowFQDN   bool              // use slices of addressType FQDN (off by default: a hand-made FQDN slice can point the proxy anywhere)
}

// Backend is one address and port to send traffic to.
type Backend struct {
	Address string // canonical IP text (netip.Addr.String()), or the lower-cased FQDN for FQDN slices
	Port    int32
	Fenced  bool // serving but terminating: only existing (sticky) sessions may reach it
}

// HostPort returns address:port, IPv6 in brackets (net.JoinHostPort).
func (b Backend) HostPort() string {
	return net.JoinHostPort(b.Address, strconv.Itoa(int(b.Port)))
}

// Problem is a non-fatal defect found in one slice: the bad part is dropped, the rest is used.
type Problem struct {
	Slice string // "namespace/name" of the EndpointSlice
	Field string // e.g. "endpoints[3].addresses[0]", "ports[1].port", "addressType"
	Err   error
}

// Error returns e.g. `endpointslice ns/name: endpoints[3].addresses[0]: "10.0.0.999" is not a valid IPv4 address`.
func (p *Problem) Error() string {
	if p == nil {
		return "<nil>"
	}
	msg := "<nil>"
	if p.Err != nil {
		msg = p.Err.Error()
	}
	return "endpointslice " + p.Slice + ": " + p.Field + ": " + msg
}

// Unwrap returns the underlying error.
func (p *Problem) Unwrap() error {
	if p == nil {
		return nil
	}
	return p.Err
}

// class ranks an endpoint by usability; a higher value is better.
type class uint8

const (
	classUnusable class = iota
	classServingTerminating
	classReady
)

// classify applies the condition defaults (ready unset is true, serving
// unset follows ready, terminating unset is false). An endpoint that is not
// serving is never used, whatever ready says.
func classify(c discoveryv1.EndpointConditions) class {
	ready := c.Ready == nil || *c.Ready
	serving := ready
	if c.Serving != nil {
		serving = *c.Serving
	}
	terminating := c.Terminating != nil && *c.Terminating
	switch {
	case ready && serving:
		return classReady
	case serving && terminating:
		return classServingTerminating
	}
	return classUnusable
}

// ipKey and nameKey identify a backend for deduplication.
type ipKey struct {
	ip   netip.Addr
	port int32
}

type nameKey struct {
	name string
	port int32
}

// candidate is one deduplicated backend before the terminating policy is applied.
type candidate struct {
	ip    netip.Addr // valid for IP backends, zero for FQDN ones
	text  string     // the Address to return
	port  int32
	class class
}

// selector accumulates the candidates of one Select call.
type selector struct {
	portName  string
	allowFQDN bool
	cands     []candidate
	byIP      map[ipKey]int32
	byName    map[nameKey]int32 // created on first use: FQDN slices are rare
	problems  []*Problem
}

// Select returns the backends for the Service port named portName ("" for an unnamed port)
// from all the slices of one Service, sorted, plus the problems found.
// The backends are sorted IPs first (by netip.Addr.Compare, then port), then FQDNs (by name,
// then port). The problems are sorted by Slice, then Field (indices compared numerically).
func Select(slices []*discoveryv1.EndpointSlice, portName string, opts Options) ([]Backend, []*Problem) {
	total := 0
	for _, s := range slices {
		if s == nil {
			continue
		}
		for i := range s.Endpoints {
			total += len(s.Endpoints[i].Addresses)
		}
	}

	sel := selector{
		portName:  portName,
		allowFQDN: opts.AllowFQDN,
		cands:     make([]candidate, 0, total),
		byIP:      make(map[ipKey]int32, total),
	}
	for _, s := range slices {
		if s != nil {
			sel.collect(s)
		}
	}
	slicesSortFunc(sel.problems, compareProblems)

	ready := false
	kept := 0
	for i := range sel.cands {
		switch sel.cands[i].class {
		case classReady:
			ready = true
			kept++
		case classServingTerminating:
			if opts.Terminating != TerminatingExclude {
				kept++
			}
		}
	}
	if kept == 0 {
		return nil, sel.problems
	}

	// Sort indices rather than candidates: swapping int32s is cheaper than moving structs
	// that hold pointers.
	order := make([]int32, 0, kept)
	for i := range sel.cands {
		switch sel.cands[i].class {
		case classReady:
		case classServingTerminating:
			if opts.Terminating == TerminatingExclude {
				continue
			}
		default:
			continue
		}
		order = append(order, int32(i))
	}
	cands := sel.cands
	slicesSortFunc(order, func(a, b int32) int { return compareCandidates(&cands[a], &cands[b]) })

	out := make([]Backend, len(order))
	for i, idx := range order {
		c := &cands[idx]
		out[i] = Backend{Address: c.text, Port: c.port}
		if c.class == classServingTerminating {
			switch opts.Terminating {
			case TerminatingFence:
				out[i].Fenced = true
			default: // TerminatingFallback, "" and unknown values
				out[i].Fenced = ready
			}
		}
	}
	return out, sel.problems
}

// slicesSortFunc is slices.SortFunc; Select's parameter shadows the package name.
func slicesSortFunc[E any](s []E, f func(a, b E) int) { slices.SortFunc(s, f) }

func (sel *selector) report(s *discoveryv1.EndpointSlice, field string, err error) {
	sel.problems = append(sel.problems, &Problem{Slice: sliceName(s), Field: field, Err: err})
}

// add records one address, keeping the best class when it is already known.
func (sel *selector) add(ip netip.Addr, name, text string, port int32, cl class) {
	var (
		idx int32
		ok  bool
	)
	if ip.IsValid() {
		k := ipKey{ip: ip, port: port}
		if idx, ok = sel.byIP[k]; !ok {
			sel.byIP[k] = int32(len(sel.cands))
		}
	} else {
		k := nameKey{name: name, port: port}
		if sel.byName == nil {
			sel.byName = make(map[nameKey]int32)
		}
		if idx, ok = sel.byName[k]; !ok {
			sel.byName[k] = int32(len(sel.cands))
		}
	}
	if !ok {
		sel.cands = append(sel.cands, candidate{ip: ip, text: text, port: port, class: cl})
		return
	}
	if c := &sel.cands[idx]; cl > c.class {
		c.class = cl
	}
}

// collect adds the usable addresses of one slice and reports its defects.
func (sel *selector) collect(s *discoveryv1.EndpointSlice) {
	portIdx := -1
	for i := range s.Ports {
		p := &s.Ports[i]
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		if name != sel.portName {
			continue
		}
		if p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP {
			sel.report(s, fmt.Sprintf("ports[%d].protocol", i), fmt.Errorf("port %q is %s, not TCP", name, *p.Protocol))
			continue
		}
		if p.Port == nil {
			sel.report(s, fmt.Sprintf("ports[%d].port", i), fmt.Errorf("port %q has no number", name))
			continue
		}
		portIdx = i
		break
	}
	if portIdx < 0 {
		return
	}
	port := *s.Ports[portIdx].Port
	if port < 1 || port > 65535 {
		sel.report(s, fmt.Sprintf("ports[%d].port", portIdx), fmt.Errorf("port %d is outside 1..65535", port))
		return
	}

	switch s.AddressType {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
	case discoveryv1.AddressTypeFQDN:
		if !sel.allowFQDN {
			sel.report(s, "addressType", errors.New("slices of address type FQDN are not used unless allowFQDNEndpoints is set"))
			return
		}
	default:
		sel.report(s, "addressType", fmt.Errorf("unsupported address type %q (want IPv4, IPv6 or FQDN)", string(s.AddressType)))
		return
	}

	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		cl := classify(ep.Conditions)
		for j, raw := range ep.Addresses {
			ip, name, text, err := parseAddress(s.AddressType, raw)
			if err != nil {
				sel.report(s, fmt.Sprintf("endpoints[%d].addresses[%d]", i, j), err)
				continue
			}
			sel.add(ip, name, text, port, cl)
		}
	}
}

// parseAddress checks raw against the slice's address type. It returns either a valid ip
// or a (lower-cased) name, and the canonical text of the address.
func parseAddress(t discoveryv1.AddressType, raw string) (ip netip.Addr, name, text string, err error) {
	if t == discoveryv1.AddressTypeFQDN {
		name = strings.ToLower(raw)
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return netip.Addr{}, "", "", fmt.Errorf("%q is not a valid DNS-1123 subdomain: %s", raw, strings.Join(errs, "; "))
		}
		// A dotted-quad name is dialled as that IP: treat it as one so that it
		// deduplicates and sorts with the IP backends.
		if ip, err := netip.ParseAddr(name); err == nil {
			return ip, "", canonical(ip, name), nil
		}
		return netip.Addr{}, name, name, nil
	}

	family := "IPv4"
	if t == discoveryv1.AddressTypeIPv6 {
		family = "IPv6"
	}
	ip, err = netip.ParseAddr(raw)
	switch {
	case err != nil:
		return netip.Addr{}, "", "", fmt.Errorf("%q is not a valid %s address", raw, family)
	case ip.Zone() != "":
		return netip.Addr{}, "", "", fmt.Errorf("%q is not a valid %s address: zones are not allowed", raw, family)
	case t == discoveryv1.AddressTypeIPv4 && !ip.Is4():
		return netip.Addr{}, "", "", fmt.Errorf("%q is not a valid IPv4 address: it is IPv6", raw)
	case t == discoveryv1.AddressTypeIPv6 && !ip.Is6():
		return netip.Addr{}, "", "", fmt.Errorf("%q is not a valid IPv6 address: it is IPv4", raw)
	}
	return ip, "", canonical(ip, raw), nil
}

// canonical returns ip.String(), reusing raw (no allocation) when it is already canonical.
func canonical(ip netip.Addr, raw string) string {
	var buf [64]byte
	if b := ip.AppendTo(buf[:0]); string(b) == raw {
		return raw
	}
	return ip.String()
}

func sliceName(s *discoveryv1.EndpointSlice) string {
	if s.Namespace == "" {
		return s.Name
	}
	return s.Namespace + "/" + s.Name
}

func compareCandidates(a, b *candidate) int {
	aIP, bIP := a.ip.IsValid(), b.ip.IsValid()
	switch {
	case aIP && !bIP:
		return -1
	case !aIP && bIP:
		return 1
	case aIP:
		if c := a.ip.Compare(b.ip); c != 0 {
			return c
		}
	default:
		if c := strings.Compare(a.text, b.text); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.port, b.port)
}

func compareProblems(a, b *Problem) int {
	if c := strings.Compare(a.Slice, b.Slice); c != 0 {
		return c
	}
	if c := compareNatural(a.Field, b.Field); c != 0 {
		return c
	}
	// Only reached for identical Slice and Field (e.g. the same slice listed twice).
	return strings.Compare(a.Error(), b.Error())
}

// compareNatural compares strings bytewise, except that runs of digits compare as
// numbers, so "endpoints[2]" sorts before "endpoints[10]".
func compareNatural(a, b string) int {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			na, nb := digitRun(a), digitRun(b)
			da, db := strings.TrimLeft(a[:na], "0"), strings.TrimLeft(b[:nb], "0")
			if c := cmp.Compare(len(da), len(db)); c != 0 {
				return c
			}
			if c := strings.Compare(da, db); c != 0 {
				return c
			}
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[na:], b[nb:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}
