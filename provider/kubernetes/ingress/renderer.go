package ingress

import (
	"fmt"
	"reflect"
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Renderer translates snapshots of one cluster again and again. It keeps
// the last translation in a render state (what each Ingress contributes,
// the load balancer of each Service port) and, told which objects
// changed, recomputes only the parts that depend on them: a changed
// EndpointSlice costs the rebuild of its Service's load balancer, and the
// routers of the Ingresses that use it only when what they read of it
// changed, not a rebuild of the whole configuration. The result is the
// same as a full translation of the same snapshot.
//
// A Renderer is not safe for concurrent use; Changes is.
type Renderer struct {
	opts     *Provider
	planOpts planOptions
	lbOpts   *lbOptions
	// Memos of what annotations decoded into and of checked certificates,
	// kept across renders.
	routerSets  annotationMemo[*routerAnnotations]
	serviceSets annotationMemo[*serviceAnnotations]
	certs       certMemo

	loc       location
	classes   classSet
	st        *renderState
	asm       assembly
	conf      *dynamic.Configuration
	res       *Result
	ingresses []*netv1.Ingress // the served Ingresses of the last result, shared while they do not change
	errs      errorSorter
	stats     RenderStats
}

// NewRenderer returns a renderer with the options; they must not change
// while it is used.
func NewRenderer(opts *Provider) *Renderer {
	return &Renderer{opts: opts, planOpts: newPlanOptions(opts), lbOpts: newLBOptions(opts), st: newRenderState(0)}
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
func (r *Renderer) Stats() RenderStats { return r.stats }

// ingressGetter is what an incremental render needs of a snapshot beyond
// Snapshot: one Ingress by name (nil when it is gone or not watched).
type ingressGetter interface {
	Ingress(namespace, name string) *netv1.Ingress
}

// Render translates snap. The first render, a nil changes, changes that
// say everything may have changed, or a snapshot that cannot look up one
// Ingress translate everything; otherwise only what depends on the objects
// in changes is translated again. changed says whether the configuration
// differs from the previous render's; when it does not, the previous
// configuration is returned again.
func (r *Renderer) Render(snap Snapshot, changes *Changes) (res *Result, changed bool) {
	set := changes.take()
	getter, canLookUp := snap.(ingressGetter)
	if r.res == nil || set.full || !canLookUp {
		return r.full(snap)
	}
	if set.nodes && r.loc.fromNode {
		// The zone of this proxy may have changed, which every load
		// balancer with zone hints depends on.
		loc := locate(r.opts, snap)
		if loc.node != r.loc.node || loc.zone != r.loc.zone {
			return r.full(snap)
		}
		r.st.errsDirty = r.st.errsDirty || len(loc.errs) > 0 || len(r.loc.errs) > 0
		r.loc = loc
	}
	return r.incrementalOrFull(snap, getter, set)
}

// incrementalOrFull renders incrementally. Should that fail in a way it
// cannot (a panic, which is a bug), it renders in full, which rebuilds
// every part, and counts it in Stats: a proxy keeps serving while the bug
// is reported.
func (r *Renderer) incrementalOrFull(snap Snapshot, getter ingressGetter, set changeSet) (res *Result, changed bool) {
	defer func() {
		if p := recover(); p != nil {
			r.stats.Recovered++
			r.stats.LastRecovered = fmt.Sprint(p)
			res, changed = r.full(snap)
		}
	}()
	return r.incremental(snap, getter, set)
}

// full translates everything into a new render state. A load balancer
// equal to the previous render's keeps its pointer (stale), so that
// comparing the configurations is quick.
func (r *Renderer) full(snap Snapshot) (*Result, bool) {
	r.stats.Full++
	r.loc = locate(r.opts, snap)
	r.classes = readClasses(snap, r.opts.IngressClass)
	ings, plans := ingressesByKey(snap)
	prevEntries := r.st.entries
	r.st = newRenderState(len(ings))
	ps := r.newPass(snap, prevEntries)
	byKey := make([]*ingressPart, 0, len(ings))
	for i, ing := range ings {
		if r.classes.serves(ing) {
			byKey = append(byKey, ps.tr.translatePlanned(ing, plans[i]))
		}
	}
	r.stats.Translated += len(byKey)
	r.st.served = slices.SortedFunc(slices.Values(byKey), compareParts)
	for _, p := range byKey {
		r.st.record(p)
	}
	prev := r.conf
	r.conf = r.asm.full(r.st, byKey)
	r.certs.prune(r.st.secUsers)
	r.ingresses = nil
	return r.result(), prev == nil || !sameConfiguration(prev, r.conf)
}

// ingressesByKey lists the Ingresses of snap in the order of their keys,
// which the assembly names routers in, each with the client's plan of it
// (nil when there is none). The client's plans come in that order
// already, the order the informers allocated the objects in: reading the
// Ingresses, their plans and their Services so is quicker. Another
// snapshot's Ingresses are sorted here, and planned by the translation.
func ingressesByKey(snap Snapshot) ([]*netv1.Ingress, []*ingressPlan) {
	if pr, ok := snap.(planReader); ok {
		if plans := pr.plans(); plans != nil {
			ings := make([]*netv1.Ingress, len(plans))
			for i, pl := range plans {
				ings[i] = pl.ing
			}
			return ings, plans
		}
	}
	var ings []*netv1.Ingress
	for _, ing := range snap.Ingresses() {
		if ing != nil {
			ings = append(ings, ing)
		}
	}
	slices.SortFunc(ings, func(a, b *netv1.Ingress) int {
		return compareKeys(objectKey{a.Namespace, a.Name}, objectKey{b.Namespace, b.Name})
	})
	return ings, make([]*ingressPlan, len(ings))
}

// pass is one render: the snapshot, where load balancers are built, the
// translator, and the entries of the previous state whose load-balancer
// pointers a new entry of the same port may keep.
type pass struct {
	r     *Renderer
	snap  Snapshot
	lbs   lbEnv
	tr    translator
	stale map[portKey]*serviceEntry
}

// serviceReader is the optional methods of a Snapshot that finds a
// Service and its slices with one lookup, prepared and with the load
// balancers the client's index memoised (lbMemo), and the options it
// memoised them with.
type serviceReader interface {
	serviceObjects(key objectKey) *serviceObjects // nil when there is neither the Service nor a slice
	lbOptions() *lbOptions
}

// planReader is the optional methods of a Snapshot that give the plan the
// client made of an Ingress when it arrived (nil when it has none for
// that object), and those of all its Ingresses in the order of their keys
// (compareKeys): the Ingresses of the snapshot (Ingresses), each with its
// plan (nil when it makes none).
type planReader interface {
	plan(ing *netv1.Ingress) *ingressPlan
	plans() []*ingressPlan
}

func (r *Renderer) newPass(snap Snapshot, stale map[portKey]*serviceEntry) *pass {
	ps := &pass{r: r, snap: snap, stale: stale}
	ps.lbs = lbEnv{opts: r.lbOpts, node: r.loc.node, zone: r.loc.zone, nodes: snap.Nodes, serviceSets: &r.serviceSets}
	if sr, ok := snap.(serviceReader); ok {
		if o := sr.lbOptions(); o != nil && o.same(r.lbOpts) {
			ps.lbs.memoOpts = o
		}
	}
	ps.tr = translator{snap: snap, planOpts: r.planOpts, allowEmpty: r.opts.AllowEmptyServices,
		routerSets: &r.routerSets, certs: &r.certs, entry: ps.entry}
	if pr, ok := snap.(planReader); ok {
		ps.tr.plans = pr
	}
	return ps
}

// entry returns the entry of a Service port in the state, building it on
// first use with the service name name (key.serviceName(), which the plan
// wrote already).
func (ps *pass) entry(key portKey, name string) *serviceEntry {
	if en := ps.r.st.entries[key]; en != nil {
		return en
	}
	en := ps.newEntry(key, name)
	ps.r.st.entries[key] = en
	return en
}

// newEntry builds the entry of a Service port, named name, from the snapshot.
func (ps *pass) newEntry(key portKey, name string) *serviceEntry {
	en := &serviceEntry{key: key, name: name, objs: ps.objects(key.svc)}
	en.lb = ps.lbs.build(en.objs, key)
	// An unchanged load balancer keeps its pointer, so that the assembly
	// sees at a glance that nothing changed.
	if old := ps.stale[key]; old != nil && old.lb.service != en.lb.service && old.lb.service != nil && en.lb.service != nil && reflect.DeepEqual(old.lb.service, en.lb.service) {
		en.lb.service = old.lb.service
	}
	return en
}

// objects are the Service and slices of key in the snapshot, nil when
// there is no such Service.
func (ps *pass) objects(key objectKey) *serviceObjects {
	if sr, ok := ps.snap.(serviceReader); ok {
		if o := sr.serviceObjects(key); o != nil && o.svc != nil {
			return o
		}
		return nil
	}
	if svc := ps.snap.Service(key.namespace, key.name); svc != nil {
		return &serviceObjects{svc: svc, slices: ps.snap.EndpointSlices(key.namespace, key.name)}
	}
	return nil
}

// result gathers the Result of the current state.
func (r *Renderer) result() *Result {
	errs := r.collectErrors()
	if r.ingresses == nil {
		r.ingresses = make([]*netv1.Ingress, len(r.st.served))
		for i, p := range r.st.served {
			r.ingresses[i] = p.ing
		}
	}
	r.res = &Result{
		Configuration: r.conf,
		Errors:        errs,
		Ingresses:     r.ingresses,
		NeedsNodes:    r.loc.fromNode || r.st.nodeEntries > 0,
	}
	return r.res
}
