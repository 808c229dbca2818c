package endpoints

import discoveryv1 "k8s.io/api/discovery/v1"

// run is the sorted keys of one slice the selection uses, at the port it
// uses, and the next key the merge takes. It holds copies of what the
// merge reads of the Prepared at every key, so that the hot loop reads
// the run alone.
type run struct {
	p     *Prepared // the slice, for hints and texts
	words []uint64  // the keys of p
	wide  bool      // p.wide
	// brackets says which URLs have their address in brackets: none
	// (IPv4 slices), all (IPv6 slices), or those of IPv6 keys (FQDN slices).
	brackets uint8
	port     int32
	n, next  int32
	cur      key3 // key next
	// The URLs of the keys at port (none when Prepare wrote none): the
	// one of key k ends at ends[k] in urls, and starts where that of key
	// k-1 ends, or at start.
	urls  string
	ends  []uint64
	start uint64
	// The bytes of a URL before and after an IPv4 address or a name:
	// scheme:// and :port (an IPv6 address adds its brackets).
	head, tail int32
}

const (
	bracketsNone uint8 = iota
	bracketsAll
	bracketsIPv6
)

// init makes r the run of p (which has keys) at port, of index portIx.
func (r *run) init(p *Prepared, port int32, portIx int) {
	n := int(p.n)
	*r = run{p: p, words: p.words[:p.stride()*n], wide: p.wide, port: port, n: p.n, urls: p.urls}
	r.cur = r.at(0)
	switch p.kind {
	case kindIPv6:
		r.brackets = bracketsAll
	case kindFQDN:
		r.brackets = bracketsIPv6
	}
	r.head = int32(p.schemeLen) + int32(len("://"))
	r.tail = int32(len(":")) + digits(port)
	if portIx < int(p.urlPorts) {
		all := p.words[p.stride()*n:]
		r.ends = all[portIx*n : (portIx+1)*n]
		if portIx > 0 {
			r.start = all[portIx*n-1]
		}
	}
}

// digits is how many decimal digits port (in 1..65535) has.
func digits(port int32) int32 {
	switch {
	case port < 10:
		return 1
	case port < 100:
		return 2
	case port < 1000:
		return 3
	case port < 10000:
		return 4
	}
	return 5
}

// at is key i of the run, as Prepared.at.
func (r *run) at(i int) key3 {
	if !r.wide {
		return narrowAsWide(r.words[i])
	}
	w := r.words[3*i : 3*i+3 : 3*i+3]
	return key3{w[0], w[1], w[2]}
}

// advance moves r to its next key.
func (r *run) advance() {
	r.next++
	if r.next < r.n {
		r.cur = r.at(int(r.next))
	}
}

// sameAddress says whether keys a of pa and b of pb have one address.
func sameAddress(pa *Prepared, a key3, pb *Prepared, b key3) bool {
	if a.rest>>62 != b.rest>>62 || a.hi != b.hi || a.lo != b.lo {
		return false
	}
	return a.fam() != famName || compareAddresses(pa, a, pb, b) == 0
}

// before says whether the next key of run a comes before that of run b
// in the merge: by address, then port (the order of the backends), then
// class, best first, when byClass.
func (a *run) before(b *run, byClass bool) bool {
	ka, kb := &a.cur, &b.cur
	// The usual case first: IP addresses of one family that differ.
	if ka.rest>>62 == kb.rest>>62 && ka.rest>>62 != uint64(famName) {
		if ka.hi != kb.hi {
			return ka.hi < kb.hi
		}
		if ka.lo != kb.lo {
			return ka.lo < kb.lo
		}
	} else if c := compareAddresses(a.p, *ka, b.p, *kb); c != 0 {
		return c < 0
	}
	if a.port != b.port {
		return a.port < b.port
	}
	return byClass && ka.rest>>60&3 < kb.rest>>60&3 // the class inverted
}

// candidate is the best copy of one address and port across the slices of
// a selection, key k of run (indices, so that candidates hold no pointer
// and stay on the stack), and its class, before topology and the
// terminating policy.
type candidate struct {
	run, k int32
	class  class
}

// merge appends to cands the best copy of every address and port the runs
// (in slice order) hold, in output order: the one place copies are
// deduplicated. The best copy is that of the best class (with
// publishNotReady every copy is ready); among equals, the first in slice
// order, then in the slice: the one read first. A loopback address is
// used only when the options let loopback through.
//
// Each run is sorted by address, then class (best first), then position,
// so taking the runs' next keys in the order of before gives the copies
// of each address and port best first, and merge keeps the first of them.
// With publishNotReady the class does not count: of the copies of an
// address in one slice, the first one's wins, whatever their classes.
func merge(cands []candidate, runs []run, opts Options) []candidate {
	byClass := !opts.PublishNotReady
	var last key3 // the address taken before, of lastP, at lastPort
	var lastP *Prepared
	lastPort := int32(0)
	for {
		ri := -1
		for i := range runs {
			if c := &runs[i]; c.next < c.n && (ri < 0 || c.before(&runs[ri], byClass)) {
				ri = i // a tie keeps the earlier slice
			}
		}
		if ri < 0 {
			return cands
		}
		r := &runs[ri]
		k, e := r.next, r.cur
		r.advance()
		if lastP != nil && lastPort == r.port && sameAddress(lastP, last, r.p, e) {
			continue // a worse (or later) copy of the one before
		}
		last, lastP, lastPort = e, r.p, r.port
		cl := e.class()
		if !byClass {
			cl = classReady
			for first := e.pos(); r.next < r.n && sameAddress(r.p, r.cur, r.p, e); r.advance() {
				if r.cur.pos() < first {
					k, first = r.next, r.cur.pos()
				}
			}
		}
		if e.loopback() && !opts.AllowLoopback {
			continue // as every copy of it
		}
		cands = append(cands, candidate{run: int32(ri), k: k, class: cl})
	}
}

// hints are the topology hints of the endpoint of candidate c.
func (c candidate) hints(runs []run) *discoveryv1.EndpointHints {
	r := &runs[c.run]
	return r.p.hints(r.at(int(c.k)).pos())
}

// fill writes the address, port and URL of candidate c into b: the
// address is cut out of its URL when Prepare wrote one, without reading
// the slice.
func (c candidate) fill(b *Backend, runs []run) {
	r := &runs[c.run]
	b.Port = r.port
	if r.ends == nil {
		b.Address = r.p.text(r.at(int(c.k)).pos())
		return
	}
	start := r.start
	if c.k > 0 {
		start = r.ends[c.k-1]
	}
	url := r.urls[start:r.ends[c.k]]
	head, tail := int(r.head), int(r.tail)
	if r.brackets == bracketsAll || r.brackets == bracketsIPv6 && r.at(int(c.k)).fam() == famIPv6 {
		head, tail = head+1, tail+1
	}
	b.Address, b.url = url[head:len(url)-tail], url
}
