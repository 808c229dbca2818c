package engine

import (
	"sync"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Changes collects which objects changed since the last render, from the
// informers' events (Record is a k8s.OnChange): the coalescer between the
// event handlers and the renders. It keeps keys only, never output. It is
// safe for concurrent use; the zero value is ready.
type Changes struct {
	mu  sync.Mutex
	set changeSet
}

// changeSet is what changed: the objects by key, and the kinds every part
// may depend on.
type changeSet struct {
	full     bool                             // something every part may depend on
	classes  bool                             // an IngressClass: which Ingresses are served
	nodes    bool                             // a Node: node ports and the zone of this proxy
	objects  map[translate.ObjectKey]struct{} // the objects parts are made of (Ingresses, routes)
	services map[translate.Key]struct{}       // Services, also for their EndpointSlices
	secrets  map[translate.Key]struct{}
	// serviceObjects are the Services that themselves came, went or
	// changed, not only their slices. The Gateway front end reads
	// Services beyond their load balancers (backendRef ports and
	// appProtocols, when it checks a route's backends), so the routes
	// that name them are translated again.
	serviceObjects map[translate.Key]struct{}
}

// routesReached says whether nothing changed but routes (the objects
// parts are made of), Services, EndpointSlices, Secrets and Nodes: what
// the Gateway front end follows to the routes and Gateways it reaches
// (reroute.go); any other change renders it in full.
func (s *changeSet) routesReached() bool {
	return !s.full && !s.classes
}

// All says that everything may have changed: the next render is full.
func (c *Changes) All() {
	c.mu.Lock()
	c.set.full = true
	c.mu.Unlock()
}

// Record notes the objects of an informer event that counts: nil and the
// new object for an add, old and new for an update, the old one (or its
// tombstone) for a delete.
func (c *Changes) Record(kind string, old, new any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, obj := range [2]any{old, new} {
		if obj != nil {
			c.set.record(kind, obj)
		}
	}
}

func (s *changeSet) record(kind string, obj any) {
	switch kind {
	case "Node":
		s.nodes = true
		return
	case "IngressClass":
		s.classes = true
		return
	}
	var key translate.Key
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		key.Namespace, key.Name, _ = cache.SplitMetaNamespaceKey(tomb.Key)
		obj = tomb.Obj
	}
	var labels map[string]string
	if m, err := meta.Accessor(obj); err == nil {
		key, labels = translate.Key{Namespace: m.GetNamespace(), Name: m.GetName()}, m.GetLabels()
	}
	if key.Namespace == "" {
		s.full = true // nothing to tell which parts depend on it
		return
	}
	switch kind {
	case "Ingress", "HTTPRoute", "GRPCRoute":
		add(&s.objects, translate.ObjectKey{Kind: kind, Key: key})
	case "Service":
		add(&s.services, key)
		add(&s.serviceObjects, key)
	case "Secret":
		add(&s.secrets, key)
	case "EndpointSlice":
		// A slice counts for the Service its label names; one without the
		// label belongs to no Service. A tombstone without its object
		// does not say which Service.
		if labels == nil {
			s.full = true
		} else if svc := labels[discoveryv1.LabelServiceName]; svc != "" {
			add(&s.services, translate.Key{Namespace: key.Namespace, Name: svc})
		}
	default:
		s.full = true
	}
}

func add[K comparable](set *map[K]struct{}, key K) {
	if *set == nil {
		*set = map[K]struct{}{}
	}
	(*set)[key] = struct{}{}
}

// take returns what changed and starts a new collection. A nil Changes
// says everything changed.
func (c *Changes) take() changeSet {
	if c == nil {
		return changeSet{full: true}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.set
	c.set = changeSet{}
	return set
}
