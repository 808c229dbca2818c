package ingress

import (
	"strings"
	"sync"

	"github.com/google/btree"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// ingressOrder keeps the watched Ingresses in key order (namespace, then
// name), filed by the Ingress handler as they come, so that a full render
// gets them in the order it translates them in (see full) without sorting
// ten thousand of them each time. Filing one costs a search of the tree.
// With each Ingress it keeps what a translation gives its paths that
// depends on nothing but the Ingress (orderedIngress), and, when it knows
// the options of the renders (build), their routers.
type ingressOrder struct {
	mu    sync.Mutex
	tree  *btree.BTreeG[*orderedIngress]
	build *pathBuild // nil: no router is built here
}

// pathBuild is the options a router of an Ingress path depends on, those
// the order built its routers with.
type pathBuild struct {
	strictPrefix bool  // the strictPrefixMatching option
	maxOutput    int64 // the maxIngressOutput option: no router is built for an Ingress over it
}

// orderedIngress is an Ingress with its key (namespace/name) and, for each
// of its paths in the order of its rules and their paths, what a full
// render takes instead of writing it again (orderedPath). Its texts share
// one string, and the paths of an Ingress of one path sit in the struct:
// three objects an Ingress for the collector to mark, with the router.
type orderedIngress struct {
	ing   *netv1.Ingress
	key   string
	paths []orderedPath
	buf   [1]orderedPath
}

// orderedPath is what the translation of an Ingress path writes that
// depends on the Ingress alone: its router key, the entry of its backend's
// Service port and, built with the order's options, its router. The
// router is nil where the path gets none whatever the Services say: an
// invalid host, path or annotation, no Service backend, an Ingress whose
// routers would exceed maxIngressOutput.
type orderedPath struct {
	routerKey string
	entryID   string // "" without a Service backend (see entryID)
	port      string
	router    *dynamic.Router
}

// newOrderedIngress gathers the names of ing's paths and, with build, their
// routers (parsing its annotations: once an event, not once a render).
func newOrderedIngress(ing *netv1.Ingress, build *pathBuild) *orderedIngress {
	o := &orderedIngress{ing: ing}
	var ra *routerAnnotations
	if build != nil {
		if a, err := parseRouterAnnotations(ing.Annotations); err == nil {
			ra = a
		}
		if ra != nil && build.maxOutput > 0 {
			if _, err := checkOutput(ing, ra, build.strictPrefix, build.maxOutput); err != nil {
				ra = nil // the render refuses it; building its routers is what must not happen
			}
		}
	}
	paths := o.buf[:0]
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		hostOK := ra != nil && checkHost(rule.Host) == nil
		for _, path := range rule.HTTP.Paths {
			op := orderedPath{routerKey: routerKey(ing.Namespace, ing.Name, rule.Host, path.Path)}
			sb := path.Backend.Service
			if sb != nil {
				op.entryID, op.port = entryID(ing.Namespace, sb)
			}
			if hostOK && sb != nil && path.Backend.Resource == nil && checkPath(path, ra.PathMatcher) == nil {
				op.router = pathRouter(ra, ing, rule.Host, path, serviceKey(ing.Namespace, sb.Name, op.port), op.port, build.strictPrefix)
			}
			paths = append(paths, op)
		}
	}
	if len(paths) > 0 {
		o.paths = paths
	}
	// The texts in one string: the key, then those of each path.
	texts := []*string{&o.key}
	for i := range o.paths {
		op := &o.paths[i]
		texts = append(texts, &op.routerKey, &op.entryID)
		if rt := op.router; rt != nil {
			texts = append(texts, &rt.Rule, &rt.Service)
		}
	}
	o.key = ing.Namespace + "/" + ing.Name
	size := 0
	for _, t := range texts {
		size += len(*t)
	}
	var text strings.Builder
	text.Grow(size)
	for _, t := range texts {
		text.WriteString(*t)
	}
	all := text.String()
	for _, t := range texts {
		*t, all = all[:len(*t)], all[len(*t):]
	}
	return o
}

// path returns what the order kept of path j of a rule whose paths come
// after first others of the Ingress (rules without paths count none); nil
// when pre is nil.
func (pre *orderedIngress) path(first, j int) *orderedPath {
	if pre != nil && first+j < len(pre.paths) {
		return &pre.paths[first+j]
	}
	return nil
}

// newIngressOrder keeps the Ingresses in order; with build, it builds the
// routers of their paths with those options.
func newIngressOrder(build *pathBuild) *ingressOrder {
	return &ingressOrder{build: build, tree: btree.NewG(32, func(a, b *orderedIngress) bool {
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
		oi := newOrderedIngress(ing, o.build) // before the lock: renders list on
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
