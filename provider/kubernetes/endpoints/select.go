package endpoints

import (
	"cmp"
	"encoding/binary"
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

	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/internal/natural"
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

// Backend is one address and port to send traffic to.
type Backend struct {
	Address string // canonical IP text (netip.Addr.String()), or the lower-cased FQDN for FQDN slices
	Port    int32
	Fenced  bool // serving but terminating: only existing (sticky) sessions may reach it

	url string // scheme://host:port, written by Prepare, when the backend came from a prepared slice
}

// URL returns scheme://host:port of the backend when Prepare wrote it for
// that scheme (a backend that AppendSelectPrepared took from a prepared
// slice), without building a string; ok is false otherwise.
func (b Backend) URL(scheme string) (url string, ok bool) {
	n := len(scheme)
	if len(b.url) > n+3 && b.url[:n] == scheme && b.url[n:n+3] == "://" {
		return b.url, true
	}
	return "", false
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

// dedupGeneral sorts the indices of cands (appended to order, which is
// empty) and returns them with every copy but the best of each address and
// port left out.
func dedupGeneral(cands []candidate, order []int32) []int32 {
	for i := range cands {
		order = append(order, int32(i))
	}
	slicesSortFunc(order, func(a, b int32) int {
		ca, cb := &cands[a], &cands[b]
		if c := compareCandidates(ca, cb); c != 0 {
			return c
		}
		if ca.class != cb.class {
			return cmp.Compare(cb.class, ca.class)
		}
		return cmp.Compare(a, b)
	})
	uniq := order[:0]
	for _, idx := range order {
		if n := len(uniq); n > 0 && compareCandidates(&cands[uniq[n-1]], &cands[idx]) == 0 {
			continue
		}
		uniq = append(uniq, idx)
	}
	return uniq
}

// The packed sort key of dedupPacked, from the most significant bit: the
// IPv4 address (32 bits), the port (16), the class inverted so that the best
// sorts first (2), the index of the candidate (the rest).
const (
	packedIndexBits = 14
	maxPackedCands  = 1 << packedIndexBits
	packedClassBits = 2
	packedSameShift = packedIndexBits + packedClassBits // key >> packedSameShift is address and port
)

// packedTail is what the packed sort keys hold after the address: the
// port, the class inverted and the index i of candidate c.
func packedTail(c *candidate, i int) uint64 {
	return uint64(uint16(c.port))<<packedSameShift | uint64(classReady-c.class)<<packedIndexBits | uint64(i)
}

// allIPv4 says whether every candidate has an IPv4 address (the common case).
func allIPv4(cands []candidate) bool {
	for i := range cands {
		if !cands[i].ip.Is4() {
			return false
		}
	}
	return true
}

// dedupPacked does what dedupGeneral does, faster, for at most
// maxPackedCands candidates that all have IPv4 addresses: each one's sort
// order is packed in a uint64, so that sorting needs no comparison function.
// Between IPv4 addresses netip.Addr.Compare is the order of their 32 bits,
// so the keys sort as dedupGeneral's comparison does.
func dedupPacked(cands []candidate, order []int32) []int32 {
	var keyBuf [smallCands]uint64
	keys := keyBuf[:0]
	if len(cands) > smallCands {
		keys = make([]uint64, 0, len(cands))
	}
	for i := range cands {
		c := &cands[i]
		a4 := c.ip.As4()
		key := uint64(binary.BigEndian.Uint32(a4[:]))<<32 | packedTail(c, i)
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for i, key := range keys {
		if i > 0 && key>>packedSameShift == keys[i-1]>>packedSameShift {
			continue // a worse (or later) copy of the previous one
		}
		order = append(order, int32(key&(maxPackedCands-1)))
	}
	return order
}

// allIPv6 says whether every candidate has an IPv6 address.
func allIPv6(cands []candidate) bool {
	for i := range cands {
		if !cands[i].ip.Is6() {
			return false
		}
	}
	return true
}

// key6 is the sort key of dedupPacked6: the address in two halves, then
// packedTail.
type key6 struct{ hi, lo, rest uint64 }

func compareKey6(a, b key6) int {
	switch {
	case a.hi != b.hi:
		return cmp.Compare(a.hi, b.hi)
	case a.lo != b.lo:
		return cmp.Compare(a.lo, b.lo)
	}
	return cmp.Compare(a.rest, b.rest)
}

// dedupPacked6 is dedupPacked for candidates that all have IPv6 addresses
// (none has a zone: parseAddress refuses them). Between such addresses
// netip.Addr.Compare is the order of their 128 bits, high half first.
func dedupPacked6(cands []candidate, order []int32) []int32 {
	var keyBuf [smallCands]key6
	keys := keyBuf[:0]
	if len(cands) > smallCands {
		keys = make([]key6, 0, len(cands))
	}
	for i := range cands {
		c := &cands[i]
		a := c.ip.As16()
		keys = append(keys, key6{
			hi:   binary.BigEndian.Uint64(a[:8]),
			lo:   binary.BigEndian.Uint64(a[8:]),
			rest: packedTail(c, i),
		})
	}
	slices.SortFunc(keys, compareKey6)
	for i, k := range keys {
		if i > 0 {
			prev := keys[i-1]
			if k.hi == prev.hi && k.lo == prev.lo && k.rest>>packedSameShift == prev.rest>>packedSameShift {
				continue // a worse (or later) copy of the previous one
			}
		}
		order = append(order, int32(k.rest&(maxPackedCands-1)))
	}
	return order
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

// applyTopology narrows the ready candidates by their hints, as kube-proxy
// does across all slices of a Service: to the endpoints hinted for node if
// every ready endpoint has node hints and one names node; else to those
// hinted for zone under the same rule; else it leaves them all. Endpoints it
// leaves out are marked unusable. It never leaves no ready endpoint.
func applyTopology(cands []candidate, uniq []int32, node, zone string) {
	anyReady := false
	allNode, nodeMatch := node != "", false
	allZone, zoneMatch := zone != "", false
	for _, idx := range uniq {
		c := &cands[idx]
		if c.class != classReady {
			continue
		}
		anyReady = true
		if c.hints == nil || len(c.hints.ForNodes) == 0 {
			allNode = false
		} else if hintedForNode(c.hints, node) {
			nodeMatch = true
		}
		if c.hints == nil || len(c.hints.ForZones) == 0 {
			allZone = false
		} else if hintedForZone(c.hints, zone) {
			zoneMatch = true
		}
	}
	if !anyReady {
		return
	}
	var keep func(*discoveryv1.EndpointHints) bool
	switch {
	case allNode && nodeMatch:
		keep = func(h *discoveryv1.EndpointHints) bool { return hintedForNode(h, node) }
	case allZone && zoneMatch:
		keep = func(h *discoveryv1.EndpointHints) bool { return hintedForZone(h, zone) }
	default:
		return
	}
	for _, idx := range uniq {
		if c := &cands[idx]; c.class == classReady && !keep(c.hints) {
			c.class = classUnusable
		}
	}
}

func hintedForNode(h *discoveryv1.EndpointHints, node string) bool {
	for _, n := range h.ForNodes {
		if n.Name == node {
			return true
		}
	}
	return false
}

func hintedForZone(h *discoveryv1.EndpointHints, zone string) bool {
	for _, z := range h.ForZones {
		if z.Name == zone {
			return true
		}
	}
	return false
}

// Cloud metadata services: never a backend, whatever a slice says.
var metadataAddresses = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, ...
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
}

var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

// RefusedAddress says why ip must never be a server ("" when it may be):
// unspecified, link-local, multicast, broadcast, a cloud metadata address,
// or loopback unless allowLoopback.
func RefusedAddress(ip netip.Addr, allowLoopback bool) string {
	ip = ip.Unmap()
	switch {
	case ip.IsUnspecified() || (ip.Is4() && thisNetwork.Contains(ip)):
		return "unspecified"
	case slices.Contains(metadataAddresses, ip):
		return "a cloud metadata address"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsMulticast() || ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	case ip.IsLoopback() && !allowLoopback:
		return "loopback (allowLoopbackEndpoints is off)"
	}
	return ""
}

// maybeRefusedIPv4 says whether RefusedAddress may refuse a: it is false for
// every address outside 0/8, 100/8 (a metadata address), 127/8, 169/8
// (link-local and metadata addresses) and 224/3 (multicast, broadcast and
// reserved), for which RefusedAddress returns "" whatever allowLoopback.
func maybeRefusedIPv4(a [4]byte) bool {
	switch a[0] {
	case 0, 100, 127, 169:
		return true
	}
	return a[0] >= 224
}

// parseCanonicalIPv4 parses s if it is an IPv4 address in canonical form:
// four decimal octets of at most 255 without leading zeros, separated by
// dots. Such a string is what netip.Addr.String returns for the address.
// Any other string is left to netip.ParseAddr.
func parseCanonicalIPv4(s string) (a [4]byte, ok bool) {
	field, digits, val := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if digits == 1 && val == 0 {
				return a, false // leading zero
			}
			val = val*10 + int(c-'0')
			if val > 255 {
				return a, false
			}
			digits++
		case c == '.' && digits > 0 && field < 3:
			a[field] = byte(val)
			field, digits, val = field+1, 0, 0
		default:
			return a, false
		}
	}
	if field != 3 || digits == 0 {
		return a, false
	}
	a[3] = byte(val)
	return a, true
}

// maybeRefusedIPv6 says whether RefusedAddress may refuse a, an IPv6
// address: it is false for every address outside ::/16 (unspecified,
// loopback, IPv4-mapped and -compatible), fe80::/10 (link-local), ff00::/8
// (multicast) and the metadata address fd00:ec2::254, for which
// RefusedAddress returns "" whatever allowLoopback.
func maybeRefusedIPv6(a [16]byte) bool {
	switch {
	case a[0] == 0 && a[1] == 0, a[0] == 0xff, a[0] == 0xfe && a[1]&0xc0 == 0x80:
		return true
	}
	return a == metadataIPv6
}

var metadataIPv6 = netip.MustParseAddr("fd00:ec2::254").As16()

// parseCanonicalIPv6 parses s if it is an IPv6 address written as
// netip.Addr.String writes it (RFC 5952): eight groups of one to four
// lower-case hex digits without leading zeros, separated by colons, with
// the longest run of two or more zero groups (the first of equal runs)
// written "::", no zone, and not an IPv4-mapped address (which String
// writes with a dotted quad). Any other string is left to netip.ParseAddr.
func parseCanonicalIPv6(s string) (a [16]byte, ok bool) {
	if len(s) < 2 || len(s) > len("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff") {
		return a, false
	}
	var groups [8]uint16
	n, gap, i := 0, -1, 0 // groups read, where "::" stands (in groups), position in s
	if s[0] == ':' {
		if s[1] != ':' {
			return a, false
		}
		gap, i = 0, 2
	}
	for i < len(s) {
		start, v := i, 0
	hex:
		for i < len(s) && i-start < 5 {
			switch c := s[i]; {
			case c >= '0' && c <= '9':
				v = v<<4 | int(c-'0')
			case c >= 'a' && c <= 'f':
				v = v<<4 | int(c-'a'+10)
			default:
				break hex
			}
			i++
		}
		if digits := i - start; digits == 0 || digits > 4 || (digits > 1 && s[start] == '0') || n == len(groups) {
			return a, false
		}
		groups[n] = uint16(v)
		n++
		if i == len(s) {
			break
		}
		if s[i] != ':' || i+1 == len(s) {
			return a, false
		}
		i++
		if s[i] == ':' {
			if gap >= 0 {
				return a, false
			}
			gap = n
			i++
		}
	}
	// Spread the groups around the gap, and check that the gap is where
	// netip puts it: the first longest run of two or more zero groups.
	var full [8]uint16
	run := 0
	if gap < 0 {
		if n != len(groups) {
			return a, false
		}
		full = groups
	} else {
		run = len(full) - n
		if run < 2 {
			return a, false
		}
		copy(full[:gap], groups[:gap])
		copy(full[gap+run:], groups[gap:n])
	}
	bestStart, bestLen := -1, 1
	for j := 0; j < len(full); {
		if full[j] != 0 {
			j++
			continue
		}
		k := j
		for k < len(full) && full[k] == 0 {
			k++
		}
		if k-j > bestLen {
			bestStart, bestLen = j, k-j
		}
		j = k
	}
	if (gap < 0 && bestStart >= 0) || (gap >= 0 && (bestStart != gap || bestLen != run)) {
		return a, false
	}
	if full[0]|full[1]|full[2]|full[3]|full[4] == 0 && full[5] == 0xffff {
		return a, false // IPv4-mapped: String writes ::ffff:a.b.c.d
	}
	for j, g := range full {
		a[2*j], a[2*j+1] = byte(g>>8), byte(g)
	}
	return a, true
}

// RefusedName says why a DNS name must never be a server: localhost and its
// subdomains are loopback.
func RefusedName(name string, allowLoopback bool) string {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	if !allowLoopback && (name == "localhost" || strings.HasSuffix(name, ".localhost")) {
		return "loopback (allowLoopbackEndpoints is off)"
	}
	return ""
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
	if c := natural.Compare(a.Field, b.Field); c != 0 {
		return c
	}
	// Only reached for identical Slice and Field (e.g. the same slice listed twice).
	return strings.Compare(a.Error(), b.Error())
}
