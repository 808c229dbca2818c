package endpoints

import (
	"strconv"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// run is the sorted keys of one slice the selection uses, at the port it
// uses, and the next key the merge takes.
type run struct {
	p    *Prepared // the slice, its keys, hints and the URLs Prepare wrote
	port int32
	next int32
	cur  key3 // key next
	// The URLs of the keys at port (none when Prepare wrote none): the
	// one of key k ends at ends[k] in p.urls, and starts where that of
	// key k-1 ends, or at start.
	ends  []uint64
	start uint64
	// The bytes of a URL before and after an IPv4 address or a name:
	// scheme:// and :port (an IPv6 address adds its brackets).
	head, tail int32
}

func newRun(p *Prepared, port int32, portIx int) run {
	r := run{p: p, port: port, cur: p.at(0), head: int32(p.schemeLen) + int32(len("://"))}
	var buf [8]byte
	r.tail = int32(len(":") + len(strconv.AppendInt(buf[:0], int64(port), 10)))
	if portIx < int(p.urlPorts) {
		n := int(p.n)
		all := p.words[p.stride()*n:]
		r.ends = all[portIx*n : (portIx+1)*n]
		if portIx > 0 {
			r.start = all[portIx*n-1]
		}
	}
	return r
}

// advance moves r to its next key.
func (r *run) advance() {
	r.next++
	if r.next < r.p.n {
		r.cur = r.p.at(int(r.next))
	}
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
			if c := &runs[i]; c.next < c.p.n && (ri < 0 || c.before(&runs[ri], byClass)) {
				ri = i // a tie keeps the earlier slice
			}
		}
		if ri < 0 {
			return cands
		}
		r := &runs[ri]
		k, e := r.next, r.cur
		r.advance()
		if lastP != nil && lastPort == r.port && compareAddresses(lastP, last, r.p, e) == 0 {
			continue // a worse (or later) copy of the one before
		}
		last, lastP, lastPort = e, r.p, r.port
		cl := e.class()
		if !byClass {
			cl = classReady
			for first := e.pos(); r.next < r.p.n && compareAddresses(r.p, r.cur, r.p, e) == 0; r.advance() {
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
	return r.p.hints(r.p.at(int(c.k)).pos())
}

// backend is the backend of candidate c, not fenced: its address is taken
// from its URL when Prepare wrote one, without reading the slice.
func (c candidate) backend(runs []run) Backend {
	r := &runs[c.run]
	if r.ends == nil {
		return Backend{Address: r.p.text(r.p.at(int(c.k)).pos()), Port: r.port}
	}
	start := r.start
	if c.k > 0 {
		start = r.ends[c.k-1]
	}
	url := r.p.urls[start:r.ends[c.k]]
	head, tail := int(r.head), int(r.tail)
	if r.p.kind == kindIPv6 || r.p.kind == kindFQDN && r.p.at(int(c.k)).fam() == famIPv6 {
		head, tail = head+1, tail+1
	}
	return Backend{Address: url[head : len(url)-tail], Port: r.port, url: url}
}
