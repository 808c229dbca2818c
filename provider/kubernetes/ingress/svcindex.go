package ingress

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/tools/cache"

	corev1 "k8s.io/api/core/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
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
// or one of its slices changes, with the renders' builder (lbEnv.buildPort);
// a render with the same options takes it (lbMemo).
type serviceIndex struct {
	mu  sync.RWMutex
	m   map[objectKey]*serviceObjects
	lbs *lbEnv // nil: no load balancer is built here; used under mu
}

// preparedScheme is the scheme the URLs of prepared slices are written
// for: that of every Service port but those of port 443, named https*, or
// given another scheme by annotation, whose URLs a render writes.
const preparedScheme = "http"

// newServiceIndex makes an index; with opts, it builds the load balancers
// for renders with those options.
func newServiceIndex(opts *lbOptions) *serviceIndex {
	x := &serviceIndex{m: map[objectKey]*serviceObjects{}}
	if opts != nil {
		// No memo of its own to read, no Nodes and no location: the index
		// builds what holds for a proxy whose node and zone are unknown.
		x.lbs = &lbEnv{opts: opts, serviceSets: &annotationMemo[*serviceAnnotations]{}}
	}
	return x
}

func (x *serviceIndex) get(key objectKey) *serviceObjects {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.m[key]
}

// options are those the index built its load balancers with; nil when it
// built none.
func (x *serviceIndex) options() *lbOptions {
	if x.lbs == nil {
		return nil
	}
	return x.lbs.opts
}

// service records a Service event: old and new as the handler got them
// (nil, or a tombstone for a delete).
func (x *serviceIndex) service(old, new any) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if svc := eventObject[*corev1.Service](old); svc != nil && new == nil {
		x.set(objectKey{svc.Namespace, svc.Name}, func(o *serviceObjects) { o.svc = nil })
	}
	if svc := eventObject[*corev1.Service](new); svc != nil {
		x.set(objectKey{svc.Namespace, svc.Name}, func(o *serviceObjects) { o.svc = svc })
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
func (x *serviceIndex) set(key objectKey, change func(*serviceObjects)) {
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
	prev := o.memo
	o.memo = nil
	if x.lbs != nil {
		o.memo = x.memoise(o, prev)
	}
	x.m[key] = o
}

// memoise builds the load balancer of each port of o's Service that a
// render may take: the TCP ports of a Service that is not ExternalName,
// except those made of the Nodes. A load balancer equal to the one of the
// same port in prev (the memo before this change) is that one, so that
// a render sees at a glance that it did not change.
func (x *serviceIndex) memoise(o *serviceObjects, prev *lbMemo) *lbMemo {
	if o.svc == nil || o.svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	m := &lbMemo{opts: x.lbs.opts, ports: make([]*loadBalancer, len(o.svc.Spec.Ports))}
	for _, sl := range o.slices {
		for i := range sl.Endpoints {
			if h := sl.Endpoints[i].Hints; h != nil && (len(h.ForNodes) > 0 || len(h.ForZones) > 0) {
				m.hinted = true
			}
		}
	}
	for i, p := range o.svc.Spec.Ports {
		if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
			continue
		}
		lb, ok := x.lbs.buildPort(o, i)
		switch {
		case !ok:
		case prev != nil && i < len(prev.ports) && prev.ports[i] != nil && reflect.DeepEqual(*prev.ports[i], lb):
			m.ports[i] = prev.ports[i]
		default:
			m.ports[i] = &lb
		}
	}
	return m
}

func sliceService(s *discoveryv1.EndpointSlice) (objectKey, bool) {
	name := s.Labels[discoveryv1.LabelServiceName]
	if name == "" {
		return objectKey{}, false
	}
	return objectKey{s.Namespace, name}, true
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
