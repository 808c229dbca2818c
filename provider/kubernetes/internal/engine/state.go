package engine

import (
	"slices"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// serviceEntry is the load balancer of one Service port in a render
// state, shared by the Ingress paths that name it, with the objects it
// was built from and how many parts use it.
type serviceEntry struct {
	key   translate.PortKey
	name  string                    // the service's name in the configuration
	objs  *translate.ServiceObjects // nil when there is no such Service
	lb    translate.LoadBalancer
	users int32 // the parts that use it
}

// Part is the part of one served Ingress in a render state: what
// translation built, and the entries of the Service ports it asked for,
// each once, which the state and incremental renders follow.
type Part struct {
	translate.Part
	hosts    []string // the hosts whose other Ingresses the part read (Dialect.Hosts)
	entries  []*serviceEntry
	entryBuf [1]*serviceEntry // room for the one entry of most Ingresses
	read     []objectRead     // the Services and Secrets translation looked up (reuse.go)
	// settings: the part of a settings Ingress (settingsparts.go), not of
	// an Ingress of the cluster.
	settings bool
	// takenBy is the last pass that took the part again (Pass.Reuse).
	takenBy *Pass
}

// compareParts orders parts as translate.CompareParts does.
func compareParts(a, b *Part) int { return translate.CompareParts(&a.Part, &b.Part) }

// renderState is what the last render left: the part of each served
// Ingress, the entries of the Service ports in use, and who uses what, so
// that a change finds the parts that depend on it. Its invariants: served
// holds the parts of parts, sorted by compareParts; an entry in entries
// has users equal to the parts whose entries hold it; svcUsers and
// secUsers list each part under each Service and Secret it uses, once;
// errParts, errEntries and dbParts hold the parts and entries in use with
// problems, and the parts with a default backend.
type renderState struct {
	parts       map[translate.ObjectKey]*Part
	served      []*Part
	entries     map[translate.PortKey]*serviceEntry
	svcUsers    map[translate.Key][]*Part
	secUsers    map[translate.Key][]*Part
	errParts    map[*Part]struct{}
	errEntries  map[*serviceEntry]struct{}
	dbParts     map[*Part]struct{}
	hosts       hostIndex       // the served Ingresses by host, for a dialect whose parts read them
	nodeEntries int             // entries in use that read the Nodes
	zeroed      []*serviceEntry // entries that lost their last user, for sweep
	errsDirty   bool            // the problems may differ from those last collected
}

func newRenderState(size int) *renderState {
	return &renderState{
		parts:      make(map[translate.ObjectKey]*Part, size),
		entries:    make(map[translate.PortKey]*serviceEntry, size),
		svcUsers:   make(map[translate.Key][]*Part, size),
		secUsers:   map[translate.Key][]*Part{},
		errParts:   map[*Part]struct{}{},
		errEntries: map[*serviceEntry]struct{}{},
		dbParts:    map[*Part]struct{}{},
		errsDirty:  true,
	}
}

// add records parts, at their places in served, and what they depend on.
// Each part's place is found by binary search in the list as it was; then
// the list is opened once, from the back: adding k parts to n costs k
// binary searches and one pass, not k passes.
func (s *renderState) add(news []*Part) {
	sorted := slices.SortedFunc(slices.Values(news), compareParts)
	pos := make([]int, len(sorted))
	for j, p := range sorted {
		pos[j], _ = slices.BinarySearchFunc(s.served, p, compareParts)
	}
	end := len(s.served) // the parts before end have not moved yet
	s.served = slices.Grow(s.served, len(sorted))[:end+len(sorted)]
	for j := len(sorted) - 1; j >= 0; j-- {
		copy(s.served[pos[j]+j+1:end+j+1], s.served[pos[j]:end])
		s.served[pos[j]+j] = sorted[j]
		end = pos[j]
	}
	for _, p := range news {
		s.record(p)
	}
}

// record records what p depends on and what of it is reported. p's
// Ingress is in the host index already: it was put there before any part
// was translated, so that each read its neighbours as they are now.
func (s *renderState) record(p *Part) {
	s.parts[p.ObjectKey()] = p
	for _, en := range p.entries {
		en.users++
		if en.users == 1 {
			if en.lb.Nodes {
				s.nodeEntries++
			}
			if len(en.lb.Errs) > 0 {
				s.errEntries[en] = struct{}{}
				s.errsDirty = true
			}
		}
		addUser(s.svcUsers, en.key.Service, p)
	}
	for _, key := range p.Secrets {
		addUser(s.secUsers, key, p)
	}
	if len(p.Errs) > 0 {
		s.errParts[p] = struct{}{}
		s.errsDirty = true
	}
	if p.Default != nil {
		s.dbParts[p] = struct{}{}
	}
}

// remove forgets parts (recorded ones, each once) and what they depended
// on. Like add, it costs one pass over served and over the users of each
// key, however many parts go.
func (s *renderState) remove(olds []*Part) {
	if len(olds) == 0 {
		return
	}
	// The places of the parts by binary search, then one pass that closes
	// the gaps.
	at := make([]int, 0, len(olds))
	gone := make(map[*Part]struct{}, len(olds))
	for _, p := range olds {
		gone[p] = struct{}{}
		if i, found := slices.BinarySearchFunc(s.served, p, compareParts); found && s.served[i] == p {
			at = append(at, i)
		}
	}
	slices.Sort(at)
	if len(at) > 0 {
		w := at[0]
		for r, next := at[0], 0; r < len(s.served); r++ {
			if next < len(at) && r == at[next] {
				next++
				continue
			}
			s.served[w] = s.served[r]
			w++
		}
		clear(s.served[w:])
		s.served = s.served[:w]
	}
	svcKeys, secKeys := map[translate.Key][]*Part{}, map[translate.Key][]*Part{}
	for _, p := range olds {
		delete(s.parts, p.ObjectKey())
		s.hosts.remove(p.Key, p.hosts)
		for _, en := range p.entries {
			if en.users--; en.users == 0 {
				if en.lb.Nodes {
					s.nodeEntries--
				}
				if len(en.lb.Errs) > 0 {
					delete(s.errEntries, en)
					s.errsDirty = true
				}
				s.zeroed = append(s.zeroed, en)
			}
			if list := svcKeys[en.key.Service]; len(list) == 0 || list[len(list)-1] != p {
				svcKeys[en.key.Service] = append(list, p)
			}
		}
		for _, key := range p.Secrets {
			secKeys[key] = append(secKeys[key], p)
		}
		if len(p.Errs) > 0 {
			delete(s.errParts, p)
			s.errsDirty = true
		}
		delete(s.dbParts, p)
	}
	for key, parts := range svcKeys {
		removeUsers(s.svcUsers, key, gone, parts)
	}
	for key, parts := range secKeys {
		removeUsers(s.secUsers, key, gone, parts)
	}
}

// sweep drops the entries nobody uses any more.
func (s *renderState) sweep() {
	for _, en := range s.zeroed {
		if en.users == 0 && s.entries[en.key] == en {
			delete(s.entries, en.key)
		}
	}
	s.zeroed = s.zeroed[:0]
}

// addUser adds p to the users of key. A part is recorded once, all its
// keys in a row (record), so that p is already among the users of key only
// when it was the last added: a Service shared by thousands of Ingresses
// costs no search of its users.
func addUser(users map[translate.Key][]*Part, key translate.Key, p *Part) {
	list := users[key]
	if n := len(list); n > 0 && list[n-1] == p {
		return // another port of the same Service
	}
	users[key] = append(list, p)
}

// removeUsers takes parts, which are in gone, out of the users of key. A
// few are found one by one; more are filtered out in one pass, so that
// taking all the users of a shared Service out is linear, not quadratic.
func removeUsers(users map[translate.Key][]*Part, key translate.Key, gone map[*Part]struct{}, parts []*Part) {
	list := users[key]
	if len(parts) <= 4 {
		for _, p := range parts {
			if i := slices.Index(list, p); i >= 0 {
				list[i] = list[len(list)-1]
				list[len(list)-1] = nil
				list = list[:len(list)-1]
			}
		}
	} else {
		list = slices.DeleteFunc(list, func(p *Part) bool { _, ok := gone[p]; return ok })
	}
	if len(list) == 0 {
		delete(users, key)
	} else {
		users[key] = list
	}
}

// byKey is the served parts in the order of their keys.
func (s *renderState) byKey() []*Part {
	return slices.SortedFunc(slices.Values(s.served), func(a, b *Part) int { return translate.CompareKeys(a.Key, b.Key) })
}
