package engine

import (
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// incremental renders again what the changes reach: it finds the parts
// that depend on the changed objects (touched), translates those again
// (retranslate) and patches the previous configuration with them, or
// assembles it in full when the patch cannot be made.
//
// The Gateway front end's parts are refreshed in place, or its routes
// translated again (reroute); when the patch cannot be made, it renders
// in full.
func (r *Renderer) incremental(snap Snapshot, getter ingressGetter, set changeSet) (*Result, bool) {
	ps := r.newPass(snap, map[translate.PortKey]*serviceEntry{})
	t := r.touched(ps, snap, getter, set)
	_, routes := r.dialect.(RouteDialect)
	if routes && (len(t.dirty) > 0 || len(set.secrets) > 0) {
		return r.reroute(snap, t, set.secrets)
	}
	r.stats.Incremental++
	if len(t.dirty) == 0 && len(t.swaps) == 0 {
		// Nothing to translate; the warnings about this proxy's Node may
		// still have changed.
		return r.result(), false
	}
	olds, news := r.retranslate(ps, getter, t.dirty)
	st := r.st
	st.sweep()
	translate.PruneCertificates(&r.memos, st.secUsers)
	prev := r.conf
	conf, ok := r.asm.patch(prev, st, olds, news, t.swaps)
	if !ok && routes {
		// A full assembly of the state would order the parts otherwise
		// than RouteParts does.
		return r.full(snap)
	}
	if !ok {
		r.stats.Reassembled++
		r.conf = r.asm.full(st, st.byKey())
		return r.result(), !sameConfiguration(prev, r.conf)
	}
	r.conf = conf
	// The same configuration may come with other errors or Ingresses.
	return r.result(), conf != prev
}

// touchedParts is what one set of changes reaches: the Ingresses whose
// parts are translated again, and the load balancers refreshed in place.
type touchedParts struct {
	ps    *Pass
	dirty map[translate.ObjectKey]struct{} // the Ingresses to translate again
	// the Ingresses that changed, or whose class now says otherwise:
	// their host neighbours are translated again too (hostIndex)
	changed map[translate.ObjectKey]struct{}
	swaps   []lbSwap
}

// touched finds what the changes reach. A Service or EndpointSlice change
// refreshes that Service's load balancers in place when its users read
// nothing that changed, and otherwise makes its users dirty; a Secret
// makes the Ingresses naming it dirty; a changed Ingress, and each one an
// IngressClass change serves or no longer serves, makes itself and its
// host neighbours dirty; a Node change does for node-port load balancers
// what a Service change does.
func (r *Renderer) touched(ps *Pass, snap Snapshot, getter ingressGetter, set changeSet) *touchedParts {
	st := r.st
	t := &touchedParts{ps: ps, dirty: map[translate.ObjectKey]struct{}{}, changed: map[translate.ObjectKey]struct{}{}}
	for svc := range set.services {
		t.service(svc, false)
	}
	if rd, routes := r.dialect.(RouteDialect); routes {
		// The Gateway front end follows a Service to the routes that name
		// it, a Secret to the Gateways that do (reroute).
		if len(set.serviceObjects) > 0 && r.outcome != nil {
			rd.RoutesNaming(r.outcome, set.serviceObjects, t.dirty)
		}
	} else {
		for key := range set.secrets {
			for _, p := range st.secUsers[key] {
				t.dirty[p.ObjectKey()] = struct{}{}
			}
		}
	}
	for key := range set.objects {
		if key.Kind == translate.KindIngress {
			t.ingress(key)
		} else {
			t.dirty[key] = struct{}{} // a route: reroute reads what else it reaches
		}
	}
	if set.nodes && st.nodeEntries > 0 {
		// Node ports: the load balancers built from the Nodes.
		nodeServices := map[translate.Key]struct{}{}
		for _, en := range st.entries {
			if en.lb.Nodes {
				nodeServices[en.key.Service] = struct{}{}
			}
		}
		for svc := range nodeServices {
			t.service(svc, true)
		}
	}
	if set.classes {
		// The Ingresses whose class now says otherwise come or go; the
		// others are as they were (a part does not depend on classes).
		r.classes = r.readClasses(snap)
		for _, ing := range snap.Ingresses() {
			if ing == nil {
				continue
			}
			key := translate.IngressKey(ing.Namespace, ing.Name)
			if _, was := st.parts[key]; was != r.classes.Serves(ing) {
				t.ingress(key)
			}
		}
	}
	for key := range t.changed {
		if old := st.parts[key]; old != nil {
			st.hosts.peers(old.hosts, t.dirty)
		}
		if ing := getter.Ingress(key.Namespace, key.Name); ing != nil && r.classes.Serves(ing) {
			st.hosts.peers(r.dialect.Hosts(ing), t.dirty)
		}
	}
	return t
}

// ingress marks an Ingress that changed itself.
func (t *touchedParts) ingress(key translate.ObjectKey) {
	t.dirty[key] = struct{}{}
	t.changed[key] = struct{}{}
}

// service refreshes the load balancers of svc in place (of its node ports
// only, with nodesOnly), or else takes its entries out of the state and
// makes its users dirty.
func (t *touchedParts) service(svc translate.Key, nodesOnly bool) {
	if sw, ok := t.ps.refresh(svc); ok {
		t.swaps = append(t.swaps, sw...)
		return
	}
	st := t.ps.r.st
	for _, p := range st.svcUsers[svc] {
		t.dirty[p.ObjectKey()] = struct{}{}
		for _, en := range p.entries {
			if en.key.Service == svc && (!nodesOnly || en.lb.Nodes) && st.entries[en.key] == en {
				t.ps.stale[en.key] = en
				delete(st.entries, en.key)
			}
		}
	}
}

// retranslate takes the parts of the dirty Ingresses out of the state and
// translates again those still served; it says which parts went and which
// came.
func (r *Renderer) retranslate(ps *Pass, getter ingressGetter, dirty map[translate.ObjectKey]struct{}) (olds, news []*Part) {
	st := r.st
	was := map[translate.ObjectKey]*netv1.Ingress{}
	for key := range dirty {
		if old := st.parts[key]; old != nil {
			olds = append(olds, old)
			was[key] = old.Ingress
		}
	}
	st.remove(olds)
	// The Ingresses to translate are in the host index before any is
	// translated, so that each reads the others as they are now.
	var ings []*netv1.Ingress
	var hosts [][]string
	for key := range dirty {
		ing := r.lookUp(getter, key.Key)
		if ing == nil || !r.serves(ing) {
			continue
		}
		ings = append(ings, ing)
		hosts = append(hosts, r.dialect.Hosts(ing))
		st.hosts.add(ing, hosts[len(hosts)-1])
	}
	for i, ing := range ings {
		key := translate.IngressKey(ing.Namespace, ing.Name)
		news = append(news, ps.translate(ing, ps.plan(ing), hosts[i]))
		r.stats.Parts++
		r.stats.Translated++
		if was[key] != ing {
			r.ingresses = nil // a new or changed Ingress
		}
	}
	st.add(news)
	if len(olds) != len(news) {
		r.ingresses = nil // an Ingress is gone
	}
	return olds, news
}

// lbSwap is a load balancer of the configuration that refresh replaced.
type lbSwap struct {
	name     string // the service's name in the configuration
	old, new *dynamic.Service
}

// refresh rebuilds the load balancers of the Service svc after a change
// of the Service, its EndpointSlices or the Nodes, without translating
// the Ingresses that use them again, when nothing those Ingresses read
// has changed: every load balancer of it in use was built before and is
// built now, with servers both times unless allowEmptyServices is on,
// from the Nodes both times or neither. A part reads of those objects
// only that (translation reads them through the entries alone), so its
// routers stay as they are: the parts take the new entries and load
// balancers in place, and the swaps say which services of the
// configuration change. A slice change of a Service that a thousand
// Ingresses share then costs one load balancer and a pass over its users,
// not a thousand translations. When a user must be translated again,
// refresh changes nothing and says false.
func (ps *Pass) refresh(svc translate.Key) ([]lbSwap, bool) {
	st, usable := ps.r.st, ps.r.usable
	users := st.svcUsers[svc]
	var olds []*serviceEntry
	for _, p := range users {
		if len(p.Passthroughs) > 0 {
			return nil, false // a passthrough copies the servers' addresses: translated again
		}
		for _, en := range p.entries {
			if en.key.Service != svc || slices.Contains(olds, en) {
				continue
			}
			if st.entries[en.key] != en || !usable(en) {
				return nil, false
			}
			olds = append(olds, en)
		}
	}
	nus := make([]*serviceEntry, len(olds))
	for i, old := range olds {
		ps.stale[old.key] = old // newEntry keeps the old load balancer's pointer when the new one equals it
		nu := ps.newEntry(old.key, old.name)
		delete(ps.stale, old.key)
		if nu.lb.Nodes != old.lb.Nodes || !usable(nu) {
			return nil, false
		}
		nus[i] = nu
	}
	var swaps []lbSwap
	for i, old := range olds {
		nu := nus[i]
		nu.users = old.users
		st.entries[old.key] = nu
		ps.r.stats.Refreshed++
		if len(old.lb.Errs) > 0 {
			delete(st.errEntries, old)
			st.errsDirty = true
		}
		if len(nu.lb.Errs) > 0 {
			st.errEntries[nu] = struct{}{}
			st.errsDirty = true
		}
		if nu.lb.Service != old.lb.Service {
			swaps = append(swaps, lbSwap{name: nu.name, old: old.lb.Service, new: nu.lb.Service})
		}
	}
	// The services the users derived from these load balancers are
	// derived again, and swapped too.
	n := len(swaps)
	for _, p := range users {
		for j, en := range p.entries {
			if k := slices.Index(olds, en); k >= 0 {
				p.entries[j] = nus[k]
			}
		}
		for _, sw := range swaps[:n] {
			for _, d := range p.ReplaceService(sw.old, sw.new) {
				swaps = append(swaps, lbSwap{name: d.Name, old: d.Old, new: d.New})
			}
		}
	}
	return swaps, true
}
