package ingress

import (
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// serviceIndex keeps, for each Service, the Service object and its
// EndpointSlices (those labelled kubernetes.io/service-name with its name),
// as the informer handlers deliver them. A render looks up every backend
// here with one map read that allocates nothing; through the listers the
// same lookup builds two keys, takes two locks and copies the slice list.
// Values are replaced, never modified, so that what a render got stays
// valid while the informers go on.
//
// With a selection (the options of the renders that will read it), the
// index also chooses the servers of each port of a Service whenever the
// Service or one of its slices changes, as Contour and kube-proxy keep
// the endpoints of each Service ready; a full render then merges no slice
// of a Service it can take them from (selectPorts, selected.port).
type serviceIndex struct {
	mu       sync.RWMutex
	m        map[string]*serviceObjects
	sel      *selection          // nil: no servers are chosen here
	backends []endpoints.Backend // scratch for the choosing, under mu
}

// objectKey is the key of a Service in the index: namespace/name, as an
// entry's svcKey writes it, so that a render looks a Service up with the
// text it has, in a map of strings (which hashes and compares one string
// where a struct of two took two of each).
func objectKey(namespace, name string) string { return namespace + "/" + name }

type serviceObjects struct {
	svc    *corev1.Service
	slices []*discoveryv1.EndpointSlice // by name
	// prepared[i] is slices[i] prepared for endpoints.AppendSelectPrepared
	// when the slice arrived, so that no render parses its addresses again.
	prepared []*endpoints.Prepared
	// selected is the servers chosen from the prepared slices for each
	// port of svc, with the index's selection; nil without one.
	selected *selected
}

// preparedScheme is the scheme the URLs of prepared slices are written
// for: that of every Service port but those of port 443, named https*, or
// given another scheme by annotation, whose URLs a render writes.
const preparedScheme = "http"

func newServiceIndex(sel *selection) *serviceIndex {
	return &serviceIndex{m: map[string]*serviceObjects{}, sel: sel}
}

func (x *serviceIndex) get(namespace, name string) *serviceObjects {
	var buf [128]byte
	key := append(append(append(buf[:0], namespace...), '/'), name...)
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.m[string(key)] // which does not allocate
}

// at is get for the key namespace/name.
func (x *serviceIndex) at(key string) *serviceObjects {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.m[key]
}

// service records a Service event: old and new as the handler got them
// (nil, or a tombstone for a delete).
func (x *serviceIndex) service(old, new any) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if svc := eventObject[*corev1.Service](old); svc != nil && new == nil {
		x.set(objectKey(svc.Namespace, svc.Name), func(o *serviceObjects) { o.svc = nil })
	}
	if svc := eventObject[*corev1.Service](new); svc != nil {
		x.set(objectKey(svc.Namespace, svc.Name), func(o *serviceObjects) { o.svc = svc })
	}
}

// slice records an EndpointSlice event. A slice whose service-name label
// changed moves from one Service to the other.
func (x *serviceIndex) slice(old, new any) {
	var prepared *endpoints.Prepared
	newSlice := eventObject[*discoveryv1.EndpointSlice](new)
	if newSlice != nil && eventObject[*discoveryv1.EndpointSlice](old) == newSlice {
		return // a resync: the index holds it already, prepared
	}
	if newSlice != nil {
		prepared = endpoints.Prepare(newSlice, preparedScheme) // before the lock: renders read on
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if s := eventObject[*discoveryv1.EndpointSlice](old); s != nil {
		if key, ok := sliceService(s); ok {
			x.set(key, func(o *serviceObjects) { o.without(s.Name) })
		}
	}
	if s := newSlice; s != nil {
		if key, ok := sliceService(s); ok {
			x.set(key, func(o *serviceObjects) {
				o.without(s.Name) // one of the same name is replaced
				i, _ := slices.BinarySearchFunc(o.slices, s.Name, func(e *discoveryv1.EndpointSlice, name string) int { return strings.Compare(e.Name, name) })
				o.slices = slices.Insert(o.slices, i, s)
				o.prepared = slices.Insert(o.prepared, i, prepared)
			})
		}
	}
}

// without replaces the slices of o (and their prepared forms) by copies
// without the slice named name.
func (o *serviceObjects) without(name string) {
	list, prepared := make([]*discoveryv1.EndpointSlice, 0, len(o.slices)), make([]*endpoints.Prepared, 0, len(o.slices))
	for i, s := range o.slices {
		if s.Name != name {
			list, prepared = append(list, s), append(prepared, o.prepared[i])
		}
	}
	o.slices, o.prepared = list, prepared
}

// set replaces the value of key by a copy that change modified, and drops
// it when nothing is left. Called with the lock held.
func (x *serviceIndex) set(key string, change func(*serviceObjects)) {
	o := &serviceObjects{}
	if prev := x.m[key]; prev != nil {
		*o = *prev
	}
	change(o)
	if len(o.slices) == 0 {
		o.slices, o.prepared = nil, nil
	}
	if o.svc == nil && o.slices == nil {
		delete(x.m, key)
		return
	}
	prev := o.selected
	o.selected = nil
	if x.sel != nil {
		o.selected = selectPorts(o, prev, x.sel, &x.backends)
	}
	x.m[key] = o
}

func sliceService(s *discoveryv1.EndpointSlice) (string, bool) {
	name := s.Labels[discoveryv1.LabelServiceName]
	if name == "" {
		return "", false
	}
	return objectKey(s.Namespace, name), true
}

// eventObject returns the object of an informer event as a T (the zero T
// for another kind or none), looking into a tombstone.
func eventObject[T any](obj any) T {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	v, _ := obj.(T)
	return v
}
