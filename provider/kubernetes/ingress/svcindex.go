package ingress

import (
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// serviceIndex keeps, for each Service, the Service object and its
// EndpointSlices (those labelled kubernetes.io/service-name with its name),
// as the informer handlers deliver them, each slice prepared when it
// arrives (endpoints.Prepare), as kube-proxy's EndpointSliceCache keeps
// its state per slice. Values are replaced, never modified, so that what
// a render got stays valid while the informers go on.
//
// With the options of the renders that will read it (lbs), the index also
// builds the load balancer of each port of a Service whenever the Service
// or one of its slices changes, with the renders' builder (translate.LBEnv.Memoise);
// a render with the same options takes it (translate.LBMemo).
type serviceIndex struct {
	mu  sync.RWMutex
	m   map[translate.Key]*translate.ServiceObjects
	lbs *translate.LBEnv // nil: no load balancer is built here; used under mu
}

// preparedScheme is the scheme the URLs of prepared slices are written
// for: that of every Service port but those of port 443, named https*, or
// given another scheme by annotation, whose URLs a render writes.
const preparedScheme = "http"

// newServiceIndex makes an index; with opts, it builds the load balancers
// for renders with those options.
func newServiceIndex(opts *translate.LBOptions) *serviceIndex {
	x := &serviceIndex{m: map[translate.Key]*translate.ServiceObjects{}}
	if opts != nil {
		// No memo of its own to read, no Nodes and no location: the index
		// builds what holds for a proxy whose node and zone are unknown.
		x.lbs = &translate.LBEnv{Options: opts, Memos: &translate.Memos{}}
	}
	return x
}

func (x *serviceIndex) get(key translate.Key) *translate.ServiceObjects {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.m[key]
}

// options are those the index built its load balancers with; nil when it
// built none.
func (x *serviceIndex) options() *translate.LBOptions {
	if x.lbs == nil {
		return nil
	}
	return x.lbs.Options
}

// service records a Service event: old and new as the handler got them
// (nil, or a tombstone for a delete).
func (x *serviceIndex) service(old, new any) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if svc := eventObject[*corev1.Service](old); svc != nil && new == nil {
		x.set(translate.Key{Namespace: svc.Namespace, Name: svc.Name}, func(o *translate.ServiceObjects) { o.Service = nil })
	}
	if svc := eventObject[*corev1.Service](new); svc != nil {
		x.set(translate.Key{Namespace: svc.Namespace, Name: svc.Name}, func(o *translate.ServiceObjects) { o.Service = svc })
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
			x.set(key, func(o *translate.ServiceObjects) { withoutSlice(o, s.Name) })
		}
	}
	if s := newSlice; s != nil {
		if key, ok := sliceService(s); ok {
			x.set(key, func(o *translate.ServiceObjects) {
				withoutSlice(o, s.Name) // one of the same name is replaced
				i, _ := slices.BinarySearchFunc(o.Slices, s.Name, func(e *discoveryv1.EndpointSlice, name string) int { return strings.Compare(e.Name, name) })
				o.Slices = slices.Insert(o.Slices, i, s)
				o.Prepared = slices.Insert(o.Prepared, i, prepared)
			})
		}
	}
}

// withoutSlice replaces the slices of o (and their prepared forms) by
// copies without the slice named name.
func withoutSlice(o *translate.ServiceObjects, name string) {
	list, prepared := make([]*discoveryv1.EndpointSlice, 0, len(o.Slices)), make([]*endpoints.Prepared, 0, len(o.Slices))
	for i, s := range o.Slices {
		if s.Name != name {
			list, prepared = append(list, s), append(prepared, o.Prepared[i])
		}
	}
	o.Slices, o.Prepared = list, prepared
}

// set replaces the value of key by a copy that change modified, and drops
// it when nothing is left. Called with the lock held.
func (x *serviceIndex) set(key translate.Key, change func(*translate.ServiceObjects)) {
	o := &translate.ServiceObjects{}
	if prev := x.m[key]; prev != nil {
		*o = *prev
	}
	change(o)
	if len(o.Slices) == 0 {
		o.Slices, o.Prepared = nil, nil
	}
	if o.Service == nil && o.Slices == nil {
		delete(x.m, key)
		return
	}
	prev := o.Memo
	o.Memo = nil
	if x.lbs != nil {
		o.Memo = x.lbs.Memoise(o, prev)
	}
	x.m[key] = o
}

func sliceService(s *discoveryv1.EndpointSlice) (translate.Key, bool) {
	name := s.Labels[discoveryv1.LabelServiceName]
	if name == "" {
		return translate.Key{}, false
	}
	return translate.Key{Namespace: s.Namespace, Name: name}, true
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
