package engine

import (
	"fmt"
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
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
	opts Options
	// base is the options' dialect; dialect is the one the last full
	// render configured from base and the cluster-wide objects it reads
	// (Dialect.Settings), with their problems in settingErrs.
	base, dialect Dialect
	settingErrs   []*ObjectError
	// Memos of what annotations decoded into and of checked certificates,
	// kept across renders.
	memos translate.Memos

	loc       translate.Location
	classes   ServedSet
	st        *renderState
	asm       assembly
	conf      *dynamic.Configuration
	res       *Result
	ingresses []*netv1.Ingress // the served Ingresses of the last result, shared while they do not change
	outcome   any              // a RouteDialect's last outcome (RouteDialect.RouteParts)
	errs      errorSorter
	stats     RenderStats
}

// Options are what a Renderer translates with: the front end, and what
// the provider's options say of plans, load balancers and where the
// proxy runs. They must not change while the Renderer is used.
type Options struct {
	Dialect     Dialect
	PlanOptions translate.PlanOptions
	LBOptions   *translate.LBOptions
	// AllowEmptyServices: a load balancer without servers is used (and
	// answers 503) instead of leaving its routers out.
	AllowEmptyServices bool
	// ReadsClasses says whether IngressClasses are read; when not, no
	// snapshot's are.
	ReadsClasses bool
	// Locate finds where the proxy runs (its Node and zone) in a snapshot.
	Locate func(Snapshot) translate.Location
}

// NewRenderer returns a renderer with the options.
func NewRenderer(opts Options) *Renderer {
	r := &Renderer{opts: opts, base: opts.Dialect, dialect: opts.Dialect, st: newRenderState(0)}
	r.asm.names = opts.Dialect.Defaults()
	return r
}

// RenderStats count a Renderer's renders by kind.
type RenderStats struct {
	// Full renders translated everything: the first one, and those after a
	// change that every part may depend on (the zone of this proxy's Node,
	// an event without its object).
	Full int
	// Incremental renders translated only the Ingresses (or the Gateway
	// front end's routes) that depend on the changed objects.
	Incremental int
	// Reassembled renders translated incrementally but then had to name
	// all routers again, because the names of routers in conflict depend on
	// their order.
	Reassembled int
	// Parts is how many Ingresses (or routes) the incremental renders
	// translated.
	Parts int
	// Translated is how many Ingresses all renders translated, full ones
	// included.
	Translated int
	// Reused is how many parts full renders took from the render before
	// instead of translating their Ingresses again (nothing they were
	// built from had changed).
	Reused int
	// Refreshed is how many load balancers incremental renders rebuilt
	// after a change of their Service, EndpointSlices or the Nodes
	// without translating the Ingresses that use them again (nothing
	// those read had changed).
	Refreshed int
	// Recovered counts incremental renders that panicked (a bug) and were
	// done in full instead; LastRecovered is the last panic's value.
	Recovered     int
	LastRecovered string
	// CertificatesParsed is how many times renders parsed and checked a
	// key pair: once for each pair while a Secret in use holds it,
	// however many Secrets hold it and however many renders read it.
	CertificatesParsed int
}

// Stats returns the counts of renders so far.
func (r *Renderer) Stats() RenderStats {
	s := r.stats
	s.CertificatesParsed = r.memos.CertificatesParsed()
	return s
}

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
	_, routes := r.dialect.(RouteDialect)
	switch {
	case r.res == nil || set.full:
		return r.full(snap)
	case routes && !set.routesReached():
		// The Gateway front end takes in a change of routes, Services,
		// EndpointSlices, Secrets or Nodes without a full render
		// (reroute.go). Which routes a change of another
		// Gateway API object reaches is not tracked (a Gateway's
		// listeners, a ReferenceGrant, a Namespace's labels are read when
		// every route is attached): such a change renders it in full.
		return r.full(snap)
	case !routes && !canLookUp:
		return r.full(snap)
	}
	if set.nodes && r.loc.FromNode {
		// The zone of this proxy may have changed, which every load
		// balancer with zone hints depends on.
		loc := r.opts.Locate(snap)
		if loc.Node != r.loc.Node || loc.Zone != r.loc.Zone {
			return r.full(snap)
		}
		r.st.errsDirty = r.st.errsDirty || len(loc.Errs) > 0 || len(r.loc.Errs) > 0
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
	r.loc = r.opts.Locate(snap)
	prevDialect, prev := r.dialect, r.st
	r.dialect, r.settingErrs = r.base.Settings(snap, r.dialect)
	r.classes = r.readClasses(snap)
	var byKey []*Part
	if rd, ok := r.dialect.(RouteDialect); ok {
		r.st = newRenderState(0)
		ps := r.newPass(snap, prev.entries)
		var last any // the last outcome, when its parts may be taken again
		if r.conf != nil && prevDialect == r.dialect {
			ps.prev, last = prev, r.outcome
		}
		byKey, r.outcome = rd.RouteParts(ps, snap, last)
		r.stats.Translated += len(byKey) - ps.reused
	} else {
		byKey = r.ingressParts(snap, prev, prevDialect)
	}
	r.st.served = slices.SortedFunc(slices.Values(byKey), compareParts)
	for _, p := range byKey {
		r.st.record(p)
	}
	prevConf := r.conf
	r.conf = r.asm.full(r.st, byKey)
	translate.PruneCertificates(&r.memos, r.st.secUsers)
	r.ingresses = nil
	return r.result(), prevConf == nil || !sameConfiguration(prevConf, r.conf)
}

// ingressParts are the parts of the served Ingresses of snap, in the
// order of their keys, in a new render state: each translated, or taken
// from prev, the last render's state, when nothing it was built from
// changed.
func (r *Renderer) ingressParts(snap Snapshot, prev *renderState, prevDialect Dialect) []*Part {
	ings, plans := r.withSettingsIngresses(ingressesByKey(snap))
	r.st = newRenderState(len(ings))
	ps := r.newPass(snap, prev.entries)
	var served []*netv1.Ingress
	var servedPlans []*translate.Plan
	var hosts [][]string
	for i, ing := range ings {
		if r.serves(ing) {
			served, servedPlans = append(served, ing), append(servedPlans, plans[i])
			hosts = append(hosts, r.dialect.Hosts(ing))
		}
	}
	r.st.hosts = newHostIndex(served, hosts)
	// The last render's parts are worth a look only under the same
	// settings (a dialect is a comparable value that settings returns
	// again while nothing of it changed).
	canReuse := r.conf != nil && prevDialect == r.dialect
	byKey := make([]*Part, 0, len(served))
	for i, ing := range served {
		if canReuse {
			if p := ps.reuse(prev, ing, hosts[i]); p != nil {
				byKey = append(byKey, p)
				r.stats.Reused++
				continue
			}
		}
		byKey = append(byKey, ps.translate(ing, servedPlans[i], hosts[i]))
		r.stats.Translated++
	}
	return byKey
}

// ingressesByKey lists the Ingresses of snap in the order of their keys,
// which the assembly names routers in, each with the client's plan of it
// (nil when there is none). The client's plans come in that order
// already, the order the informers allocated the objects in: reading the
// Ingresses, their plans and their Services so is quicker. Another
// snapshot's Ingresses are sorted here, and planned by the translation.
func ingressesByKey(snap Snapshot) ([]*netv1.Ingress, []*translate.Plan) {
	if pr, ok := snap.(PlanReader); ok {
		if plans := pr.Plans(); plans != nil {
			ings := make([]*netv1.Ingress, len(plans))
			for i, pl := range plans {
				ings[i] = pl.Ingress
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
	slices.SortFunc(ings, compareIngressKeys)
	return ings, make([]*translate.Plan, len(ings))
}

// result gathers the Result of the current state.
func (r *Renderer) result() *Result {
	errs := r.collectErrors()
	if r.ingresses == nil {
		r.ingresses = make([]*netv1.Ingress, 0, len(r.st.served))
		for _, p := range r.st.served {
			if !p.settings && p.Ingress != nil {
				r.ingresses = append(r.ingresses, p.Ingress)
			}
		}
	}
	r.res = &Result{
		Configuration: r.conf,
		TLSHostOwners: r.asm.tlsOwners,
		Errors:        errs,
		Ingresses:     r.ingresses,
		NeedsNodes:    r.loc.FromNode || r.st.nodeEntries > 0,
		Outcome:       r.outcome,
	}
	return r.res
}

// readClasses reads which Ingresses are served, from the IngressClasses
// of snap unless the options say not to read any (the client then
// watches none, and another snapshot's are not read either).
func (r *Renderer) readClasses(snap Snapshot) ServedSet {
	if !r.opts.ReadsClasses {
		snap = withoutClasses{snap}
	}
	return r.dialect.Classes(snap)
}

// withoutClasses is a snapshot whose IngressClasses are not read.
type withoutClasses struct{ Snapshot }

func (withoutClasses) IngressClasses() []*netv1.IngressClass { return nil }
