package ingress

import (
	"sync"

	"github.com/google/btree"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// planIndex keeps the plan of each watched Ingress (translate.PlanIngress), made by
// the Ingress handler when the Ingress arrives, with the options of the
// renders that will read it: a render then neither decodes annotations
// nor builds routers for an Ingress that did not change. The plans are
// kept in the order of their keys (namespace, then name), the order the
// informers list and allocate the objects in, so that a full render that
// translates them in this order reads an Ingress, its plan and its
// Service from memory nearby rather than from all over the heap.
type planIndex struct {
	mu    sync.RWMutex
	opts  translate.PlanOptions
	plans *btree.BTreeG[*translate.Plan]
}

func newPlanIndex(opts translate.PlanOptions) *planIndex {
	return &planIndex{opts: opts, plans: btree.NewG(32, func(a, b *translate.Plan) bool { return translate.CompareKeys(a.Key, b.Key) < 0 })}
}

// update files an Ingress event: old and new as the handler got them (nil,
// or a tombstone for a delete).
func (x *planIndex) update(old, new any) {
	if ing := eventObject[*netv1.Ingress](new); ing != nil {
		pl := translate.PlanIngress(ing, x.opts, nil) // before the lock: renders read on
		x.mu.Lock()
		defer x.mu.Unlock()
		x.plans.ReplaceOrInsert(pl)
	} else if ing := eventObject[*netv1.Ingress](old); ing != nil {
		x.mu.Lock()
		defer x.mu.Unlock()
		x.plans.Delete(&translate.Plan{Key: translate.Key{Namespace: ing.Namespace, Name: ing.Name}})
	}
}

// list returns the plans of the Ingresses for which keep is true, in key
// order.
func (x *planIndex) list(keep func(*netv1.Ingress) bool) []*translate.Plan {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]*translate.Plan, 0, x.plans.Len())
	x.plans.Ascend(func(pl *translate.Plan) bool {
		if keep(pl.Ingress) {
			out = append(out, pl)
		}
		return true
	})
	return out
}

// plan is the plan of ing, nil when the index has none of this very object.
func (x *planIndex) plan(ing *netv1.Ingress) *translate.Plan {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if pl, ok := x.plans.Get(&translate.Plan{Key: translate.Key{Namespace: ing.Namespace, Name: ing.Name}}); ok && pl.Ingress == ing {
		return pl
	}
	return nil
}
