package ingress

import (
	"sync"

	"github.com/google/btree"
	netv1 "k8s.io/api/networking/v1"
)

// ingressOrder keeps the watched Ingresses in key order (namespace, then
// name), filed by the Ingress handler as they come, so that a full render
// gets them in the order it translates them in (see full) without sorting
// ten thousand of them each time. Filing one costs a search of the tree.
type ingressOrder struct {
	mu   sync.Mutex
	tree *btree.BTreeG[*netv1.Ingress]
}

func newIngressOrder() *ingressOrder {
	return &ingressOrder{tree: btree.NewG(32, func(a, b *netv1.Ingress) bool {
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})}
}

// update files an Ingress event: old and new as the handler got them (nil,
// or a tombstone for a delete).
func (o *ingressOrder) update(old, new any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ing := eventObject[*netv1.Ingress](new); ing != nil {
		o.tree.ReplaceOrInsert(ing)
	} else if ing := eventObject[*netv1.Ingress](old); ing != nil {
		o.tree.Delete(ing)
	}
}

// list returns the Ingresses for which keep is true, in key order.
func (o *ingressOrder) list(keep func(*netv1.Ingress) bool) []*netv1.Ingress {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]*netv1.Ingress, 0, o.tree.Len())
	o.tree.Ascend(func(ing *netv1.Ingress) bool {
		if keep(ing) {
			out = append(out, ing)
		}
		return true
	})
	return out
}
