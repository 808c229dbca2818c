package endpoints

import (
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/sliceway/sliceway/internal/serverurl"
)

// Prepared is the part of Select's work that depends on one EndpointSlice
// alone, done once when the slice arrives instead of at every render (as
// kube-proxy keeps the endpoints of each slice and merges them when it
// syncs): its name, manager and ports copied out, every address parsed,
// checked and classified by its conditions, the addresses sorted, and the
// URL of each address at each of the first ports written.
// AppendSelectPrepared then merges the sorted addresses of a Service's
// slices, and hands out the written URLs (Backend.URL).
//
// AppendSelect prepares the slices it is given the same way, on the fly
// and without URLs, and both select with one implementation: the same
// backends and problems by construction.
//
// A Prepared is never modified once made, so renders on several
// goroutines may share it, and the URLs a configuration holds are parts
// of its text.
type Prepared struct {
	slice *discoveryv1.EndpointSlice
	head  sliceHead
	// read says that addrs holds the slice's addresses: always so for a
	// Prepared that Prepare made; AppendSelect reads those of its slices
	// only for the slices a selection uses.
	read  bool
	addrs sliceAddresses
	// The URLs (scheme://host:port) of the entries at port 0, then port
	// 1..., up to maxPreparedPorts ports, in one text; urlEnds[i*n+k] is
	// where that of entry k at port i ends (n entries). A port without a
	// number has none (an empty URL).
	urls    string
	urlEnds []uint32

	portBuf [2]portInfo // most slices have one or two ports
}

// maxPreparedPorts is how many ports of a slice get their URLs written;
// AppendSelectPrepared leaves the URLs of the others to its caller.
// Slices mostly have one or two.
const maxPreparedPorts = 4

// Prepare does the work of Select that depends on slice s alone; the URLs
// are written for scheme (the scheme a caller asks Backend.URL for). The
// slice must not be modified afterwards (informer objects never are).
func Prepare(s *discoveryv1.EndpointSlice, scheme string) *Prepared {
	p := &Prepared{slice: s}
	if s == nil {
		return p
	}
	p.head, p.read = readHead(s, p.portBuf[:0]), true
	switch s.AddressType {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN:
	default:
		return p // never used: admit refuses the slice before its addresses
	}
	p.addrs = readAddresses(s, make([]entry, 0, addressCount(s)))
	p.writeURLs(scheme)
	return p
}

// addressCount is how many addresses slice s lists.
func addressCount(s *discoveryv1.EndpointSlice) int {
	n := 0
	for i := range s.Endpoints {
		n += len(s.Endpoints[i].Addresses)
	}
	return n
}

// writeURLs writes the URL of every entry at each of the first ports that
// have a number, in one text.
func (p *Prepared) writeURLs(scheme string) {
	entries := p.addrs.entries
	ports := p.head.ports[:min(len(p.head.ports), maxPreparedPorts)]
	if len(entries) == 0 || len(ports) == 0 {
		return
	}
	size := 0
	for i := range ports {
		if ports[i].numbered {
			for k := range entries {
				size += serverurl.Len(scheme, entries[k].text, int(ports[i].port))
			}
		}
	}
	var b strings.Builder
	b.Grow(size)
	ends := make([]uint32, 0, len(ports)*len(entries))
	var buf [128]byte // fits all but the longest names, for which append grows it
	for i := range ports {
		for k := range entries {
			if ports[i].numbered {
				b.Write(serverurl.Append(buf[:0], scheme, entries[k].text, int(ports[i].port)))
			}
			ends = append(ends, uint32(b.Len()))
		}
	}
	p.urls, p.urlEnds = b.String(), ends
}

// url is the URL of entry k at the port of index port, "" when none was
// written (a port past maxPreparedPorts, a slice AppendSelect prepared).
func (p *Prepared) url(port, k int) string {
	i := port*len(p.addrs.entries) + k
	if i >= len(p.urlEnds) {
		return ""
	}
	start := uint32(0)
	if i > 0 {
		start = p.urlEnds[i-1]
	}
	return p.urls[start:p.urlEnds[i]]
}

// Slice returns the slice p was prepared from.
func (p *Prepared) Slice() *discoveryv1.EndpointSlice { return p.slice }
