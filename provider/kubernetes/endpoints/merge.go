package endpoints

import discoveryv1 "k8s.io/api/discovery/v1"

// run is the sorted entries of one slice the selection uses, at the port
// it uses, and the next entry the merge takes.
type run struct {
	entries []entry
	p       *Prepared // the slice, its hints and the URLs Prepare wrote
	port    int32
	portIx  int // index of port in the slice, for its URLs
	next    int
}

// before says whether the next entry of run a comes before that of run b
// in the merge: by address, then port (the order of the backends), then
// class, best first, when byClass.
func (a *run) before(b *run, byClass bool) bool {
	ea, eb := &a.entries[a.next], &b.entries[b.next]
	if c := compareAddresses(ea, eb); c != 0 {
		return c < 0
	}
	if a.port != b.port {
		return a.port < b.port
	}
	return byClass && ea.class > eb.class
}

// candidate is the best copy of one address and port across the slices of
// a selection, entry of run (indices, so that candidates hold no pointer
// and stay on the stack), and its class, before topology and the
// terminating policy.
type candidate struct {
	run, entry int32
	class      class
}

// merge appends to cands the best copy of every address and port the runs
// (in slice order) hold, in output order: the one place copies are
// deduplicated. The best copy is that of the best class (with
// publishNotReady every copy is ready); among equals, the first in slice
// order, then endpoint order: the one read first. A loopback address is
// used only when the options let loopback through.
//
// Each run is sorted by address, then class (best first), then endpoint,
// so taking the runs' next entries in the order of before gives the copies
// of each address and port best first, and merge keeps the first of them.
// With publishNotReady the class does not count: of the copies of an
// address in one slice, the first endpoint's wins, whatever their classes.
func merge(cands []candidate, runs []run, opts Options) []candidate {
	byClass := !opts.PublishNotReady
	var last *entry // the address taken before, at lastPort
	lastPort := int32(0)
	for {
		ri := -1
		for i := range runs {
			if c := &runs[i]; c.next < len(c.entries) && (ri < 0 || c.before(&runs[ri], byClass)) {
				ri = i // a tie keeps the earlier slice
			}
		}
		if ri < 0 {
			return cands
		}
		r := &runs[ri]
		k := r.next
		e := &r.entries[k]
		r.next++
		if last != nil && lastPort == r.port && sameAddress(last, e) {
			continue // a worse (or later) copy of the one before
		}
		last, lastPort = e, r.port
		cl := e.class
		if !byClass {
			cl = classReady
			for ; r.next < len(r.entries) && sameAddress(&r.entries[r.next], e); r.next++ {
				if r.entries[r.next].ep < r.entries[k].ep {
					k = r.next
				}
			}
		}
		if e.loopback && !opts.AllowLoopback {
			continue // as every copy of it
		}
		cands = append(cands, candidate{run: int32(ri), entry: int32(k), class: cl})
	}
}

// hints are the topology hints of the endpoint of candidate c.
func (c candidate) hints(runs []run) *discoveryv1.EndpointHints {
	r := &runs[c.run]
	return r.p.slice.Endpoints[r.entries[c.entry].ep].Hints
}

// backend is the backend of candidate c, not fenced.
func (c candidate) backend(runs []run) Backend {
	r := &runs[c.run]
	return Backend{Address: r.entries[c.entry].text, Port: r.port, url: r.p.url(r.portIx, int(c.entry))}
}
