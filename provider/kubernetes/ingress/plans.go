package ingress

import (
	"sync"

	netv1 "k8s.io/api/networking/v1"
)

// planIndex keeps the plan of each watched Ingress (planIngress), made by
// the Ingress handler when the Ingress arrives, with the options of the
// renders that will read it: a render then neither decodes annotations
// nor builds routers for an Ingress that did not change.
type planIndex struct {
	mu    sync.RWMutex
	opts  planOptions
	plans map[objectKey]*ingressPlan
}

func newPlanIndex(opts planOptions) *planIndex {
	return &planIndex{opts: opts, plans: map[objectKey]*ingressPlan{}}
}

// update files an Ingress event: old and new as the handler got them (nil,
// or a tombstone for a delete).
func (x *planIndex) update(old, new any) {
	if ing := eventObject[*netv1.Ingress](new); ing != nil {
		pl := planIngress(ing, x.opts, nil) // before the lock: renders read on
		x.mu.Lock()
		defer x.mu.Unlock()
		x.plans[pl.key] = pl
	} else if ing := eventObject[*netv1.Ingress](old); ing != nil {
		x.mu.Lock()
		defer x.mu.Unlock()
		delete(x.plans, objectKey{ing.Namespace, ing.Name})
	}
}

// plan is the plan of ing, nil when the index has none of this very object.
func (x *planIndex) plan(ing *netv1.Ingress) *ingressPlan {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if pl := x.plans[objectKey{ing.Namespace, ing.Name}]; pl != nil && pl.ing == ing {
		return pl
	}
	return nil
}
