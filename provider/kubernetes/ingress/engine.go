package ingress

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"iter"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/internal/natural"
	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// Renderer translates snapshots of one cluster again and again. It keeps
// the last translation in parts (what each Ingress contributes, the load
// balancer of each Service port) and, told which objects changed, recomputes
// only the parts that depend on them: a changed EndpointSlice costs the
// rebuild of its Service's load balancer and of the routers of the
// Ingresses that use it, not a rebuild of the whole configuration. The
// result is the same as a full translation of the same snapshot.
//
// A Renderer is not safe for concurrent use; Changes is.
type Renderer struct {
	e *engine
}

// NewRenderer returns a renderer with the options; they must not change
// while it is used.
func NewRenderer(opts *Provider) *Renderer {
	e := &engine{opts: opts, parallelMin: parallelMin, sel: newSelection(opts)}
	return &Renderer{e: e}
}

// Render translates snap. The first render, a nil changes, changes that
// say everything may have changed, or a snapshot that cannot look up one
// Ingress translate everything; otherwise only what depends on the objects
// in changes is translated again. changed says whether the configuration
// differs from the previous render's; when it does not, the previous
// configuration is returned again.
func (r *Renderer) Render(snap Snapshot, changes *Changes) (res *Result, changed bool) {
	e := r.e
	e.snap = snap
	// The servers the client's index chose are taken when it chose them
	// as this renderer would.
	e.indexSel = nil
	if sr, ok := snap.(serviceReader); ok {
		if sel := sr.indexSelection(); sel != nil && sel.same(e.sel) {
			e.indexSel = sel
		}
	}
	defer func() { e.snap = nil }()
	set := changes.take()
	getter, canLookUp := snap.(ingressGetter)
	if e.res == nil || set.full || !canLookUp {
		return e.full()
	}
	if set.nodes && e.locNodes {
		// The zone of this proxy may have changed, which every load
		// balancer with zone hints depends on.
		node, zone := e.node, e.zone
		e.locate()
		if node != e.node || zone != e.zone {
			// full compares with the zone the load balancers were built for.
			e.node, e.zone = node, zone
			return e.full()
		}
	}
	return r.incrementalOrFull(getter, set)
}

// incrementalOrFull renders incrementally. Should that fail in a way it
// cannot (a panic, which is a bug), it renders in full, which rebuilds
// every part, and counts it in Stats: a proxy keeps serving while the bug
// is reported.
func (r *Renderer) incrementalOrFull(getter ingressGetter, set changeSet) (res *Result, changed bool) {
	defer func() {
		if p := recover(); p != nil {
			r.e.stats.Recovered++
			r.e.stats.LastRecovered = fmt.Sprint(p)
			r.e.stale, r.e.reuse, r.e.zeroed = entryMap{}, false, nil
			res, changed = r.e.full()
		}
	}()
	return r.e.incremental(getter, set)
}

// ingressGetter is what an incremental render needs of a snapshot beyond
// Snapshot: one Ingress by name (nil when it is gone or not watched).
type ingressGetter interface {
	Ingress(namespace, name string) *netv1.Ingress
}

// Changes collects which objects changed since the last render, from the
// informers' events (Record is a k8s.OnChange). It is safe for concurrent
// use; the zero value is ready.
type Changes struct {
	mu  sync.Mutex
	set changeSet
}

type changeSet struct {
	full      bool                // something every part may depend on
	classes   bool                // an IngressClass: which Ingresses are served
	nodes     bool                // a Node: node ports and the zone of this proxy
	ingresses map[string]struct{} // namespace/name
	services  map[string]struct{} // namespace/name of Services, also for their EndpointSlices
	secrets   map[string]struct{} // namespace/name
}

// All says that everything may have changed: the next render is full.
func (c *Changes) All() {
	c.mu.Lock()
	c.set.full = true
	c.mu.Unlock()
}

// Record notes the objects of an informer event that counts: nil and the
// new object for an add, old and new for an update, the old one (or its
// tombstone) for a delete.
func (c *Changes) Record(kind string, old, new any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, obj := range [2]any{old, new} {
		if obj != nil {
			c.set.record(kind, obj)
		}
	}
}

func (s *changeSet) record(kind string, obj any) {
	key := ""
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		key, obj = tomb.Key, tomb.Obj
	}
	var labels map[string]string
	if m, err := meta.Accessor(obj); err == nil {
		key, labels = m.GetNamespace()+"/"+m.GetName(), m.GetLabels()
	}
	add := func(set *map[string]struct{}, key string) {
		if *set == nil {
			*set = map[string]struct{}{}
		}
		(*set)[key] = struct{}{}
	}
	switch {
	case kind == "Node":
		s.nodes = true
	case kind == "IngressClass":
		s.classes = true
	case key == "" || !strings.Contains(key, "/"):
		s.full = true // nothing to tell which parts depend on it
	case kind == "Ingress":
		add(&s.ingresses, key)
	case kind == "Service":
		add(&s.services, key)
	case kind == "Secret":
		add(&s.secrets, key)
	case kind == "EndpointSlice":
		if labels == nil {
			s.full = true // a tombstone without its object: which Service?
		} else if svc := labels[discoveryv1.LabelServiceName]; svc != "" {
			ns, _, _ := strings.Cut(key, "/")
			add(&s.services, ns+"/"+svc)
		}
	default:
		s.full = true
	}
}

// take returns what changed and starts a new collection. A nil Changes
// says everything changed.
func (c *Changes) take() changeSet {
	if c == nil {
		return changeSet{full: true}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.set
	c.set = changeSet{}
	return set
}

// engine holds the parts of the last translation and assembles them.
type engine struct {
	opts       *Provider
	snap       Snapshot // during a render
	sel        selection
	node, zone string     // where this proxy runs (locate), for topology hints
	indexSel   *selection // during a render: the snapshot's index's selection, when it is sel
	// During a full render: the routers the snapshot's order built are
	// for these options.
	builtRouters bool
	backends     []endpoints.Backend // scratch for endpoints.AppendSelect

	// A full render translates on several goroutines from parallelMin
	// Ingresses on; locked says that they are filling the entries.
	parallelMin     int
	locked          bool
	parallelRenders int // for tests
	// oneShot: the engine of a Translate, whose parts and entries die with
	// its one render; they are made in slabs then (partSlab, the shards').
	oneShot  bool
	partSlab []ingressPart

	// What the annotations of Ingresses and Services decoded into.
	routerSets  annotationMemo[*routerAnnotations]
	serviceSets annotationMemo[*serviceAnnotations]

	classes  classSet
	locErrs  []*ObjectError // about this proxy's Node
	locNodes bool           // the zone comes from this proxy's Node

	parts       map[string]*ingressPart   // the served Ingresses, by namespace/name
	served      []*ingressPart            // the same, oldest first
	entries     entryMap                  // the Service ports in use, by id
	svcUsers    map[string][]*ingressPart // namespace/name of a Service -> the parts that use it
	secUsers    map[string][]*ingressPart // namespace/name of a Secret -> the parts that use it
	errParts    map[*ingressPart]struct{}
	errEntries  map[*serviceEntry]struct{}
	nodeEntries int // entries in use that read the Nodes

	// During a render: the entries of Services that changed (or, in a full
	// render, all previous entries), and whether an entry whose Service and
	// EndpointSlices are the same objects may be taken whole.
	stale  entryMap
	spare  entryMap // the entries of the full render before the last, to fill again
	reuse  bool
	zeroed []*serviceEntry // entries that lost their last user

	conf      *dynamic.Configuration
	groups    map[string]*routerGroup
	slab      []routerGroup // where a full assembly takes its groups from, in one allocation
	svcRefs   map[string]svcRef
	certRefs  map[string]*certRef
	dbParts   map[*ingressPart]struct{}
	dbErrs    []*ObjectError
	asmErrs   []*ObjectError                  // names taken across groups, found by a full assembly
	errGroups map[*routerGroup][]*ObjectError // groups with paths that repeat an older one's rule, and those paths
	irregular bool                            // the last full assembly met names whose outcome depends on order: assemble in full until it does not
	// Routers of different keys with one rule: Traefik would pick one of
	// them at random when their priorities and entry points are the same.
	// rulePlaced counts the routers in the configuration by rule; tied are
	// the rules that more than one router had at the last full assembly
	// (which settled them: the oldest path keeps its router), and tieErrs
	// what it reported. A change that touches a tied rule, or gives a
	// router a rule another router has, is assembled in full.
	rulePlaced map[string]int32
	placed     int // the routers a full assembly placed
	tied       map[string]struct{}
	tieErrs    []*ObjectError
	crossed    bool // a full assembly met a group whose key another group had taken
	res        *Result
	ingresses  []*netv1.Ingress        // the served Ingresses of the last result, shared while they do not change
	texts      map[*ObjectError]string // the texts of recent problems, for sorting
	errsDirty  bool                    // the problems may differ from those of e.res
	stats      RenderStats
}

// RenderStats count a Renderer's renders by kind.
type RenderStats struct {
	// Full renders translated everything: the first one, and those after a
	// change that every part may depend on (the zone of this proxy's Node,
	// an event without its object).
	Full int
	// Incremental renders translated only the Ingresses that depend on the
	// changed objects.
	Incremental int
	// Reassembled renders translated incrementally but then had to name
	// all routers again, because the names of routers in conflict depend on
	// their order.
	Reassembled int
	// Parts is how many Ingresses the incremental renders translated.
	Parts int
	// Translated is how many Ingresses all renders translated, full ones
	// included (each served Ingress once per full render).
	Translated int
	// Refreshed is how many load balancers incremental renders rebuilt
	// after a change of their Service, EndpointSlices or the Nodes
	// without translating the Ingresses that use them again (nothing
	// those read had changed).
	Refreshed int
	// Recovered counts incremental renders that panicked (a bug) and were
	// done in full instead; LastRecovered is the last panic's value.
	Recovered     int
	LastRecovered string
}

// Stats returns the counts of renders so far.
func (r *Renderer) Stats() RenderStats { return r.e.stats }

// ingressPart is what one served Ingress contributes.
type ingressPart struct {
	key         string // namespace/name
	createdSec  int64  // the creation time, for the order of parts
	createdNsec int32
	nsLen       int32 // the length of the namespace in key
	ing         *netv1.Ingress
	routers     []*pendingRouter
	entries     []*serviceEntry
	x           *partExtra // nil for most parts
	// Most Ingresses have one path: room for it, and for its router's
	// place in the assembly, without more allocations.
	routerBuf  [1]*pendingRouter
	entryBuf   [1]*serviceEntry
	pendingBuf [1]pendingRouter
}

// newPending returns room for p's next router: in p for its first.
func (p *ingressPart) newPending() *pendingRouter {
	if len(p.routers) == 0 {
		return &p.pendingBuf[0]
	}
	return &pendingRouter{}
}

// partExtra is what few parts have: problems, a default backend, TLS
// certificates. Apart, it leaves a part of the common Ingress (one path, no
// TLS, no problem) at 176 bytes instead of 256.
type partExtra struct {
	errs           []*ObjectError
	defaultBackend *defaultCandidate
	certs          []certUse
	secrets        []string                   // namespace/name
	entrySet       map[*serviceEntry]struct{} // the entries, while a part with many is translated
}

// extra returns p's partExtra, for writing.
func (p *ingressPart) extra() *partExtra {
	if p.x == nil {
		p.x = &partExtra{}
	}
	return p.x
}

// errs are the problems of the Ingress itself.
func (p *ingressPart) errs() []*ObjectError {
	if p.x == nil {
		return nil
	}
	return p.x.errs
}

// defaultBackend is the candidate of the Ingress's spec.defaultBackend.
func (p *ingressPart) defaultBackend() *defaultCandidate {
	if p.x == nil {
		return nil
	}
	return p.x.defaultBackend
}

// certs are the certificates of the Ingress's spec.tls.
func (p *ingressPart) certs() []certUse {
	if p.x == nil {
		return nil
	}
	return p.x.certs
}

// secrets are the Secrets the Ingress's spec.tls names, namespace/name.
func (p *ingressPart) secrets() []string {
	if p.x == nil {
		return nil
	}
	return p.x.secrets
}

func (p *ingressPart) errorf(field string, sev Severity, err error) {
	x := p.extra()
	x.errs = append(x.errs, &ObjectError{Kind: "Ingress", Namespace: p.ing.Namespace, Name: p.ing.Name, Field: field, Severity: sev, Err: err})
}

// use records that the part uses en. An Ingress with many paths to many
// Services gets a set for the lookup (during its translation only), so
// that its translation stays linear in its paths.
func (p *ingressPart) use(en *serviceEntry) {
	switch n := len(p.entries); {
	case n > 0 && p.entries[n-1] == en:
		return
	case p.x != nil && p.x.entrySet != nil:
		if _, ok := p.x.entrySet[en]; ok {
			return
		}
		p.x.entrySet[en] = struct{}{}
	case slices.Contains(p.entries, en):
		return
	case n >= 16:
		set := make(map[*serviceEntry]struct{}, 2*n)
		for _, e := range p.entries {
			set[e] = struct{}{}
		}
		set[en] = struct{}{}
		p.extra().entrySet = set
	}
	p.entries = append(p.entries, en)
}

// compareParts orders Ingresses oldest first, so that a newer Ingress
// cannot take the default backend or a router name of an older one; names
// break ties so the order is total.
func compareParts(a, b *ingressPart) int {
	// The keys are in the parts: sorting ten thousand of them does not
	// read ten thousand Ingresses.
	if c := cmp.Or(cmp.Compare(a.createdSec, b.createdSec), cmp.Compare(a.createdNsec, b.createdNsec)); c != 0 {
		return c
	}
	if c := strings.Compare(a.key[:a.nsLen], b.key[:b.nsLen]); c != 0 {
		return c
	}
	return strings.Compare(a.key[a.nsLen+1:], b.key[b.nsLen+1:])
}

type defaultCandidate struct {
	router  *dynamic.Router // nil when the backend cannot be used
	service *dynamic.Service
	errs    []*ObjectError // why it cannot, reported unless an older Ingress has the default backend
}

type certUse struct {
	key  string // namespace-secretName
	cert *dynamic.CertAndStores
}

// serviceEntry is the load balancer of one Service port, shared by the
// Ingress paths that name it.
type serviceEntry struct {
	id     string // namespace/service/port (#number for a port number)
	svcKey string // namespace/service
	name   string // the service's name in the configuration

	// The objects it was built from: the Service, its slices and, from the
	// client's index, their prepared forms and the servers chosen from
	// them; nil when there is no such Service.
	objs *serviceObjects

	service *dynamic.Service
	err     error          // why the Service port has no load balancer
	errs    []*ObjectError // problems of the Service and its slices, reported while it is used
	users   int32          // the parts that use it
	// noServers says that service has no server: what lacksServers reads
	// for every path, without going to the load balancer.
	noServers bool
	nodes     bool // built from the Nodes (node ports)
	// (112 bytes: ten thousand of them are made by a full render.)
}

// svc is the Service the entry was built from, nil when there was none.
func (en *serviceEntry) svc() *corev1.Service {
	if en.objs == nil {
		return nil
	}
	return en.objs.svc
}

// slices are the EndpointSlices the entry was built from.
func (en *serviceEntry) slices() []*discoveryv1.EndpointSlice {
	if en.objs == nil {
		return nil
	}
	return en.objs.slices
}

type routerGroup struct {
	key     string
	members []*pendingRouter
	placed  []placement // the router names given to the members
	// Most keys have one router: room for it without more allocations.
	memberBuf [1]*pendingRouter
	placedBuf [1]placement
}

// placement is a router name given to a member of a group.
type placement struct {
	name string
	pr   *pendingRouter
}

// svcRef counts the routers that send to a service name.
type svcRef struct {
	count   int
	service *dynamic.Service
}

type certRef struct {
	count int
	cert  *dynamic.CertAndStores
}

// entry returns the entry of a Service port, building it on first use.
// During a parallel full render the entries are kept in shards, each
// with its own lock and scratch buffer, so that the goroutines build
// different entries at once and each entry once.
func (e *engine) entry(id, namespace string, sb *netv1.IngressServiceBackend, port string) *serviceEntry {
	sh := e.entries.shard(id)
	if e.locked {
		sh.mu.Lock()
		defer sh.mu.Unlock()
	}
	if en, ok := sh.entries[id]; ok {
		return en
	}
	en := e.newEntry(id, namespace, sb, port, &sh.backends, sh)
	sh.entries[id] = en
	return en
}

// newEntry takes the previous render's entry of the Service port when its
// objects are the same, else builds one (scratch is the buffer for the
// endpoint selection).
func (e *engine) newEntry(id, namespace string, sb *netv1.IngressServiceBackend, port string, scratch *[]endpoints.Backend, sh *entryShard) *serviceEntry {
	// id starts with namespace/service.
	en := sh.alloc()
	*en = serviceEntry{id: id, svcKey: id[:len(namespace)+1+len(sb.Name)]}
	if sr, ok := e.snap.(serviceReader); ok {
		if o := sr.serviceObjects(en.svcKey); o != nil && o.svc != nil {
			en.objs = o
		}
	} else if svc := e.snap.Service(namespace, sb.Name); svc != nil {
		en.objs = &serviceObjects{svc: svc, slices: e.snap.EndpointSlices(namespace, sb.Name)}
	}
	old := e.stale.get(id)
	if old != nil && e.reuse && !old.nodes && old.svc() == en.svc() && samePointers(old.slices(), en.slices()) {
		old.users = 0
		return old
	}
	var built *selectedPort
	if en.objs != nil {
		built = en.objs.selected.service(sb.Port, e.indexSel, e.node, e.zone)
	}
	if built != nil {
		// The client's index built it when the objects arrived.
		en.name, en.service, en.noServers = built.key(sb.Port), built.service, len(built.servers) == 0
		en.sliceProblems(built.problems)
	} else {
		en.name = serviceKey(namespace, sb.Name, port)
		e.buildService(en, namespace, sb, scratch)
		en.noServers = en.service != nil && len(en.service.LoadBalancer.Servers) == 0
	}
	// An unchanged load balancer keeps its pointer, so that the assembly
	// sees at a glance that nothing changed.
	if old != nil && old.service != nil && en.service != nil && reflect.DeepEqual(old.service, en.service) {
		en.service = old.service
	}
	return en
}

// entryMap holds entries by id, in shards by the hash of the id: a
// parallel full render fills them from several goroutines at once, each
// shard behind its lock, and keeps them so (merging ten thousand entries
// into one map took a few milliseconds of each render). The zero entryMap
// is empty and takes no entry.
type entryMap struct {
	seed   maphash.Seed
	shards []entryShard
}

// newEntryMap makes an entryMap of the given shards with room for size
// entries.
func newEntryMap(shards, size int) entryMap {
	m := entryMap{seed: maphash.MakeSeed(), shards: make([]entryShard, shards)}
	for i := range m.shards {
		m.shards[i].entries = make(map[string]*serviceEntry, size/shards+1)
	}
	return m
}

// shard is the shard of id; nil in the zero entryMap.
func (m *entryMap) shard(id string) *entryShard {
	switch len(m.shards) {
	case 0:
		return nil
	case 1:
		return &m.shards[0]
	}
	return &m.shards[maphash.String(m.seed, id)%uint64(len(m.shards))]
}

func (m *entryMap) get(id string) *serviceEntry {
	if sh := m.shard(id); sh != nil {
		return sh.entries[id]
	}
	return nil
}

func (m *entryMap) set(id string, en *serviceEntry) { m.shard(id).entries[id] = en }

func (m *entryMap) delete(id string) {
	if sh := m.shard(id); sh != nil {
		delete(sh.entries, id)
	}
}

func (m *entryMap) len() int {
	n := 0
	for i := range m.shards {
		n += len(m.shards[i].entries)
	}
	return n
}

// all is the entries, shard by shard; the loop may delete the entry it is at.
func (m *entryMap) all() iter.Seq2[string, *serviceEntry] {
	return func(yield func(string, *serviceEntry) bool) {
		for i := range m.shards {
			for id, en := range m.shards[i].entries {
				if !yield(id, en) {
					return
				}
			}
		}
	}
}

// alloc returns room for a new entry: in the shard's slab while it has
// some (sh may be nil).
func (sh *entryShard) alloc() *serviceEntry {
	if sh != nil && len(sh.slab) < cap(sh.slab) {
		sh.slab = sh.slab[:len(sh.slab)+1]
		return &sh.slab[len(sh.slab)-1]
	}
	return &serviceEntry{}
}

// partSlot returns room for the part of Ingress i of a full render: in the
// engine's slab of parts when it has one (oneShot), else nil.
func (e *engine) partSlot(i int) *ingressPart {
	if i < len(e.partSlab) {
		return &e.partSlab[i]
	}
	return nil
}

// newEntries returns an entryMap of the given shards for a full render:
// the one the full render before last filled (spare), cleared, when it
// has as many shards, else a new one with room for size entries.
func (e *engine) newEntries(shards, size int) entryMap {
	m := e.spare
	e.spare = entryMap{}
	if len(m.shards) != shards {
		m = newEntryMap(shards, size)
	}
	for i := range m.shards {
		sh := &m.shards[i]
		clear(sh.entries)
		if e.oneShot {
			// Room for a sixth more than the average: the rest, if any,
			// are made one by one.
			if room := size/shards + size/shards/6 + 4; cap(sh.slab) < room {
				sh.slab = make([]serviceEntry, 0, room)
			}
			sh.slab = sh.slab[:0]
		}
	}
	return m
}

// reuse returns m cleared, or, when there is none, a new map with room for
// n: the maps a full render fills from nothing are those of the last one
// (whose contents are no longer read), so that a render at ten thousand
// Ingresses does not make megabytes of maps for the collector to catch up
// with each time.
func reuse[M ~map[K]V, K comparable, V any](m M, n int) M {
	if m == nil {
		return make(M, n)
	}
	clear(m)
	return m
}

// entryShard is one shard of an entryMap, with the scratch buffer of the
// endpoint selection for the entries built into it.
type entryShard struct {
	mu       sync.Mutex
	entries  map[string]*serviceEntry
	backends []endpoints.Backend
	// slab, in a render of Translate, is room for the entries made into
	// the shard, which die with the render (oneShot).
	slab []serviceEntry
	// 64 bytes, a cache line each: the goroutines lock different shards.
}

// parallelMin is how many served Ingresses a full render needs to
// translate them on several goroutines; below it, starting them costs more
// than it saves.
const parallelMin = 256

// translateAll translates the served Ingresses of a full render, in their
// order. With a snapshot that may be read concurrently, enough Ingresses
// and more than one CPU, goroutines share the work, taking blocks of
// Ingresses in turn; the result is the same as one goroutine's, since an
// Ingress's part depends only on the objects it names. A panic while
// translating an Ingress costs that Ingress only (translateIngress).
func (e *engine) translateAll(ings []*netv1.Ingress, pres []*orderedIngress) (parts []*ingressPart, parallel bool) {
	parts = make([]*ingressPart, len(ings))
	pre := func(i int) *orderedIngress {
		if pres == nil {
			return nil
		}
		return pres[i]
	}
	workers := e.workers(len(ings))
	// Maps at their size from the start: growing them is a good part of a
	// full render at ten thousand Ingresses.
	size := max(len(ings), e.stale.len())
	if e.oneShot {
		if cap(e.partSlab) < len(ings) {
			e.partSlab = make([]ingressPart, len(ings))
		}
		e.partSlab = e.partSlab[:len(ings)]
	}
	if workers < 2 {
		e.entries = e.newEntries(1, size)
		for i, ing := range ings {
			parts[i] = e.translateIngress(ing, pre(i), e.partSlot(i))
		}
		return parts, false
	}
	const block = 32
	e.entries = e.newEntries(64, size)
	e.locked = true
	defer func() { e.locked = false }()
	e.parallelRenders++
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				start := int(next.Add(block)) - block
				if start >= len(ings) {
					return
				}
				for i := start; i < min(start+block, len(ings)); i++ {
					parts[i] = e.translateIngress(ings[i], pre(i), e.partSlot(i)) // which recovers a panic
				}
			}
		})
	}
	wg.Wait()
	return parts, true
}

// workers is how many goroutines translate n Ingresses.
func (e *engine) workers(n int) int {
	if cr, ok := e.snap.(concurrentReader); !ok || !cr.ConcurrentReads() {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), n/e.parallelMin, 16))
}

// sortHalves sorts the halves of s as slices.SortFunc does, each on its
// own goroutine, then merges them, handing emit each element in order (its
// place, the element) instead of writing them back: s is left with its
// halves sorted.
func sortHalves[E any](s []E, cmp func(a, b E) int, emit func(int, E)) {
	mid := len(s) / 2
	var wg sync.WaitGroup
	wg.Go(func() { slices.SortFunc(s[:mid], cmp) })
	slices.SortFunc(s[mid:], cmp)
	wg.Wait()
	i, j, k := 0, mid, 0
	for ; i < mid && j < len(s); k++ {
		if cmp(s[j], s[i]) < 0 {
			emit(k, s[j])
			j++
		} else {
			emit(k, s[i])
			i++
		}
	}
	for ; i < mid; i, k = i+1, k+1 {
		emit(k, s[i])
	}
	for ; j < len(s); j, k = j+1, k+1 {
		emit(k, s[j])
	}
}

// ingressSortKey is what sortByKey sorts an Ingress by: the rank of its
// namespace and the first 16 bytes of its name, zero-padded (a name has
// no zero byte, so the padding sorts first, as a shorter name does).
type ingressSortKey struct {
	ns   int
	a, b uint64
	ing  *netv1.Ingress
}

func compareSortKeys(x, y ingressSortKey) int {
	if c := cmp.Or(cmp.Compare(x.ns, y.ns), cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b)); c != 0 {
		return c
	}
	return strings.Compare(x.ing.Name, y.ing.Name) // names that share 16 bytes
}

// sortByKey sorts ings by namespace, then name (on two goroutines when
// parallel). Comparing the Ingresses themselves read two objects from all
// over the cache for each of some 140,000 comparisons at ten thousand
// Ingresses; this reads each once.
func sortByKey(ings []*netv1.Ingress, parallel bool) {
	ranks := map[string]int{}
	var namespaces []string
	for _, ing := range ings {
		if _, ok := ranks[ing.Namespace]; !ok {
			ranks[ing.Namespace] = 0
			namespaces = append(namespaces, ing.Namespace)
		}
	}
	slices.Sort(namespaces)
	for i, ns := range namespaces {
		ranks[ns] = i
	}
	keys := make([]ingressSortKey, len(ings))
	last, rank := "", 0
	for i, ing := range ings {
		if i == 0 || ing.Namespace != last {
			last, rank = ing.Namespace, ranks[ing.Namespace]
		}
		var name [16]byte
		copy(name[:], ing.Name)
		keys[i] = ingressSortKey{ns: rank, a: binary.BigEndian.Uint64(name[:8]), b: binary.BigEndian.Uint64(name[8:]), ing: ing}
	}
	if parallel {
		sortHalves(keys, compareSortKeys, func(i int, k ingressSortKey) { ings[i] = k.ing })
		return
	}
	slices.SortFunc(keys, compareSortKeys)
	for i := range keys {
		ings[i] = keys[i].ing
	}
}

// sortByAge returns parts, which are in key order (namespace, then name),
// in the order of compareParts: by age, and in key order among those of
// the same age; parts is not changed. It sorts numbers, not ten thousand
// parts through their pointers, which takes several times as long: the
// creation times the API server gives are whole seconds, so the age and
// the place of a part make one number; times with fractions, or too far
// apart, are sorted as (seconds, nanoseconds, place) triples instead.
func sortByAge(parts []*ingressPart) []*ingressPart {
	const placeBits = 24
	out := make([]*ingressPart, len(parts))
	if len(parts) == 0 {
		return out
	}
	sorted, whole := true, true
	minSec, maxSec := parts[0].createdSec, parts[0].createdSec
	for i, p := range parts {
		minSec, maxSec = min(minSec, p.createdSec), max(maxSec, p.createdSec)
		whole = whole && p.createdNsec == 0
		if i > 0 && sorted {
			prev := parts[i-1]
			sorted = prev.createdSec < p.createdSec || prev.createdSec == p.createdSec && prev.createdNsec <= p.createdNsec
		}
	}
	switch {
	case sorted:
		copy(out, parts)
	case whole && len(parts) < 1<<placeBits && maxSec-minSec < 1<<(64-placeBits):
		keys := make([]uint64, len(parts))
		for i, p := range parts {
			keys[i] = uint64(p.createdSec-minSec)<<placeBits | uint64(i)
		}
		slices.Sort(keys)
		for i, k := range keys {
			out[i] = parts[k&(1<<placeBits-1)]
		}
	default:
		type aged struct {
			sec        int64
			nsec, from int32
		}
		ages := make([]aged, len(parts))
		for i, p := range parts {
			ages[i] = aged{sec: p.createdSec, nsec: p.createdNsec, from: int32(i)}
		}
		slices.SortFunc(ages, func(a, b aged) int {
			return cmp.Or(cmp.Compare(a.sec, b.sec), cmp.Compare(a.nsec, b.nsec), cmp.Compare(a.from, b.from))
		})
		for i, a := range ages {
			out[i] = parts[a.from]
		}
	}
	return out
}

// samePointers says whether a and b hold the same objects, in any order.
func samePointers[T any](a, b []*T) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// addUser records that p uses key; a part uses a key once.
// addUser adds p to the users of key. A part is recorded once, all its
// keys in a row (record), so that p is already among the users of key only
// when it was the last added: a Service shared by thousands of Ingresses
// costs no search of its users.
func addUser(users map[string][]*ingressPart, key string, p *ingressPart) {
	list := users[key]
	if n := len(list); n > 0 && list[n-1] == p {
		return // another port of the same Service
	}
	users[key] = append(list, p)
}

// removeUsers takes the parts in gone (a set of them) out of the users of
// key. A few are found one by one; more are filtered out in one pass, so
// that taking all the users of a shared Service out is linear, not
// quadratic.
func removeUsers(users map[string][]*ingressPart, key string, count int, gone map[*ingressPart]struct{}, parts []*ingressPart) {
	list := users[key]
	if count <= 4 {
		for _, p := range parts {
			if i := slices.Index(list, p); i >= 0 {
				list[i] = list[len(list)-1]
				list[len(list)-1] = nil
				list = list[:len(list)-1]
			}
		}
	} else {
		list = slices.DeleteFunc(list, func(p *ingressPart) bool { _, ok := gone[p]; return ok })
	}
	if len(list) == 0 {
		delete(users, key)
	} else {
		users[key] = list
	}
}

// addParts records parts, at their places in e.served, and what they
// depend on. Each part's place is found by binary search in the list as it
// was; then the list is opened once, from the back: adding k parts to n
// costs k binary searches and one pass, not k passes.
func (e *engine) addParts(news []*ingressPart) {
	sorted := slices.SortedFunc(slices.Values(news), compareParts)
	pos := make([]int, len(sorted))
	for j, p := range sorted {
		pos[j], _ = slices.BinarySearchFunc(e.served, p, compareParts)
	}
	end := len(e.served) // the parts before end have not moved yet
	e.served = slices.Grow(e.served, len(sorted))[:end+len(sorted)]
	for j := len(sorted) - 1; j >= 0; j-- {
		copy(e.served[pos[j]+j+1:end+j+1], e.served[pos[j]:end])
		e.served[pos[j]+j] = sorted[j]
		end = pos[j]
	}
	for _, p := range news {
		e.record(p)
	}
}

// record records a part in e.parts and what it depends on.
func (e *engine) record(p *ingressPart) {
	if e.recordUses(p) {
		e.errsDirty = true
	}
	if p.defaultBackend() != nil {
		e.dbParts[p] = struct{}{}
	}
}

// recordUses is record but for the default-backend candidate, and says
// whether the problems may differ (instead of setting e.errsDirty).
func (e *engine) recordUses(p *ingressPart) (dirty bool) {
	e.parts[p.key] = p
	for _, en := range p.entries {
		en.users++
		if en.users == 1 {
			if en.nodes {
				e.nodeEntries++
			}
			if len(en.errs) > 0 {
				e.errEntries[en] = struct{}{}
				dirty = true
			}
		}
		addUser(e.svcUsers, en.svcKey, p)
	}
	for _, s := range p.secrets() {
		addUser(e.secUsers, s, p)
	}
	if len(p.errs()) > 0 {
		e.errParts[p] = struct{}{}
		dirty = true
	}
	return dirty
}

// removeParts forgets parts (recorded ones, each once) and what they
// depended on. Like addParts, it costs one pass over e.served and over
// the users of each key, however many parts go.
func (e *engine) removeParts(olds []*ingressPart) {
	if len(olds) == 0 {
		return
	}
	at := make([]int, 0, len(olds))
	for _, p := range olds {
		if i, found := slices.BinarySearchFunc(e.served, p, compareParts); found && e.served[i] == p {
			at = append(at, i)
		}
	}
	slices.Sort(at)
	if len(at) > 0 {
		w := at[0]
		for r, next := at[0], 0; r < len(e.served); r++ {
			if next < len(at) && r == at[next] {
				next++
				continue
			}
			e.served[w] = e.served[r]
			w++
		}
		clear(e.served[w:])
		e.served = e.served[:w]
	}

	gone := make(map[*ingressPart]struct{}, len(olds))
	svcKeys, secKeys := map[string][]*ingressPart{}, map[string][]*ingressPart{}
	for _, p := range olds {
		gone[p] = struct{}{}
		delete(e.parts, p.key)
		for _, en := range p.entries {
			en.users--
			if en.users == 0 {
				if en.nodes {
					e.nodeEntries--
				}
				if len(en.errs) > 0 {
					delete(e.errEntries, en)
					e.errsDirty = true
				}
				e.zeroed = append(e.zeroed, en)
			}
			if list := svcKeys[en.svcKey]; len(list) == 0 || list[len(list)-1] != p {
				svcKeys[en.svcKey] = append(list, p)
			}
		}
		for _, s := range p.secrets() {
			secKeys[s] = append(secKeys[s], p)
		}
		if len(p.errs()) > 0 {
			delete(e.errParts, p)
			e.errsDirty = true
		}
		delete(e.dbParts, p)
	}
	for key, parts := range svcKeys {
		removeUsers(e.svcUsers, key, len(parts), gone, parts)
	}
	for key, parts := range secKeys {
		removeUsers(e.secUsers, key, len(parts), gone, parts)
	}
}

// sweep drops the entries nobody uses any more.
func (e *engine) sweep() {
	for _, en := range e.zeroed {
		if en.users == 0 && e.entries.get(en.id) == en {
			e.entries.delete(en.id)
		}
	}
	e.zeroed = e.zeroed[:0]
	e.stale = entryMap{}
	e.reuse = false
	e.opts.certs.prune(e.secUsers)
}

// full translates everything. The load balancers of the previous render
// are taken whole when their Service and EndpointSlices are the very same
// objects (informer objects are never modified, only replaced) and this
// proxy's node and zone are the same.
func (e *engine) full() (*Result, bool) {
	e.stats.Full++
	node, zone := e.node, e.zone
	e.locate()
	e.stale = e.entries
	// The entries before, emptied, for the next full render to fill: kept
	// full, they would hold on to the objects of Services since deleted.
	defer func(old entryMap) {
		for i := range old.shards {
			clear(old.shards[i].entries)
		}
		e.spare = old
	}(e.entries)
	e.reuse = e.res != nil && node == e.node && zone == e.zone
	e.classes = e.readClasses()
	// Translated in the order of their keys, which is the order informers
	// list (and so allocate) objects in: an Ingress's Service and slices,
	// mostly named alike, are then read from memory nearby, not from all
	// over the cache. (The parts are sorted by age afterwards.) The
	// informer client's snapshot lists them in that order already, with
	// the names that depend on nothing but the Ingress: its Ingress
	// handler keeps them in a tree (ingressOrder).
	var served []*netv1.Ingress
	var pres []*orderedIngress // with served, when the snapshot lists them so
	e.builtRouters = false
	if or, ok := e.snap.(orderedReader); ok {
		list := or.orderedIngresses()
		build := or.orderBuild()
		e.builtRouters = build != nil && build.strictPrefix == e.opts.StrictPrefixMatching
		served, pres = make([]*netv1.Ingress, 0, len(list)), make([]*orderedIngress, 0, len(list))
		for _, oi := range list {
			if e.classes.serves(oi.ing, e.opts.IngressClass) {
				served, pres = append(served, oi.ing), append(pres, oi)
			}
		}
	} else {
		all := e.snap.Ingresses()
		served = make([]*netv1.Ingress, 0, len(all))
		for _, ing := range all {
			if ing != nil && e.classes.serves(ing, e.opts.IngressClass) {
				served = append(served, ing)
			}
		}
		sortByKey(served, e.workers(len(served)) > 1)
	}
	// Maps at their size from the start: growing them is a good part of a
	// full render at ten thousand Ingresses.
	n := len(served)
	e.parts = reuse(e.parts, n)
	e.svcUsers = reuse(e.svcUsers, max(n, e.stale.len()))
	e.secUsers = map[string][]*ingressPart{}
	e.errParts = map[*ingressPart]struct{}{}
	e.errEntries = map[*serviceEntry]struct{}{}
	e.dbParts = map[*ingressPart]struct{}{}
	e.nodeEntries = 0
	parts, parallel := e.translateAll(served, pres)
	e.stats.Translated += len(parts)
	// After a parallel translation three things run at once instead of
	// one after the other: merging the entries and sorting a copy of the
	// parts by age (which read only the shards and the parts), the
	// bookkeeping of the parts (recordUses: the users of each entry, Secret
	// and Service, the parts with problems) and the assembly of the
	// configuration, which reads the parts, the default-backend candidates
	// (filed before) and, for the certificates at its end, the sorted
	// copy (it waits for it); none writes what another reads.
	for _, p := range parts {
		if p.defaultBackend() != nil {
			e.dbParts[p] = struct{}{}
		}
	}
	order := func() { e.served = sortByAge(parts) }
	dirty := false
	recordAll := func() {
		for _, p := range parts {
			dirty = e.recordUses(p) || dirty
		}
	}
	prev := e.conf
	if !parallel {
		order()
		recordAll()
		e.assembleAll(parts, nil)
	} else {
		var ordered, recorded sync.WaitGroup
		func() {
			// Waited for even if the assembly panics: the other
			// goroutines must not write the engine while a recovering
			// render runs.
			defer recorded.Wait()
			defer ordered.Wait()
			ordered.Go(order)
			recorded.Go(recordAll)
			e.assembleAll(parts, ordered.Wait)
		}()
	}
	e.errsDirty = e.errsDirty || dirty
	e.ingresses = nil
	e.sweep()
	return e.result(), prev == nil || !sameConfiguration(prev, e.conf)
}

// incremental translates again the parts that depend on the changed
// objects and patches the previous configuration with them.
func (e *engine) incremental(getter ingressGetter, set changeSet) (*Result, bool) {
	e.stats.Incremental++
	dirty := map[string]struct{}{}
	e.stale = newEntryMap(1, 0)
	var swaps []lbSwap
	for svc := range set.services {
		if sw, ok := e.refresh(svc); ok {
			swaps = append(swaps, sw...)
			continue
		}
		for _, p := range e.svcUsers[svc] {
			dirty[p.key] = struct{}{}
			for _, en := range p.entries {
				if en.svcKey == svc && e.entries.get(en.id) == en {
					e.stale.set(en.id, en)
					e.entries.delete(en.id)
				}
			}
		}
	}
	for s := range set.secrets {
		for _, p := range e.secUsers[s] {
			dirty[p.key] = struct{}{}
		}
	}
	for key := range set.ingresses {
		dirty[key] = struct{}{}
	}
	if set.nodes && e.nodeEntries > 0 {
		// Node ports: the load balancers built from the Nodes, refreshed
		// in place, or else translated again with their users.
		nodeServices := map[string]bool{}
		for _, en := range e.entries.all() {
			if en.nodes {
				nodeServices[en.svcKey] = true
			}
		}
		for svc := range nodeServices {
			if sw, ok := e.refresh(svc); ok {
				swaps = append(swaps, sw...)
				nodeServices[svc] = false
			}
		}
		for id, en := range e.entries.all() {
			if en.nodes && nodeServices[en.svcKey] {
				e.stale.set(id, en)
				e.entries.delete(id)
				for _, p := range e.svcUsers[en.svcKey] {
					dirty[p.key] = struct{}{}
				}
			}
		}
	}
	if set.classes {
		// The Ingresses whose class now says otherwise come or go; the
		// others are as they were (a part does not depend on classes).
		e.classes = e.readClasses()
		for _, ing := range e.snap.Ingresses() {
			if ing == nil {
				continue
			}
			key := ing.Namespace + "/" + ing.Name
			if _, was := e.parts[key]; was != e.classes.serves(ing, e.opts.IngressClass) {
				dirty[key] = struct{}{}
			}
		}
	}
	if len(dirty) == 0 && len(swaps) == 0 {
		// Nothing to translate; the warnings about this proxy's Node may
		// still have changed.
		e.stale = entryMap{}
		return e.result(), false
	}
	keys := slices.Sorted(maps.Keys(dirty))
	var olds, news []*ingressPart
	was := map[string]*netv1.Ingress{}
	for _, key := range keys {
		if old := e.parts[key]; old != nil {
			olds = append(olds, old)
			was[key] = old.ing
		}
	}
	e.removeParts(olds)
	for _, key := range keys {
		ns, name, _ := strings.Cut(key, "/")
		ing := getter.Ingress(ns, name)
		if ing == nil || !e.classes.serves(ing, e.opts.IngressClass) {
			continue
		}
		p := e.translateIngress(ing, nil, nil)
		e.stats.Parts++
		e.stats.Translated++
		news = append(news, p)
		if was[key] != ing {
			e.ingresses = nil // a new or changed Ingress
		}
	}
	e.addParts(news)
	if len(olds) != len(news) {
		e.ingresses = nil // an Ingress is gone
	}
	e.sweep()
	prev := e.conf
	if !e.assembleChanges(olds, news, swaps) {
		e.stats.Reassembled++
		e.assembleAll(e.served, nil)
		return e.result(), !sameConfiguration(prev, e.conf)
	}
	if e.conf == prev {
		// Same configuration; the errors or the served Ingresses may differ.
		return e.result(), false
	}
	return e.result(), true
}

// lbSwap is a load balancer of the configuration that refresh replaced.
type lbSwap struct {
	name     string // the service's name in the configuration
	old, new *dynamic.Service
}

// refresh rebuilds the load balancers of the Service svcKey (namespace/name)
// after a change of the Service, its EndpointSlices or the Nodes, without
// translating the Ingresses that use them again, when nothing those
// Ingresses read has changed: every load balancer of it in use was built
// before and is built now, with servers both times unless
// allowEmptyServices is on, from the Nodes both times or neither. A part
// reads of those objects only that (translation reads them through the
// entries alone), so its routers stay as they are: the parts take the new
// entries and load balancers in place, and the swaps say which services of
// the configuration change. A slice change of a Service that a thousand
// Ingresses share then costs one load balancer and a pass over its users,
// not a thousand translations. When a user must be translated again,
// refresh changes nothing and says false.
func (e *engine) refresh(svcKey string) ([]lbSwap, bool) {
	users := e.svcUsers[svcKey]
	var olds []*serviceEntry
	for _, p := range users {
		for _, en := range p.entries {
			if en.svcKey != svcKey || slices.Contains(olds, en) {
				continue
			}
			if e.entries.get(en.id) != en || en.err != nil || e.lacksServers(en) {
				return nil, false
			}
			olds = append(olds, en)
		}
	}
	nus := make([]*serviceEntry, len(olds))
	namespace, name, _ := strings.Cut(svcKey, "/")
	for i, old := range olds {
		sb := netv1.IngressServiceBackend{Name: name}
		port := old.id[len(svcKey)+1:]
		if num, ok := strings.CutPrefix(port, "#"); ok {
			n, err := strconv.ParseInt(num, 10, 32)
			if err != nil {
				return nil, false // not an id entry() makes
			}
			sb.Port.Number, port = int32(n), num
		} else {
			sb.Port.Name = port
		}
		// newEntry keeps the old load balancer's pointer when the new one
		// equals it.
		e.stale.set(old.id, old)
		nu := e.newEntry(old.id, namespace, &sb, port, &e.backends, nil)
		e.stale.delete(old.id)
		if nu.nodes != old.nodes || nu.err != nil || e.lacksServers(nu) {
			return nil, false
		}
		nus[i] = nu
	}
	var swaps []lbSwap
	for i, old := range olds {
		nu := nus[i]
		nu.users = old.users
		e.entries.set(old.id, nu)
		e.stats.Refreshed++
		if len(old.errs) > 0 {
			delete(e.errEntries, old)
			e.errsDirty = true
		}
		if len(nu.errs) > 0 {
			e.errEntries[nu] = struct{}{}
			e.errsDirty = true
		}
		if nu.service != old.service {
			swaps = append(swaps, lbSwap{name: nu.name, old: old.service, new: nu.service})
		}
	}
	for _, p := range users {
		for j, en := range p.entries {
			if k := slices.Index(olds, en); k >= 0 {
				p.entries[j] = nus[k]
			}
		}
		for _, sw := range swaps {
			for _, pr := range p.routers {
				if pr.service == sw.old {
					pr.service = sw.new
				}
			}
			if c := p.defaultBackend(); c != nil && c.service == sw.old {
				c.service = sw.new
			}
		}
	}
	return swaps, true
}

// result gathers the Result of the current state.
func (e *engine) result() *Result {
	var errs []*ObjectError
	if e.res != nil && !e.errsDirty {
		errs = e.res.Errors
	} else {
		errs = e.collectErrors()
		e.errsDirty = false
	}
	if e.ingresses == nil {
		e.ingresses = make([]*netv1.Ingress, len(e.served))
		for i, p := range e.served {
			e.ingresses[i] = p.ing
		}
	}
	e.res = &Result{
		Configuration: e.conf,
		Errors:        errs,
		Ingresses:     e.ingresses,
		NeedsNodes:    e.locNodes || e.nodeEntries > 0,
	}
	return e.res
}

// collectErrors gathers and sorts the problems of every part, entry and
// assembly step.
func (e *engine) collectErrors() []*ObjectError {
	errs := slices.Clone(e.locErrs)
	errs = append(errs, e.dbErrs...)
	errs = append(errs, e.asmErrs...)
	errs = append(errs, e.tieErrs...)
	for _, gerrs := range e.errGroups {
		errs = append(errs, gerrs...)
	}
	for p := range e.errParts {
		errs = append(errs, p.errs()...)
	}
	for en := range e.errEntries {
		errs = append(errs, en.errs...)
	}
	errs = e.sortErrors(errs)
	if e.res != nil && slices.Equal(errs, e.res.Errors) {
		return e.res.Errors // the same problems: the same list, which readers can tell at a glance
	}
	return errs
}

// sortErrors puts errors in a total order (kind, namespace, name, field in
// natural order, text) and drops repeats, so that the list does not depend
// on the order objects were read in. The texts are kept across renders:
// the problems of parts that did not change are the same objects.
func (e *engine) sortErrors(errs []*ObjectError) []*ObjectError {
	if e.texts == nil || len(e.texts) > 2*len(errs)+64 {
		e.texts = make(map[*ObjectError]string, len(errs))
	}
	for _, oe := range errs {
		if _, ok := e.texts[oe]; !ok {
			e.texts[oe] = oe.Error()
		}
	}
	texts := e.texts
	slices.SortFunc(errs, func(a, b *ObjectError) int {
		// cmp.Or would compute every comparison; most end at the name.
		if c := cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name)); c != 0 {
			return c
		}
		if c := natural.Compare(a.Field, b.Field); c != 0 {
			return c
		}
		return cmp.Compare(texts[a], texts[b])
	})
	return slices.CompactFunc(errs, func(a, b *ObjectError) bool { return texts[a] == texts[b] })
}

// output is the router and service maps being assembled. A full assembly
// writes new maps directly; an incremental one reads the previous
// configuration's maps (never modified: they were handed out) and keeps
// its changes aside, so that the maps are copied once, and only when
// something the proxy reads changed.
type output struct {
	routers  map[string]*dynamic.Router
	services map[string]*dynamic.Service
	// Incremental: the changes over routers and services (nil: deleted).
	newRouters  map[string]*dynamic.Router
	newServices map[string]*dynamic.Service
	incremental bool
	// unchecked: the first pass of a full assembly, which does not look
	// the name of a lone router up before placing it; that a name crossed
	// another is seen at the end, from the count of routers (assemble).
	unchecked bool
}

func (o *output) router(name string) *dynamic.Router {
	return lookup(o.incremental, o.routers, o.newRouters, name)
}

func (o *output) service(name string) *dynamic.Service {
	return lookup(o.incremental, o.services, o.newServices, name)
}

func (o *output) setRouter(name string, rt *dynamic.Router) {
	store(o.incremental, o.routers, o.newRouters, name, rt)
}

func (o *output) setService(name string, svc *dynamic.Service) {
	store(o.incremental, o.services, o.newServices, name, svc)
}

// changedRouters and changedServices say whether the changes differ from
// the previous maps.
func (o *output) changedRouters() bool  { return differs(o.routers, o.newRouters) }
func (o *output) changedServices() bool { return differs(o.services, o.newServices) }

// lookup reads name from the changes, if incremental and they have it, else from base.
func lookup[V any](incremental bool, base, changes map[string]*V, name string) *V {
	if incremental {
		if v, ok := changes[name]; ok {
			return v
		}
	}
	return base[name]
}

// store writes name into the changes when incremental, else into base;
// nil deletes.
func store[V any](incremental bool, base, changes map[string]*V, name string, v *V) {
	switch {
	case incremental:
		changes[name] = v
	case v == nil:
		delete(base, name)
	default:
		base[name] = v
	}
}

// differs says whether any change differs from base.
func differs[V any](base, changes map[string]*V) bool {
	for name, v := range changes {
		if base[name] != v {
			return true
		}
	}
	return false
}

// apply returns the maps with the changes made: copies of the previous
// ones where something changed, the previous ones themselves (shared,
// never modified) where nothing did.
func (o *output) apply() (map[string]*dynamic.Router, map[string]*dynamic.Service) {
	routers, services := o.routers, o.services
	if o.changedRouters() {
		routers = patched(o.routers, o.newRouters)
	}
	if o.changedServices() {
		services = patched(o.services, o.newServices)
	}
	return routers, services
}

// patched copies m with the changes made (a nil value deletes).
func patched[V any](m, changes map[string]*V) map[string]*V {
	out := maps.Clone(m)
	for k, v := range changes {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// assembleAll builds the configuration from all parts. The router groups
// are independent unless a name crosses from one to another (a key that
// is another group's name, two Service ports with one service name), and
// then the outcome depends on the order they are named in, which must not
// be the order of the informer's lists. So they are named in the order
// they were met, and only if a name crossed, again in the order of their
// keys: sorting ten thousand keys is a good part of an assembly. parts
// are all parts in any order: a full render passes them in the order they
// were translated in, which is the order they sit in memory in.
//
// sorted, when not nil, waits until e.served is sorted (by another
// goroutine), which the assembly reads last.
func (e *engine) assembleAll(parts []*ingressPart, sorted func()) {
	if !e.assemble(parts, false, sorted) {
		e.assemble(parts, true, sorted)
	}
}

// assemble builds the configuration from all parts (in any order), naming
// the groups in the order of their keys when sorted, else in the order met;
// it says whether no name crossed between groups.
func (e *engine) assemble(parts []*ingressPart, sorted bool, served func()) bool {
	routers := 0
	for _, p := range parts {
		routers += len(p.routers)
	}
	out := &output{routers: make(map[string]*dynamic.Router, routers), services: make(map[string]*dynamic.Service, routers)}
	e.groups = reuse(e.groups, routers)
	e.svcRefs = reuse(e.svcRefs, routers)
	if cap(e.slab) >= routers {
		clear(e.slab[:cap(e.slab)])
		e.slab = e.slab[:0]
	} else {
		e.slab = make([]routerGroup, 0, routers)
	}
	e.certRefs = map[string]*certRef{}
	e.irregular, e.crossed, e.asmErrs = false, false, nil
	e.rulePlaced = reuse(e.rulePlaced, routers)
	e.tied, e.tieErrs = nil, nil
	e.errGroups = map[*routerGroup][]*ObjectError{}
	e.errsDirty = true
	e.placed = 0
	if sorted {
		for _, p := range parts {
			for _, pr := range p.routers {
				g := e.group(pr.key)
				g.members = append(g.members, pr)
			}
		}
		e.assembleDefault(out)
		for _, key := range slices.Sorted(maps.Keys(e.groups)) {
			e.resolve(out, e.groups[key])
		}
	} else if !e.assembleFirst(parts, out) {
		return false
	}
	if len(e.rulePlaced) < e.placed {
		// Routers that have the same rule: who keeps it is settled over
		// all of them.
		e.tied = map[string]struct{}{}
		for rule, n := range e.rulePlaced {
			if n > 1 {
				e.tied[rule] = struct{}{}
			}
		}
	}
	if len(e.tied) > 0 {
		e.settleTies(out)
	}
	if served != nil {
		served()
	}
	for _, p := range e.served {
		e.addCerts(p)
	}
	e.conf = &dynamic.Configuration{
		HTTP: &dynamic.HTTPConfiguration{Routers: out.routers, Services: out.services, Middlewares: map[string]*dynamic.Middleware{}},
		TLS:  e.certList(),
	}
	return true
}

// assembleFirst is the first pass of a full assembly: a group for each
// router, named in the order met, without looking a name up before it
// is placed. The map of the groups by key is made meanwhile on another
// goroutine (the pass does not read it). It says false when that order
// may matter: keys met twice (the map then has fewer groups than there
// are routers, and the second router of a key was placed over the
// first), names that crossed, irregular names; the assembly is then
// done again, sorted.
func (e *engine) assembleFirst(parts []*ingressPart, out *output) bool {
	for _, p := range parts {
		for _, pr := range p.routers {
			e.slab = append(e.slab, routerGroup{key: pr.key})
			g := &e.slab[len(e.slab)-1]
			g.members, g.placed = append(g.memberBuf[:0], pr), g.placedBuf[:0]
		}
	}
	var mapped sync.WaitGroup
	defer mapped.Wait()
	mapped.Go(func() {
		for i := range e.slab {
			e.groups[e.slab[i].key] = &e.slab[i]
		}
	})
	e.assembleDefault(out)
	before := len(out.routers) // the default backend's
	out.unchecked = true
	for i := range e.slab {
		e.resolve(out, &e.slab[i])
	}
	out.unchecked = false
	mapped.Wait()
	// Each placed router has a name of its own, unless one was placed over
	// another.
	e.crossed = e.crossed || len(out.routers) != before+e.placed
	return !e.irregular && !e.crossed && len(e.slab) == len(e.groups)
}

func (e *engine) group(key string) *routerGroup {
	g := e.groups[key]
	if g == nil {
		if len(e.slab) < cap(e.slab) {
			e.slab = e.slab[:len(e.slab)+1]
			g = &e.slab[len(e.slab)-1]
		} else {
			g = &routerGroup{}
		}
		g.key = key
		g.members, g.placed = g.memberBuf[:0], g.placedBuf[:0]
		e.groups[key] = g
	}
	return g
}

// assembleDefault gives the default backend to the oldest Ingress whose
// default backend can be used; the others are told which Ingress has it.
func (e *engine) assembleDefault(out *output) {
	if len(e.dbErrs) > 0 {
		e.errsDirty = true
	}
	e.dbErrs = nil
	var router *dynamic.Router
	var service *dynamic.Service
	owner := ""
	for _, p := range slices.SortedFunc(maps.Keys(e.dbParts), compareParts) {
		c := p.defaultBackend()
		switch {
		case owner != "":
			e.errsDirty = true
			e.dbErrs = append(e.dbErrs, &ObjectError{Kind: "Ingress", Namespace: p.ing.Namespace, Name: p.ing.Name, Field: "spec.defaultBackend", Severity: SeverityError,
				Err: fmt.Errorf("the default backend is already defined by Ingress %s, which is older", owner)})
		case c.router == nil:
			e.errsDirty = true
			e.dbErrs = append(e.dbErrs, c.errs...)
		default:
			owner = p.key
			router, service = c.router, c.service
		}
	}
	// The same default backend keeps its pointers.
	if old := out.router(DefaultRouterName); old != nil && router != nil && reflect.DeepEqual(old, router) {
		router = old
	}
	if old := out.service(DefaultBackendName); old != nil && service != nil && reflect.DeepEqual(old, service) {
		service = old
	}
	out.setRouter(DefaultRouterName, router)
	out.setService(DefaultBackendName, service)
}

// resolve names the routers of one key: the key itself for a lone router,
// else the key and the hash of each rule. Two paths of one key with the
// same rule get the same name: the older one keeps it, the other is
// reported (within one group, so the outcome does not depend on other
// groups). A name taken by another group depends on the order groups are
// named in: a full assembly reports it and marks the state irregular; an
// incremental one returns false, and the caller assembles in full.
func (e *engine) resolve(out *output, g *routerGroup) bool {
	// A path whose key is the default backend's router name is renamed
	// like a conflict, so that neither hides the other.
	reserved := (!out.unchecked || g.key == DefaultRouterName) && out.router(g.key) != nil
	e.crossed = e.crossed || reserved
	if g.key == DefaultRouterName || (reserved && out.incremental) {
		// The outcome depends on the order groups are named in.
		if out.incremental {
			return false
		}
		e.irregular = true
	}
	if len(g.members) == 1 && !reserved {
		return e.addRouter(out, g, g.key, true, g.members[0])
	}
	slices.SortFunc(g.members, compareRouters)
	for _, pr := range g.members {
		if !e.addRouter(out, g, hashedRouterKey(g.key, pr.router.Rule), false, pr) {
			return false
		}
	}
	return true
}

// addRouter adds pr's router under name. A name already taken is reported
// instead, or makes an incremental assembly give up (false). free says
// that no router has the name (the caller just looked).
func (e *engine) addRouter(out *output, g *routerGroup, name string, free bool, pr *pendingRouter) bool {
	if !free && out.router(name) != nil {
		taken := &ObjectError{Kind: "Ingress", Namespace: pr.part.ing.Namespace, Name: pr.part.ing.Name, Field: pr.path.String(), Severity: SeverityError,
			Err: fmt.Errorf("router %s is already defined with the same rule by an older path; this one is skipped", excerpt.Text(name))}
		switch {
		case g.named(name): // by an older path of this group
			e.errGroups[g] = append(e.errGroups[g], taken)
			e.errsDirty = true
		case out.incremental:
			return false
		default:
			e.irregular = true
			e.asmErrs = append(e.asmErrs, taken)
		}
		return true
	}
	rt := pr.router
	if out.incremental && e.rulePlaced[rt.Rule] > 0 {
		// Another router has this rule: who keeps it is settled over all
		// of them (settleTies), in a full assembly, which counts the
		// routers of each rule as it places them.
		return false
	}
	if out.incremental {
		// An unchanged router keeps its pointer.
		if old := out.routers[name]; old != nil && sameRouter(old, rt) {
			rt = old
		}
	}
	svcName := rt.Service
	ref, found := e.svcRefs[svcName]
	switch {
	case !found:
		// Every service in the configuration but the default backend's
		// has an entry in svcRefs.
		if svcName == DefaultBackendName && out.service(svcName) != nil {
			if out.incremental {
				return false
			}
			e.irregular = true
		}
		ref.service = pr.service
	case ref.service != pr.service:
		// Two Service ports whose names normalise to the same service name.
		if out.incremental {
			return false
		}
		e.irregular = true
		ref.service = pr.service
	}
	ref.count++
	e.svcRefs[svcName] = ref
	out.setRouter(name, rt)
	out.setService(svcName, pr.service)
	g.placed = append(g.placed, placement{name: name, pr: pr})
	e.rulePlaced[rt.Rule]++
	e.placed++
	return true
}

// removeNames takes the routers of a group out of the configuration.
func (e *engine) removeNames(out *output, g *routerGroup) {
	for _, pl := range g.placed {
		e.unplace(out, pl.name)
	}
	g.placed = g.placedBuf[:0]
	if _, ok := e.errGroups[g]; ok {
		delete(e.errGroups, g)
		e.errsDirty = true
	}
}

// named says whether a member of g was given name.
func (g *routerGroup) named(name string) bool {
	return slices.ContainsFunc(g.placed, func(pl placement) bool { return pl.name == name })
}

// unplace takes the router name out of the configuration, and its service
// when no other router sends to it.
func (e *engine) unplace(out *output, name string) {
	rt := out.router(name)
	out.setRouter(name, nil)
	if rt == nil {
		return
	}
	if n := e.rulePlaced[rt.Rule] - 1; n > 0 {
		e.rulePlaced[rt.Rule] = n
	} else {
		delete(e.rulePlaced, rt.Rule)
	}
	if ref, found := e.svcRefs[rt.Service]; found {
		if ref.count--; ref.count <= 0 {
			delete(e.svcRefs, rt.Service)
			out.setService(rt.Service, nil)
		} else {
			e.svcRefs[rt.Service] = ref
		}
	}
}

// rulePlacement is a router of the configuration and the path it came from.
type rulePlacement struct {
	g    *routerGroup
	name string
	pr   *pendingRouter
}

// settleTies keeps, among routers of different keys that have one rule,
// the router of the oldest path (the order of compareRouters), and leaves
// out each younger one that Traefik could not tell from a kept one: the
// same priority, both TLS or neither, an entry point in common (none named
// is all of them). Traefik tries routers of one priority in the order of
// a Go map, so such a pair would route at random, and differently from
// one reload (or one replica) to the next. The paths left out are
// reported.
func (e *engine) settleTies(out *output) {
	byRule := make(map[string][]rulePlacement, len(e.tied))
	for _, g := range e.groups {
		for _, pl := range g.placed {
			if rt := out.router(pl.name); rt != nil {
				if _, ok := e.tied[rt.Rule]; ok {
					byRule[rt.Rule] = append(byRule[rt.Rule], rulePlacement{g: g, name: pl.name, pr: pl.pr})
				}
			}
		}
	}
	for _, rule := range slices.Sorted(maps.Keys(byRule)) {
		list := byRule[rule]
		slices.SortFunc(list, func(a, b rulePlacement) int { return compareRouters(a.pr, b.pr) })
		var kept []rulePlacement
		for _, c := range list {
			i := slices.IndexFunc(kept, func(k rulePlacement) bool { return sameRequests(out.router(k.name), out.router(c.name)) })
			if i < 0 {
				kept = append(kept, c)
				continue
			}
			winner := kept[i]
			e.unplace(out, c.name)
			c.g.placed = slices.DeleteFunc(c.g.placed, func(pl placement) bool { return pl.name == c.name })
			ing := c.pr.part.ing
			e.tieErrs = append(e.tieErrs, &ObjectError{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name, Field: c.pr.path.String(), Severity: SeverityError,
				Err: fmt.Errorf("Ingress %s/%s, which is older, routes the same requests (rule %s, router %s): router %s is left out, since Traefik would send them to one of the two at random",
					winner.pr.part.ing.Namespace, winner.pr.part.ing.Name, excerpt.Text(rule), excerpt.Text(winner.name), excerpt.Text(c.name))})
		}
	}
	e.errsDirty = true
}

// sameRequests says whether Traefik could not tell two routers with one
// rule apart: the same priority (0 is the length of the rule), both TLS or
// neither, and an entry point in common (none named is all of them).
func sameRequests(a, b *dynamic.Router) bool {
	if a.Priority != b.Priority || (a.TLS == nil) != (b.TLS == nil) {
		return false
	}
	if len(a.EntryPoints) == 0 || len(b.EntryPoints) == 0 {
		return true
	}
	return slices.ContainsFunc(a.EntryPoints, func(ep string) bool { return slices.Contains(b.EntryPoints, ep) })
}

func (e *engine) addCerts(p *ingressPart) {
	for _, c := range p.certs() {
		ref := e.certRefs[c.key]
		if ref == nil {
			ref = &certRef{cert: c.cert}
			e.certRefs[c.key] = ref
		}
		ref.count++
	}
}

func (e *engine) removeCerts(p *ingressPart) {
	for _, c := range p.certs() {
		if ref := e.certRefs[c.key]; ref != nil {
			if ref.count--; ref.count <= 0 {
				delete(e.certRefs, c.key)
			}
		}
	}
}

// certList is the TLS section: the certificates by key.
func (e *engine) certList() *dynamic.TLSConfiguration {
	if len(e.certRefs) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(e.certRefs))
	certs := make([]*dynamic.CertAndStores, len(keys))
	for i, k := range keys {
		certs[i] = e.certRefs[k].cert
	}
	return &dynamic.TLSConfiguration{Certificates: certs}
}

// assembleChanges patches the previous configuration with the parts that
// were translated again (olds are the parts they replace), into a new
// configuration when anything the proxy reads changed. It returns false
// when the outcome would depend on the order names are given in, and the
// caller assembles in full.
func (e *engine) assembleChanges(olds, news []*ingressPart, swaps []lbSwap) bool {
	if e.irregular {
		return false
	}
	prev := e.conf
	oldSet := make(map[*ingressPart]struct{}, len(olds))
	touched := map[string]struct{}{}
	defaults, certs := false, false
	for _, p := range olds {
		oldSet[p] = struct{}{}
	}
	for _, list := range [2][]*ingressPart{olds, news} {
		for _, p := range list {
			for _, pr := range p.routers {
				touched[pr.key] = struct{}{}
				if _, ok := e.tied[pr.router.Rule]; ok {
					return false // who keeps a tied rule is settled over all its routers
				}
			}
			defaults = defaults || p.defaultBackend() != nil
			certs = certs || len(p.certs()) > 0
		}
	}
	out := &output{
		routers: prev.HTTP.Routers, services: prev.HTTP.Services, incremental: true,
		newRouters: map[string]*dynamic.Router{}, newServices: map[string]*dynamic.Service{},
	}
	// Load balancers refreshed in place: the routers that send to them
	// stay as they are.
	for _, sw := range swaps {
		if ref, ok := e.svcRefs[sw.name]; ok && ref.service == sw.old {
			ref.service = sw.new
			e.svcRefs[sw.name] = ref
			out.setService(sw.name, sw.new)
		}
		if out.service(DefaultBackendName) == sw.old {
			out.setService(DefaultBackendName, sw.new)
		}
	}
	keys := slices.Sorted(maps.Keys(touched))
	for _, key := range keys {
		if g := e.groups[key]; g != nil {
			e.removeNames(out, g)
			g.members = slices.DeleteFunc(g.members, func(pr *pendingRouter) bool {
				_, gone := oldSet[pr.part]
				return gone
			})
		}
	}
	for _, p := range news {
		for _, pr := range p.routers {
			g := e.group(pr.key)
			g.members = append(g.members, pr)
		}
	}
	if defaults {
		e.assembleDefault(out)
	}
	for _, key := range keys {
		g := e.groups[key]
		if len(g.members) == 0 {
			delete(e.groups, key)
			continue
		}
		if !e.resolve(out, g) {
			return false
		}
	}
	tls := prev.TLS
	if certs {
		for _, p := range olds {
			e.removeCerts(p)
		}
		for _, p := range news {
			e.addCerts(p)
		}
		if tls = e.certList(); reflect.DeepEqual(tls, prev.TLS) {
			tls = prev.TLS
		}
	}
	if tls == prev.TLS && !out.changedRouters() && !out.changedServices() {
		return true // e.conf stays: nothing the proxy reads changed
	}
	routers, services := out.apply()
	e.conf = &dynamic.Configuration{
		HTTP: &dynamic.HTTPConfiguration{Routers: routers, Services: services, Middlewares: prev.HTTP.Middlewares},
		TLS:  tls,
	}
	return true
}

// sameConfiguration is reflect.DeepEqual of two configurations, fast where
// they share pointers (load balancers taken from the previous render) and
// for routers, which a full render builds anew.
func sameConfiguration(a, b *dynamic.Configuration) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.HTTP == nil || b.HTTP == nil {
		return reflect.DeepEqual(a, b)
	}
	if len(a.HTTP.Routers) != len(b.HTTP.Routers) || len(a.HTTP.Services) != len(b.HTTP.Services) ||
		(a.HTTP.Routers == nil) != (b.HTTP.Routers == nil) || (a.HTTP.Services == nil) != (b.HTTP.Services == nil) {
		return false
	}
	for name, ra := range a.HTTP.Routers {
		if rb, ok := b.HTTP.Routers[name]; !ok || !sameRouter(ra, rb) {
			return false
		}
	}
	for name, sa := range a.HTTP.Services {
		if sb, ok := b.HTTP.Services[name]; !ok || (sa != sb && !reflect.DeepEqual(sa, sb)) {
			return false
		}
	}
	ha, hb := *a.HTTP, *b.HTTP
	ha.Routers, ha.Services, hb.Routers, hb.Services = nil, nil, nil, nil
	return reflect.DeepEqual(ha, hb) && reflect.DeepEqual(a.TLS, b.TLS)
}

// sameRouter is reflect.DeepEqual of two routers, field by field.
func sameRouter(a, b *dynamic.Router) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Rule != b.Rule || a.Service != b.Service || a.Priority != b.Priority ||
		!sameStrings(a.EntryPoints, b.EntryPoints) || !sameStrings(a.Middlewares, b.Middlewares) ||
		!reflect.DeepEqual(a.TLS, b.TLS) {
		return false
	}
	oa, ob := a.Observability, b.Observability
	if oa == nil || ob == nil || oa.Metadata == nil || ob.Metadata == nil || oa.Metadata.Ingress == nil || ob.Metadata.Ingress == nil {
		return reflect.DeepEqual(oa, ob)
	}
	return *oa.Metadata.Ingress == *ob.Metadata.Ingress
}

// sameStrings is reflect.DeepEqual of two string slices: nil and empty differ.
func sameStrings(a, b []string) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}
