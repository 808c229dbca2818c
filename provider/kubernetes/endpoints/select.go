package endpoints

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// candidate is one copy of an address read from a slice.
type candidate struct {
	ip    netip.Addr // valid for IP backends, zero for FQDN ones
	text  string     // the Address to return
	port  int32
	class class
	hints *discoveryv1.EndpointHints // of the copy that gave the class; shared with the slice
	url   string                     // the prepared URL of a prepared slice's address, else ""
}

// selector holds what collect needs across the slices of one Select call
// and accumulates the problems found. The candidates are passed to collect
// and returned rather than kept here: storing them through the pointer
// would make their backing array escape, and Select keeps it on the stack
// when it is small.
type selector struct {
	portName string
	opts     Options
	problems []*Problem
}

// smallCands is how many candidates (and sort keys) Select keeps in arrays
// on its stack: enough for the common Service, small enough for the frame.
const smallCands = 32

// Select returns the backends for the Service port named portName ("" for an unnamed port)
// from all the slices of one Service, sorted, plus the problems found.
// The backends are sorted IPs first (by netip.Addr.Compare, then port), then FQDNs (by name,
// then port). The problems are sorted by Slice, then Field (indices compared numerically).
func Select(slices []*discoveryv1.EndpointSlice, portName string, opts Options) ([]Backend, []*Problem) {
	return AppendSelect(nil, slices, portName, opts)
}

// AppendSelect is Select appending the backends to dst, so that a caller
// that turns them into something else at once (server URLs) can reuse one
// buffer for every Service.
func AppendSelect(dst []Backend, slices []*discoveryv1.EndpointSlice, portName string, opts Options) ([]Backend, []*Problem) {
	total := 0
	for _, s := range slices {
		if s == nil {
			continue
		}
		for i := range s.Endpoints {
			total += len(s.Endpoints[i].Addresses)
		}
	}

	sel := selector{portName: portName, opts: opts}
	// Few candidates (the common case) stay on the stack.
	var candBuf [smallCands]candidate
	cands := candBuf[:0]
	if total > smallCands {
		cands = make([]candidate, 0, total)
	}
	// Read the slices in name order, so that when two copies of an address
	// are equally good the same one (and its hints) wins whatever order the
	// informer lists them in: the output depends on the cluster only.
	ordered := slices
	if len(slices) > 1 && !sortedByName(slices) {
		ordered = make([]*discoveryv1.EndpointSlice, len(slices))
		copy(ordered, slices)
		slicesSortFunc(ordered, compareSliceNames)
	}
	for _, s := range ordered {
		if s != nil {
			cands = sel.collect(s, cands)
		}
	}
	slicesSortFunc(sel.problems, compareProblems)
	if len(cands) == 0 {
		return dst, sel.problems
	}

	// Deduplicate by sorting: the copies of one address and port end up
	// side by side, the best class first and, among equals, the one read
	// first. Sorting indices is cheaper than moving candidates, and the
	// sorted order is also the output order. When every candidate is an
	// IPv4 address (the common case), dedupPacked sorts integer keys
	// instead of calling a comparison function; when every one is an IPv6
	// address, dedupPacked6 sorts keys of three words.
	var orderBuf [smallCands]int32
	order := orderBuf[:0]
	if len(cands) > smallCands {
		order = make([]int32, 0, len(cands))
	}
	var uniq []int32
	switch {
	case len(cands) > maxPackedCands:
		uniq = dedupGeneral(cands, order)
	case allIPv4(cands):
		uniq = dedupPacked(cands, order)
	case allIPv6(cands):
		uniq = dedupPacked6(cands, order)
	default: // names, or both families
		uniq = dedupGeneral(cands, order)
	}

	return finish(dst, cands, uniq, opts), sel.problems
}

// finish applies topology and the terminating policy to the unique
// candidates cands[uniq[...]], in output order, and appends the backends
// they give to dst.
func finish(dst []Backend, cands []candidate, uniq []int32, opts Options) []Backend {
	if opts.Node != "" || opts.Zone != "" {
		applyTopology(cands, uniq, opts.Node, opts.Zone)
	}

	ready := false
	kept := 0
	for _, idx := range uniq {
		switch cands[idx].class {
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
		return dst
	}

	out := dst
	if cap(out)-len(out) < kept {
		out = append(make([]Backend, 0, len(dst)+kept), dst...)
	}
	for _, idx := range uniq {
		c := &cands[idx]
		b := Backend{Address: c.text, Port: c.port, url: c.url}
		switch c.class {
		case classReady:
		case classServingTerminating:
			switch opts.Terminating {
			case TerminatingExclude:
				continue
			case TerminatingFence:
				b.Fenced = true
			default: // TerminatingFallback, "" and unknown values
				b.Fenced = ready
			}
		default:
			continue
		}
		out = append(out, b)
	}
	return out
}

func compareSliceNames(a, b *discoveryv1.EndpointSlice) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

func sortedByName(list []*discoveryv1.EndpointSlice) bool {
	for i := 1; i < len(list); i++ {
		if compareSliceNames(list[i-1], list[i]) > 0 {
			return false
		}
	}
	return true
}

// slicesSortFunc is slices.SortFunc; Select's parameter shadows the package name.
func slicesSortFunc[E any](s []E, f func(a, b E) int) { slices.SortFunc(s, f) }

func (sel *selector) report(s *discoveryv1.EndpointSlice, field string, err error) {
	sel.problems = append(sel.problems, &Problem{Slice: sliceName(s), Field: field, Err: err})
}

// wanted says whether the slice may be read at all: managed by one of the
// managers the options list (reporting it when not), and not of the other
// family of a dual-stack Service.
func (sel *selector) wanted(s *discoveryv1.EndpointSlice) bool {
	if len(sel.opts.Managers) > 0 {
		manager := s.Labels[discoveryv1.LabelManagedBy]
		if !slices.Contains(sel.opts.Managers, manager) {
			sel.report(s, "metadata.labels["+discoveryv1.LabelManagedBy+"]",
				fmt.Errorf("managed by %s, which endpointSliceManagers does not list: the slice is ignored", excerpt.Quote(manager)))
			return false
		}
	}
	ip := s.AddressType == discoveryv1.AddressTypeIPv4 || s.AddressType == discoveryv1.AddressTypeIPv6
	return !ip || len(sel.opts.AddressTypes) == 0 || slices.Contains(sel.opts.AddressTypes, s.AddressType)
}

// collect appends the usable addresses of one slice to cands and reports its defects.
func (sel *selector) collect(s *discoveryv1.EndpointSlice, cands []candidate) []candidate {
	if !sel.wanted(s) {
		return cands
	}
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
			sel.report(s, fmt.Sprintf("ports[%d].protocol", i), fmt.Errorf("port %s is %s, not TCP", excerpt.Quote(name), excerpt.Text(string(*p.Protocol))))
			continue
		}
		if p.Port == nil {
			sel.report(s, fmt.Sprintf("ports[%d].port", i), fmt.Errorf("port %s has no number", excerpt.Quote(name)))
			continue
		}
		portIdx = i
		break
	}
	if portIdx < 0 {
		return cands
	}
	port := *s.Ports[portIdx].Port
	if port < 1 || port > 65535 {
		sel.report(s, fmt.Sprintf("ports[%d].port", portIdx), fmt.Errorf("port %d is outside 1..65535", port))
		return cands
	}

	switch s.AddressType {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
	case discoveryv1.AddressTypeFQDN:
		if !sel.opts.AllowFQDN {
			sel.report(s, "addressType", errors.New("slices of address type FQDN are not used unless allowFQDNEndpoints is set"))
			return cands
		}
	default:
		sel.report(s, "addressType", fmt.Errorf("unsupported address type %s (want IPv4, IPv6 or FQDN)", excerpt.Quote(string(s.AddressType))))
		return cands
	}

	refused, firstRefused, firstReason := 0, "", ""
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		cl := classReady
		if !sel.opts.PublishNotReady {
			cl = classify(ep.Conditions)
		}
		for j, raw := range ep.Addresses {
			// Fast path: a canonical dotted quad in an IPv4 slice is valid
			// and is its own canonical text, and most addresses are in
			// none of the ranges RefusedAddress refuses.
			switch s.AddressType {
			case discoveryv1.AddressTypeIPv4:
				if a4, ok := parseCanonicalIPv4(raw); ok && !maybeRefusedIPv4(a4) {
					cands = append(cands, candidate{ip: netip.AddrFrom4(a4), text: raw, port: port, class: cl, hints: ep.Hints})
					continue
				}
			case discoveryv1.AddressTypeIPv6:
				// The same for the canonical text of an IPv6 address.
				if a16, ok := parseCanonicalIPv6(raw); ok && !maybeRefusedIPv6(a16) {
					cands = append(cands, candidate{ip: netip.AddrFrom16(a16), text: raw, port: port, class: cl, hints: ep.Hints})
					continue
				}
			}
			ip, name, text, err := parseAddress(s.AddressType, raw)
			if err != nil {
				sel.report(s, fmt.Sprintf("endpoints[%d].addresses[%d]", i, j), err)
				continue
			}
			reason := ""
			if ip.IsValid() {
				reason = RefusedAddress(ip, sel.opts.AllowLoopback)
			} else {
				reason = RefusedName(name, sel.opts.AllowLoopback)
			}
			if reason != "" {
				if refused == 0 {
					firstRefused, firstReason = fmt.Sprintf("endpoints[%d].addresses[%d]", i, j), excerpt.Quote(raw)+" is "+reason
				}
				refused++
				continue
			}
			cands = append(cands, candidate{ip: ip, text: text, port: port, class: cl, hints: ep.Hints})
		}
	}
	if refused > 0 {
		// Once per slice: a hostile slice may hold thousands of them.
		msg := firstReason + ": never used as a server"
		if refused > 1 {
			msg += fmt.Sprintf(" (%d refused addresses in this slice)", refused)
		}
		sel.report(s, firstRefused, errors.New(msg))
	}
	return cands
}

// parseAddress checks raw against the slice's address type. It returns either a valid ip
// or a (lower-cased) name, and the canonical text of the address.
func parseAddress(t discoveryv1.AddressType, raw string) (ip netip.Addr, name, text string, err error) {
	if t == discoveryv1.AddressTypeFQDN {
		name = strings.ToLower(raw)
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid DNS-1123 subdomain: %s", excerpt.Quote(raw), strings.Join(errs, "; "))
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
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid %s address", excerpt.Quote(raw), family)
	case ip.Zone() != "":
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid %s address: zones are not allowed", excerpt.Quote(raw), family)
	case t == discoveryv1.AddressTypeIPv4 && !ip.Is4():
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid IPv4 address: it is IPv6", excerpt.Quote(raw))
	case t == discoveryv1.AddressTypeIPv6 && !ip.Is6():
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid IPv6 address: it is IPv4", excerpt.Quote(raw))
	case t == discoveryv1.AddressTypeIPv6 && ip.Is4In6():
		// As Kubernetes validates slices: an IPv4-mapped address is IPv4.
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid IPv6 address: it is an IPv4-mapped address", excerpt.Quote(raw))
	}
	return ip, "", canonical(ip, raw), nil
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
