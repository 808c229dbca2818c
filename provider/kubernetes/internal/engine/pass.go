package engine

import (
	"reflect"
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Pass is one render: the snapshot, where load balancers are built, where
// Ingresses are translated, and the entries of the previous state whose
// load-balancer pointers a new entry of the same port may keep.
type Pass struct {
	r     *Renderer
	snap  Snapshot
	lbs   translate.LBEnv
	tr    translate.IngressEnv
	plans PlanReader // nil: the snapshot has no plans
	stale map[translate.PortKey]*serviceEntry
	// The part being translated, and (for one of many Service ports) a set
	// of the entries it uses.
	cur      *Part
	entrySet map[*serviceEntry]struct{}
	// prev is the last render's state, whose parts a RouteDialect may take
	// again (Reuse); nil when none may be. reused counts those taken.
	prev   *renderState
	reused int
}

// ServiceReader is the optional methods of a Snapshot that finds a
// Service and its slices with one lookup, prepared and with the load
// balancers the client's index memoised (translate.LBMemo), and the options it
// memoised them with.
type ServiceReader interface {
	ServiceObjects(key translate.Key) *translate.ServiceObjects // nil when there is neither the Service nor a slice
	LBOptions() *translate.LBOptions
}

// PlanReader is the optional methods of a Snapshot that give the plan the
// client made of an Ingress when it arrived (nil when it has none for
// that object), and those of all its Ingresses in the order of their keys
// (compareKeys): the Ingresses of the snapshot (Ingresses), each with its
// plan (nil when it makes none).
type PlanReader interface {
	Plan(ing *netv1.Ingress) *translate.Plan
	Plans() []*translate.Plan
}

func (r *Renderer) newPass(snap Snapshot, stale map[translate.PortKey]*serviceEntry) *Pass {
	ps := &Pass{r: r, snap: snap, stale: stale}
	ps.lbs = translate.LBEnv{Options: r.opts.LBOptions, Node: r.loc.Node, Zone: r.loc.Zone, Nodes: snap.Nodes, Memos: &r.memos}
	if sr, ok := snap.(ServiceReader); ok {
		if o := sr.LBOptions(); o != nil && o.Same(r.opts.LBOptions) {
			ps.lbs.IndexOptions = o
		}
	}
	ps.tr = translate.IngressEnv{Snapshot: readRecorder{snap, ps}, PlanOptions: r.opts.PlanOptions, AllowEmptyServices: r.opts.AllowEmptyServices,
		Memos: &r.memos, LoadBalancer: ps.LoadBalancer, Hosts: r.st.hosts.lookup()}
	if pr, ok := snap.(PlanReader); ok {
		ps.plans = pr
	}
	return ps
}

// translate builds the part of one served Ingress, from the client's plan
// of it (nil: none), with the entries of the Service ports it uses; hosts
// are dialect.Hosts(ing), which the caller put in the host index.
func (ps *Pass) translate(ing *netv1.Ingress, pl *translate.Plan, hosts []string) *Part {
	p := &Part{hosts: hosts, settings: ps.r.isSettings(ing)}
	ps.build(p, func(part *translate.Part) { ps.r.dialect.Translate(&ps.tr, part, ing, pl) })
	return p
}

// Build is the part of one object that fill, a front end's translation
// of it, builds: the load balancers it asks for (LoadBalancer) become the
// part's entries.
func (ps *Pass) Build(fill func(*translate.Part)) *Part {
	p := &Part{}
	ps.build(p, fill)
	return p
}

// Env is what translation reads besides the object: the snapshot (its
// reads recorded), the plan options, the memos and the load balancers.
func (ps *Pass) Env() *translate.IngressEnv { return &ps.tr }

// build fills p by fill, a front end's translation of one object: the
// load balancers it asks for (pass.loadBalancer) become p's entries.
func (ps *Pass) build(p *Part, fill func(*translate.Part)) {
	ps.cur, ps.entrySet = p, nil
	fill(&p.Part)
	ps.cur, ps.entrySet = nil, nil
}

// plan is the client's plan of ing, nil when it has none.
func (ps *Pass) plan(ing *netv1.Ingress) *translate.Plan {
	if ps.plans == nil {
		return nil
	}
	return ps.plans.Plan(ing)
}

// LoadBalancer is the load balancer of a Service port for the part being
// translated (its entry, which the part then uses, once). The entries of
// a part that uses many Service ports are found in a set, so that its
// translation stays linear in its paths.
func (ps *Pass) LoadBalancer(key translate.PortKey, name string) *translate.LoadBalancer {
	en := ps.entry(key, name)
	p := ps.cur
	switch {
	case ps.entrySet != nil:
		if _, ok := ps.entrySet[en]; ok {
			return &en.lb
		}
		ps.entrySet[en] = struct{}{}
	case slices.Contains(p.entries, en):
		return &en.lb
	case len(p.entries) >= manyEntries:
		ps.entrySet = make(map[*serviceEntry]struct{}, 2*len(p.entries))
		for _, e := range p.entries {
			ps.entrySet[e] = struct{}{}
		}
		ps.entrySet[en] = struct{}{}
	}
	if p.entries == nil {
		p.entries = p.entryBuf[:0]
	}
	p.entries = append(p.entries, en)
	return &en.lb
}

// manyEntries is how many entries a part's list is searched through
// before a set is made of them.
const manyEntries = 16

// entry returns the entry of a Service port in the state, building it on
// first use with the service name name (key.serviceName(), which the plan
// wrote already).
func (ps *Pass) entry(key translate.PortKey, name string) *serviceEntry {
	if en := ps.r.st.entries[key]; en != nil {
		return en
	}
	en := ps.newEntry(key, name)
	ps.r.st.entries[key] = en
	return en
}

// newEntry builds the entry of a Service port, named name, from the snapshot.
func (ps *Pass) newEntry(key translate.PortKey, name string) *serviceEntry {
	en := &serviceEntry{key: key, name: name, objs: ps.objects(key.Service)}
	en.lb = ps.lbs.Build(en.objs, key)
	// An unchanged load balancer keeps its pointer, so that the assembly
	// sees at a glance that nothing changed.
	if old := ps.stale[key]; old != nil && old.lb.Service != en.lb.Service && old.lb.Service != nil && en.lb.Service != nil && reflect.DeepEqual(old.lb.Service, en.lb.Service) {
		en.lb.Service = old.lb.Service
	}
	return en
}

// objects are the Service and slices of key in the snapshot, nil when
// there is no such Service.
func (ps *Pass) objects(key translate.Key) *translate.ServiceObjects {
	if sr, ok := ps.snap.(ServiceReader); ok {
		if o := sr.ServiceObjects(key); o != nil && o.Service != nil {
			return o
		}
		return nil
	}
	if svc := ps.snap.Service(key.Namespace, key.Name); svc != nil {
		return &translate.ServiceObjects{Service: svc, Slices: ps.snap.EndpointSlices(key.Namespace, key.Name)}
	}
	return nil
}
