package endpoints

import (
	"slices"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// smallCands is how many candidates a selection keeps in an array on its
// stack: enough for the common Service, small enough for the frame.
const smallCands = 32

// smallSlices is how many slices a selection keeps the order and runs of
// in arrays on its stack.
const smallSlices = 8

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
	var orderBuf [smallSlices]*Prepared
	ordered, room := prepareOnTheFly(slices, orderBuf[:0])
	sel := selector{portName: portName, opts: opts}
	return sel.appendBackends(dst, ordered, &room)
}

// onTheFly is the room AppendSelect reads the addresses of its slices
// into, only for the slices a selection uses: their keys, and the wide
// keys of one slice while they are sorted.
type onTheFly struct {
	words []uint64
	tmp   []key3
}

// prepareOnTheFly prepares each slice of list as Prepare does, but
// without URLs and leaving its addresses to be read only if the selection
// uses it, and appends them to ordered in name order (comparePrepared). It
// returns them with room for all their keys. The Prepared values and the
// keys are on the heap: a Prepared points into itself (its ports) and to
// its keys, which the compiler's escape analysis cannot keep on the stack.
func prepareOnTheFly(list []*discoveryv1.EndpointSlice, ordered []*Prepared) ([]*Prepared, onTheFly) {
	n, words := 0, 0
	for _, s := range list {
		if s != nil {
			n++
			words += addressCount(s)
			if s.AddressType != discoveryv1.AddressTypeIPv4 {
				words += 2 * addressCount(s) // wide keys, perhaps
			}
		}
	}
	prepared := make([]Prepared, 0, n)
	for _, s := range list {
		if s != nil {
			prepared = append(prepared, Prepared{slice: s})
			p := &prepared[len(prepared)-1]
			p.readHead(p.portBuf[:0])
			ordered = append(ordered, p)
		}
	}
	if !slices.IsSortedFunc(ordered, comparePrepared) {
		slices.SortFunc(ordered, comparePrepared)
	}
	return ordered, onTheFly{words: make([]uint64, 0, words)}
}

// read reads the addresses of p, a slice the selection uses.
func (room *onTheFly) read(p *Prepared) {
	room.words, room.tmp = p.readAddresses(room.words, room.tmp, addressCount(p.slice))
}

// AppendSelectPrepared is AppendSelect on the prepared slices of one
// Service (Prepare): the same backends and problems, and the backends
// carry the URLs Prepare wrote for their port (Backend.URL).
func AppendSelectPrepared(dst []Backend, prepared []*Prepared, portName string, opts Options) ([]Backend, []*Problem) {
	ordered := prepared
	if !slices.IsSortedFunc(prepared, comparePrepared) {
		ordered = slices.Clone(prepared)
		slices.SortFunc(ordered, comparePrepared)
	}
	sel := selector{portName: portName, opts: opts}
	return sel.appendBackends(dst, ordered, nil)
}

// appendBackends is the one selection AppendSelect and
// AppendSelectPrepared share, over slices in name order (comparePrepared):
// it admits each slice (reporting its defects), reads the addresses of
// those AppendSelect prepared into room (nil for prepared slices), merges
// the sorted addresses of all, then applies topology and the terminating
// policy, and appends the backends to dst.
func (sel *selector) appendBackends(dst []Backend, ordered []*Prepared, room *onTheFly) ([]Backend, []*Problem) {
	var runBuf [smallSlices]run
	runs := runBuf[:0]
	total := 0
	for _, p := range ordered {
		if p == nil || p.slice == nil {
			continue
		}
		port, portIx, ok := sel.admit(p)
		if !ok {
			continue
		}
		if room != nil {
			room.read(p)
		}
		sel.reportAddresses(p)
		if p.n > 0 {
			runs = append(runs, run{})
			runs[len(runs)-1].init(p, port, portIx)
			total += int(p.n)
		}
	}
	slices.SortFunc(sel.problems, compareProblems)
	if total == 0 {
		return dst, sel.problems
	}

	var candBuf [smallCands]candidate
	cands := candBuf[:0]
	if total > len(candBuf) {
		cands = make([]candidate, 0, total)
	}
	cands = merge(cands, runs, sel.opts)
	if sel.opts.Node != "" || sel.opts.Zone != "" {
		applyTopology(cands, runs, sel.opts.Node, sel.opts.Zone)
	}
	return appendUsable(dst, cands, runs, sel.opts.Terminating), sel.problems
}
