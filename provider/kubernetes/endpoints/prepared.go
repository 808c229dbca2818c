package endpoints

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
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
// slices, which reads a few compact arrays instead of every endpoint of
// every slice, and hands out the written URLs (Backend.URL).
//
// AppendSelect prepares the slices it is given the same way, on the fly
// and without URLs, and both select with one implementation: the same
// backends and problems by construction.
//
// The informer cache keeps one Prepared per slice of the cluster, so it is
// compact (keys.go): the slice an API server returns, one canonical
// address per endpoint, none refused, costs its header, one word per IPv4
// address (three per IPv6 one) and the URLs; what other slices need more
// is in extra. A Prepared is never modified once made, so renders on
// several goroutines may share it, and the URLs a configuration holds are
// parts of its text.
type Prepared struct {
	slice *discoveryv1.EndpointSlice
	// What a selection reads of every slice before its addresses, copied
	// so that it reads the Prepared alone: the slice's namespace, name
	// and manager label, its address type and ports.
	namespace, name, manager string
	kind                     addressKind
	wide                     bool  // the keys are wide (keys.go)
	schemeLen                uint8 // of the scheme the URLs are written for
	urlPorts                 uint8 // how many ports (the first ones) have their URLs written
	n                        int32 // how many keys
	ports                    []preparedPort
	// The n sorted keys, then where each URL ends in urls: those of the
	// keys at port 0, then port 1... (scheme://host:port); a port a
	// selection never uses (not TCP, no number or out of range) has
	// empty ones.
	words []uint64
	urls  string
	extra *uncommon // nil for the slice an API server returns

	portBuf [1]preparedPort // most slices have one port
}

// addressKind is the address type of a slice, as a selection reads it.
type addressKind uint8

const (
	kindOther addressKind = iota // a type no selection uses; its addresses are not read
	kindIPv4
	kindIPv6
	kindFQDN
)

func (k addressKind) addressType() discoveryv1.AddressType {
	switch k {
	case kindIPv4:
		return discoveryv1.AddressTypeIPv4
	case kindIPv6:
		return discoveryv1.AddressTypeIPv6
	case kindFQDN:
		return discoveryv1.AddressTypeFQDN
	}
	return ""
}

// preparedPort is an EndpointPort without its pointers; the name of a
// protocol other than TCP is read from the slice when it is reported.
type preparedPort struct {
	name          string
	port          int32
	numbered      bool // port holds a value
	otherProtocol bool // protocol holds a value that is not TCP (maybe "")
}

// usable says whether a selection may use the port (admit).
func (pp *preparedPort) usable() bool {
	return !pp.otherProtocol && pp.numbered && pp.port >= 1 && pp.port <= 65535
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
	p.readHead(p.portBuf[:0])
	if p.kind == kindOther {
		return p // never used: admit refuses the slice before its addresses
	}
	total := addressCount(s)
	urlPorts := min(len(p.ports), maxPreparedPorts)
	if len(scheme) > 255 {
		urlPorts = 0
	}
	stride := 1
	if wideLayout(p.kind, total) {
		stride = 3
	}
	var tmp []key3
	if stride == 3 {
		tmp = make([]key3, 0, total)
	}
	p.readAddresses(make([]uint64, 0, total*(stride+urlPorts)), tmp, total)
	p.writeURLs(scheme, urlPorts)
	return p
}

// readHead copies out of p's slice what a selection reads before its
// addresses, its ports into ports (empty) when they fit.
func (p *Prepared) readHead(ports []preparedPort) {
	s := p.slice
	p.namespace, p.name, p.manager = s.Namespace, s.Name, s.Labels[discoveryv1.LabelManagedBy]
	switch s.AddressType {
	case discoveryv1.AddressTypeIPv4:
		p.kind = kindIPv4
	case discoveryv1.AddressTypeIPv6:
		p.kind = kindIPv6
	case discoveryv1.AddressTypeFQDN:
		p.kind = kindFQDN
	}
	if len(s.Ports) > cap(ports) {
		ports = make([]preparedPort, 0, len(s.Ports))
	}
	for i := range s.Ports {
		sp := &s.Ports[i]
		var pp preparedPort
		if sp.Name != nil {
			pp.name = *sp.Name
		}
		pp.otherProtocol = sp.Protocol != nil && *sp.Protocol != corev1.ProtocolTCP
		if sp.Port != nil {
			pp.port, pp.numbered = *sp.Port, true
		}
		ports = append(ports, pp)
	}
	p.ports = ports
}

// writeURLs writes the URL of every key at each of the first ports
// ports that a selection may use, in one text, and where each ends
// after the keys (in the room Prepare made for them).
func (p *Prepared) writeURLs(scheme string, ports int) {
	n := int(p.n)
	if n == 0 || ports == 0 {
		return
	}
	size := 0
	for i := range ports {
		if pp := &p.ports[i]; pp.usable() {
			for k := range n {
				size += serverurl.Len(scheme, p.text(p.at(k).pos()), int(pp.port))
			}
		}
	}
	var b strings.Builder
	b.Grow(size)
	var buf [128]byte // fits every IP URL; append grows it for a long name or scheme
	for i := range ports {
		pp := &p.ports[i]
		for k := range n {
			if pp.usable() {
				b.Write(serverurl.Append(buf[:0], scheme, p.text(p.at(k).pos()), int(pp.port)))
			}
			p.words = append(p.words, uint64(b.Len()))
		}
	}
	p.urls, p.urlPorts, p.schemeLen = b.String(), uint8(ports), uint8(len(scheme))
}

// Slice returns the slice p was prepared from.
func (p *Prepared) Slice() *discoveryv1.EndpointSlice { return p.slice }

// locate is the endpoint and address index of the address at position pos.
func (p *Prepared) locate(pos int) (ep, addr int) {
	if p.extra == nil || p.extra.firsts == nil {
		return pos, 0
	}
	firsts := p.extra.firsts
	// The last endpoint that starts at or before pos: endpoints without
	// an address start where the next one does.
	ep, _ = slices.BinarySearch(firsts, pos+1)
	ep--
	return ep, pos - firsts[ep]
}

// text is the canonical text of the address at position pos: the slice's
// own string unless extra says otherwise.
func (p *Prepared) text(pos int) string {
	if x := p.extra; x != nil && x.texts != nil && x.texts[pos] != "" {
		return x.texts[pos]
	}
	ep, addr := p.locate(pos)
	return p.slice.Endpoints[ep].Addresses[addr]
}

// hints are the topology hints of the endpoint of the address at position pos.
func (p *Prepared) hints(pos int) *discoveryv1.EndpointHints {
	ep, _ := p.locate(pos)
	return p.slice.Endpoints[ep].Hints
}
