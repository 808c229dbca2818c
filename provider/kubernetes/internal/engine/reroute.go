package engine

import (
	"maps"
	"slices"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// A RouteDialect's incremental render: the front end translates again
// the routes a change reaches (RerouteParts), the engine swaps their
// parts in the render state, has every router ranked again (Rank: a
// route's priority depends on the others of its entry point), and
// patches the last configuration with the new parts and the parts whose
// routers moved. Whatever the front end cannot follow renders in full.

// reroute renders the routes of t.dirty again, and the Gateways that name
// one of secrets, with the load balancers t refreshed in place, or
// renders in full when the change reaches beyond them.
func (r *Renderer) reroute(snap Snapshot, t *touchedParts, secrets map[translate.Key]struct{}) (*Result, bool) {
	rd := r.dialect.(RouteDialect)
	keys := slices.Collect(maps.Keys(t.dirty))
	news, replaced, out, ok := rd.RerouteParts(t.ps, snap, r.outcome, keys, secrets)
	if !ok {
		return r.full(snap)
	}
	st := r.st
	var olds []*Part
	for _, key := range replaced {
		if p := st.parts[key]; p != nil {
			olds = append(olds, p)
		}
	}
	st.remove(olds)
	st.add(news)
	var reranked []*Part
	if len(keys) > 0 {
		fresh := make(map[*Part]struct{}, len(news))
		for _, p := range news {
			fresh[p] = struct{}{}
		}
		var err error
		if reranked, err = rd.Rank(st.served, func(p *Part) bool { _, ok := fresh[p]; return ok }); err != nil {
			return r.full(snap) // which reports it on every router
		}
	}
	st.sweep()
	translate.PruneCertificates(&r.memos, st.secUsers)
	prev := r.conf
	// A part whose routers were ranked again is placed again: it goes
	// out and comes back.
	conf, ok := r.asm.patch(prev, st, append(olds, reranked...), append(news, reranked...), t.swaps)
	if !ok {
		return r.full(snap)
	}
	r.stats.Incremental++
	r.stats.Parts += len(news)
	r.stats.Translated += len(news)
	r.conf, r.outcome = conf, out
	return r.result(), conf != prev
}
