package ingress

import (
	"strings"
	"sync"

	"github.com/google/btree"
	netv1 "k8s.io/api/networking/v1"
)

// ingressOrder keeps the watched Ingresses in key order (namespace, then
// name), filed by the Ingress handler as they come, so that a full render
// gets them in the order it translates them in (see full) without sorting
// ten thousand of them each time. Filing one costs a search of the tree.
// With each Ingress it keeps the names a translation gives it that depend
// on nothing else (orderedIngress).
type ingressOrder struct {
	mu   sync.Mutex
	tree *btree.BTreeG[*orderedIngress]
}

// orderedIngress is an Ingress with its key (namespace/name) and the router
// key of each of its paths (routerKey), in the order of its rules and
// their paths; a full render takes them instead of writing them again.
// The names share one text, and the keys of an Ingress of one path sit in
// the struct: two objects an Ingress for the collector to mark.
type orderedIngress struct {
	ing        *netv1.Ingress
	key        string
	routerKeys []string
	buf        [1]string
}

func newOrderedIngress(ing *netv1.Ingress) *orderedIngress {
	o := &orderedIngress{ing: ing}
	keys := o.buf[:0]
	size := len(ing.Namespace) + 1 + len(ing.Name)
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP != nil {
			for _, path := range rule.HTTP.Paths {
				k := routerKey(ing.Namespace, ing.Name, rule.Host, path.Path)
				keys = append(keys, k)
				size += len(k)
			}
		}
	}
	var text strings.Builder
	text.Grow(size)
	text.WriteString(ing.Namespace)
	text.WriteByte('/')
	text.WriteString(ing.Name)
	for _, k := range keys {
		text.WriteString(k)
	}
	all := text.String()
	o.key, all = all[:len(ing.Namespace)+1+len(ing.Name)], all[len(ing.Namespace)+1+len(ing.Name):]
	for i, k := range keys {
		keys[i], all = all[:len(k)], all[len(k):]
	}
	if len(keys) > 0 {
		o.routerKeys = keys
	}
	return o
}

// routerKey returns the router key of path j of a rule whose paths come
// after first others of the Ingress (rules without paths count none); pre
// may be nil, and then the key is written.
func (pre *orderedIngress) routerKey(first, j int, ing *netv1.Ingress, host, path string) string {
	if pre != nil && first+j < len(pre.routerKeys) {
		return pre.routerKeys[first+j]
	}
	return routerKey(ing.Namespace, ing.Name, host, path)
}

func newIngressOrder() *ingressOrder {
	return &ingressOrder{tree: btree.NewG(32, func(a, b *orderedIngress) bool {
		if a.ing.Namespace != b.ing.Namespace {
			return a.ing.Namespace < b.ing.Namespace
		}
		return a.ing.Name < b.ing.Name
	})}
}

// update files an Ingress event: old and new as the handler got them (nil,
// or a tombstone for a delete).
func (o *ingressOrder) update(old, new any) {
	if ing := eventObject[*netv1.Ingress](new); ing != nil {
		oi := newOrderedIngress(ing)
		o.mu.Lock()
		defer o.mu.Unlock()
		o.tree.ReplaceOrInsert(oi)
	} else if ing := eventObject[*netv1.Ingress](old); ing != nil {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.tree.Delete(&orderedIngress{ing: ing})
	}
}

// list returns the Ingresses for which keep is true, in key order.
func (o *ingressOrder) list(keep func(*netv1.Ingress) bool) []*orderedIngress {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]*orderedIngress, 0, o.tree.Len())
	o.tree.Ascend(func(oi *orderedIngress) bool {
		if keep(oi.ing) {
			out = append(out, oi)
		}
		return true
	})
	return out
}
