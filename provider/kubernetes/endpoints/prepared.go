package endpoints

import (
	"cmp"
	"encoding/binary"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/sliceway/sliceway/internal/serverurl"
)

// Prepared is the part of Select's work that depends on one EndpointSlice
// alone, done once when the slice arrives instead of at every render (as
// kube-proxy keeps the endpoints of each slice and merges them when it
// syncs): every address parsed, checked and classified by its conditions,
// the addresses sorted, and the URL of each address at each port written.
// AppendSelectPrepared then merges the sorted addresses of a Service's
// slices, which reads a few compact arrays instead of every endpoint of
// every slice, and hands out the written URLs (Backend.URL).
//
// Only the common slice is prepared: IPv4 or IPv6, one address per
// endpoint in the canonical text an API server returns, none that
// RefusedAddress refuses with loopback refused (so a loopback address,
// which allowLoopbackEndpoints may let through, is left to Select too),
// and every port TCP with a number in 1..65535. Of any other slice
// Prepare keeps the slice alone, and AppendSelectPrepared reads it as
// AppendSelect does. Either way the result is AppendSelect's, problems
// included.
//
// A Prepared is never modified once made, so renders on several
// goroutines may share it, and the URLs a configuration holds are parts
// of its text.
type Prepared struct {
	slice *discoveryv1.EndpointSlice
	// What is read of every slice, copied so that the merge reads the
	// Prepared alone: the slice's namespace, name and manager label.
	namespace, name, manager string

	family    uint8 // 4 or 6 when the fields below describe the slice; 0 when Select reads the slice
	dup       bool  // an address stands twice in the slice
	schemeLen uint8 // of the scheme the URLs are written for
	urlPorts  uint8 // how many ports (the first ones) have their URLs written
	n         int32 // how many keys (addresses)
	ports     []preparedPort
	// The sorted keys, then where each URL ends in urls. A key is one word
	// for IPv4 (address<<32 | class inverted<<preparedIndexBits | endpoint
	// index) and three for IPv6 (the address in two halves, then class
	// inverted<<preparedIndexBits | endpoint index). The URLs
	// (scheme://host:port) are those of the keys at port 0, then port 1...
	words []uint64
	urls  string

	portBuf [1]preparedPort // most slices have one port
}

// preparedPort is a port of a prepared slice: TCP, numbered in range.
type preparedPort struct {
	name string
	port int32
}

const (
	// preparedIndexBits is how many bits of a prepared key hold the
	// endpoint's index: slices of more endpoints are not prepared.
	preparedIndexBits = 30
	preparedIndexMask = 1<<preparedIndexBits - 1
	// maxPreparedPorts is how many ports of a slice get their URLs
	// written; AppendSelectPrepared leaves the URLs of the others to its
	// caller. Slices mostly have one or two.
	maxPreparedPorts = 4
)

// Prepare does the work of Select that depends on slice s alone; the URLs
// are written for scheme (the scheme a caller asks Backend.URL for). The
// slice must not be modified afterwards (informer objects never are).
func Prepare(s *discoveryv1.EndpointSlice, scheme string) *Prepared {
	p := &Prepared{slice: s}
	if s == nil {
		return p
	}
	p.namespace, p.name, p.manager = s.Namespace, s.Name, s.Labels[discoveryv1.LabelManagedBy]
	if len(s.Endpoints) > preparedIndexMask || len(s.Ports) == 0 {
		return p
	}
	var family uint8
	switch s.AddressType {
	case discoveryv1.AddressTypeIPv4:
		family = 4
	case discoveryv1.AddressTypeIPv6:
		family = 6
	default:
		return p
	}
	ports := p.portBuf[:0]
	if len(s.Ports) > len(p.portBuf) {
		ports = make([]preparedPort, 0, len(s.Ports))
	}
	ports = ports[:len(s.Ports)]
	for i := range s.Ports {
		sp := &s.Ports[i]
		if sp.Protocol != nil && *sp.Protocol != corev1.ProtocolTCP || sp.Port == nil || *sp.Port < 1 || *sp.Port > 65535 {
			return p // left to collect, which reports it
		}
		if sp.Name != nil {
			ports[i].name = *sp.Name
		}
		ports[i].port = *sp.Port
	}
	for i := range s.Endpoints {
		if len(s.Endpoints[i].Addresses) != 1 {
			return p
		}
	}
	n, urlPorts := len(s.Endpoints), min(len(ports), maxPreparedPorts)
	if family == 4 {
		words := make([]uint64, n, n+n*urlPorts)
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			a4, ok := parseCanonicalIPv4(ep.Addresses[0])
			if !ok || maybeRefusedIPv4(a4) && RefusedAddress(netip.AddrFrom4(a4), false) != "" {
				return p // left to collect, which reports it (or, for loopback, may let it through)
			}
			words[i] = uint64(binary.BigEndian.Uint32(a4[:]))<<32 | preparedRest(classify(ep.Conditions), i)
		}
		slices.Sort(words)
		for i := 1; i < n; i++ {
			p.dup = p.dup || words[i]>>32 == words[i-1]>>32
		}
		p.words = words
	} else {
		keys := make([]key6, n)
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			a16, ok := parseCanonicalIPv6(ep.Addresses[0])
			if !ok || maybeRefusedIPv6(a16) && RefusedAddress(netip.AddrFrom16(a16), false) != "" {
				return p
			}
			keys[i] = key6{hi: binary.BigEndian.Uint64(a16[:8]), lo: binary.BigEndian.Uint64(a16[8:]), rest: preparedRest(classify(ep.Conditions), i)}
		}
		slices.SortFunc(keys, compareKey6)
		words := make([]uint64, 0, 3*n+n*urlPorts)
		for i, k := range keys {
			p.dup = p.dup || i > 0 && k.hi == keys[i-1].hi && k.lo == keys[i-1].lo
			words = append(words, k.hi, k.lo, k.rest)
		}
		p.words = words
	}
	p.family, p.ports, p.n, p.schemeLen = family, ports, int32(n), uint8(len(scheme))
	p.writeURLs(scheme, urlPorts)
	return p
}

// preparedRest is the end of a prepared key: the class inverted (the best
// sorts first) and the endpoint's index.
func preparedRest(c class, index int) uint64 {
	return uint64(classReady-c)<<preparedIndexBits | uint64(index)
}

// writeURLs writes scheme://address:port for every key at each of the
// first ports ports, IPv6 addresses in brackets, in one text, and where
// each ends after the keys.
func (p *Prepared) writeURLs(scheme string, ports int) {
	n := p.len()
	if n == 0 || ports == 0 || len(scheme) > 255 {
		return
	}
	size := 0
	for i := range ports {
		for k := range n {
			size += serverurl.Len(scheme, p.address(k), int(p.ports[i].port))
		}
	}
	var b strings.Builder
	b.Grow(size)
	var buf [64]byte // fits every IP URL; append grows it for a longer scheme
	for i := range ports {
		for k := range n {
			b.Write(serverurl.Append(buf[:0], scheme, p.address(k), int(p.ports[i].port)))
			p.words = append(p.words, uint64(b.Len()))
		}
	}
	p.urls, p.urlPorts = b.String(), uint8(ports)
}

// Slice returns the slice p was prepared from.
func (p *Prepared) Slice() *discoveryv1.EndpointSlice { return p.slice }

// len is how many addresses the prepared slice has.
func (p *Prepared) len() int { return int(p.n) }

// stride is how many words a key takes.
func (p *Prepared) stride() int {
	if p.family == 4 {
		return 1
	}
	return 3
}

// rest is the class inverted and endpoint index of key k.
func (p *Prepared) rest(k int) uint64 {
	if p.family == 4 {
		return p.words[k] & (1<<32 - 1)
	}
	return p.words[3*k+2]
}

// address is the text of the address of key k, as the slice has it
// (which Prepare checked is canonical).
func (p *Prepared) address(k int) string {
	return p.slice.Endpoints[p.rest(k)&preparedIndexMask].Addresses[0]
}

// url is the URL of key k at the port of index port, "" when it was not written.
func (p *Prepared) url(port, k int) string {
	if port >= int(p.urlPorts) {
		return ""
	}
	ends := p.words[p.stride()*p.len():]
	i := port*p.len() + k
	start := uint64(0)
	if i > 0 {
		start = ends[i-1]
	}
	return p.urls[start:ends[i]]
}

// preparedRun is the addresses of one prepared slice in the merge of
// AppendSelectPrepared: its port, and the next of its keys.
type preparedRun struct {
	p      *Prepared
	port   int32
	portIx int
	next   int
	// The bytes of a URL before and after its address: scheme://, and
	// :port (with the brackets of an IPv6 address).
	head, tail int
}

// before says whether the next key of run a sorts before that of run b,
// with a read before b: address, port, class (best first) when byClass
// (with publishNotReady every copy is ready), then the order the slices
// were read in, as the candidates of AppendSelect sort.
func (a *preparedRun) before(b *preparedRun, byClass bool) bool {
	if a.p.family == 4 {
		ka, kb := a.p.words[a.next], b.p.words[b.next]
		if ka>>32 != kb>>32 {
			return ka>>32 < kb>>32
		}
	} else {
		ka, kb := a.p.words[3*a.next:3*a.next+2], b.p.words[3*b.next:3*b.next+2]
		if ka[0] != kb[0] {
			return ka[0] < kb[0]
		}
		if ka[1] != kb[1] {
			return ka[1] < kb[1]
		}
	}
	if a.port != b.port {
		return a.port < b.port
	}
	return byClass && a.p.rest(a.next)>>preparedIndexBits < b.p.rest(b.next)>>preparedIndexBits
}

// sameAddress says whether key k of run a has the address of key j of run b.
func sameAddress(a *preparedRun, k int, b *preparedRun, j int) bool {
	if a.p.family == 4 {
		return a.p.words[k]>>32 == b.p.words[j]>>32
	}
	return a.p.words[3*k] == b.p.words[3*j] && a.p.words[3*k+1] == b.p.words[3*j+1]
}

// AppendSelectPrepared is AppendSelect on the prepared slices of one
// Service (Prepare): the same backends and problems. When every slice it
// uses is prepared and of one family, it merges their sorted addresses,
// and the backends carry the URLs Prepare wrote for the port (Backend.URL);
// otherwise it reads the slices as AppendSelect does.
func AppendSelectPrepared(dst []Backend, prepared []*Prepared, portName string, opts Options) ([]Backend, []*Problem) {
	ordered := prepared
	if len(prepared) > 1 && !slices.IsSortedFunc(prepared, comparePreparedNames) {
		ordered = slices.Clone(prepared)
		slices.SortFunc(ordered, comparePreparedNames)
	}
	sel := selector{portName: portName, opts: opts}
	var runBuf [8]preparedRun
	runs := runBuf[:0]
	family, total := uint8(0), 0
	for _, p := range ordered {
		if p == nil || p.slice == nil {
			continue
		}
		if p.family == 0 || opts.PublishNotReady && p.dup {
			return appendSelectSlices(dst, ordered, portName, opts)
		}
		if !sel.wantedPrepared(p) {
			continue
		}
		portIx := slices.IndexFunc(p.ports, func(pp preparedPort) bool { return pp.name == portName })
		if portIx < 0 || p.len() == 0 {
			continue
		}
		if family != 0 && p.family != family {
			return appendSelectSlices(dst, ordered, portName, opts) // both families: AppendSelect sorts them
		}
		family, total = p.family, total+p.len()
		r := preparedRun{p: p, port: p.ports[portIx].port, portIx: portIx, head: int(p.schemeLen) + len("://")}
		var buf [8]byte
		r.tail = len(":") + len(strconv.AppendInt(buf[:0], int64(r.port), 10))
		if p.family == 6 {
			r.head, r.tail = r.head+1, r.tail+1
		}
		runs = append(runs, r)
	}
	slicesSortFunc(sel.problems, compareProblems)
	if total == 0 {
		return dst, sel.problems
	}
	var candBuf [smallCands]candidate
	cands := candBuf[:0]
	if total > smallCands {
		cands = make([]candidate, 0, total)
	}
	topology := opts.Node != "" || opts.Zone != ""
	var last *preparedRun
	lastKey := 0
	for {
		var r *preparedRun
		for i := range runs {
			if c := &runs[i]; c.next < c.p.len() && (r == nil || c.before(r, !opts.PublishNotReady)) {
				r = c
			}
		}
		if r == nil {
			break
		}
		k := r.next
		r.next++
		if last != nil && last.port == r.port && sameAddress(last, lastKey, r, k) {
			continue // a worse (or later) copy of the one before
		}
		last, lastKey = r, k
		rest := r.p.rest(k)
		c := candidate{port: r.port, class: classReady - class(rest>>preparedIndexBits), url: r.p.url(r.portIx, k)}
		if opts.PublishNotReady {
			c.class = classReady
		}
		if c.url != "" {
			c.text = c.url[r.head : len(c.url)-r.tail] // without reading the text
		} else {
			c.text = r.p.address(k)
		}
		if topology {
			c.hints = r.p.slice.Endpoints[rest&preparedIndexMask].Hints
		}
		cands = append(cands, c)
	}
	var uniqBuf [smallCands]int32
	uniq := uniqBuf[:0]
	if len(cands) > smallCands {
		uniq = make([]int32, 0, len(cands))
	}
	for i := range cands {
		uniq = append(uniq, int32(i))
	}
	return finish(dst, cands, uniq, opts), sel.problems
}

// wantedPrepared is selector.wanted for a prepared slice, from what p holds.
func (sel *selector) wantedPrepared(p *Prepared) bool {
	if len(sel.opts.Managers) > 0 && !slices.Contains(sel.opts.Managers, p.manager) {
		return sel.wanted(p.slice) // which reports it
	}
	at := discoveryv1.AddressTypeIPv4
	if p.family == 6 {
		at = discoveryv1.AddressTypeIPv6
	}
	return len(sel.opts.AddressTypes) == 0 || slices.Contains(sel.opts.AddressTypes, at)
}

// appendSelectSlices is AppendSelect on the slices of prepared slices.
func appendSelectSlices(dst []Backend, prepared []*Prepared, portName string, opts Options) ([]Backend, []*Problem) {
	var buf [8]*discoveryv1.EndpointSlice
	list := buf[:0]
	for _, p := range prepared {
		if p != nil {
			list = append(list, p.slice)
		}
	}
	return AppendSelect(dst, list, portName, opts)
}

// comparePreparedNames is compareSliceNames on what the Prepared hold.
func comparePreparedNames(a, b *Prepared) int {
	switch {
	case a == nil || a.slice == nil:
		if b == nil || b.slice == nil {
			return 0
		}
		return -1
	case b == nil || b.slice == nil:
		return 1
	}
	return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.name, b.name))
}
