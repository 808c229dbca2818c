package manifests

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
	gatewayfake "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/fake"
)

// UsedKinds are the kinds the Ingress providers read; manifests of other
// kinds are skipped with a warning. The Gateway front end reads
// GatewayKinds besides (WantedKinds).
var UsedKinds = []schema.GroupVersionKind{
	netv1.SchemeGroupVersion.WithKind("Ingress"),
	netv1.SchemeGroupVersion.WithKind("IngressClass"),
	corev1.SchemeGroupVersion.WithKind("Service"),
	corev1.SchemeGroupVersion.WithKind("Secret"),
	corev1.SchemeGroupVersion.WithKind("Node"),
	corev1.SchemeGroupVersion.WithKind("Namespace"),
	corev1.SchemeGroupVersion.WithKind("ConfigMap"),
	discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice"),
}

// IsUsedKind says whether the Ingress providers read objects of this
// kind (one of UsedKinds).
func IsUsedKind(gvk schema.GroupVersionKind) bool {
	for _, k := range UsedKinds {
		if k == gvk {
			return true
		}
	}
	return false
}

// clusterScoped are the kinds that live outside namespaces.
var clusterScoped = map[string]bool{"IngressClass": true, "Node": true, "Namespace": true, "GatewayClass": true}

// NewFakeCluster serves objects as an in-memory cluster through client-go's
// fake clientset, so that the informer path of the live provider runs
// unchanged on manifests. Namespaced objects without a namespace go to
// "default", as kubectl does. An object that is already there (same kind,
// namespace and name) is an error naming both sources; the first one stays.
// Gateway API objects go to the cluster's Gateway API clientset, which
// this does not return: use NewCluster to read them.
func NewFakeCluster(objs []Object) (kubernetes.Interface, []*Error) {
	c := NewCluster()
	_, problems := c.Apply(objs)
	return c.Clientset(), problems
}

// Cluster is an in-memory cluster whose objects are replaced as a
// whole by Apply, which tells the informers only what differs: manifests
// read again after an edit reach the provider as the same edit made in a
// real cluster would, through the change filter and incremental render.
// Apply is called from one goroutine at a time; the clientsets may be read
// from any.
//
// It has two clientsets, as a real cluster has two clients: client-go's
// for the kinds Kubernetes serves, and gateway-api's for the Gateway API
// kinds (their CRDs). Apply puts each object in the one its group
// belongs to, and one watchGate guards both.
type Cluster struct {
	cs      *fake.Clientset
	gw      *gatewayfake.Clientset
	gate    *watchGate
	applied map[objectKey]appliedObject
}

// objectKey names an object in the cluster.
type objectKey struct {
	resource  schema.GroupVersionResource
	namespace string
	name      string
}

// appliedObject is an object as Apply last gave it to the cluster.
type appliedObject struct {
	object runtime.Object // as decoded, before the resourceVersion was set
	source Object
	id     string // "Service default/web", for messages
}

// ApplyResult counts what an Apply changed in the cluster.
type ApplyResult struct {
	Added, Updated, Deleted int
}

// Changed says whether the Apply changed any object.
func (r ApplyResult) Changed() bool { return r.Added+r.Updated+r.Deleted > 0 }

// NewCluster returns an empty in-memory cluster.
func NewCluster() *Cluster {
	// gateway-api's NewClientset would track fields through a REST mapper
	// that guesses the resource of Gateway as "gatewaies": a Gateway could
	// not be created or updated through it. Its simple clientset stores
	// objects under the resource it is given.
	c := &Cluster{cs: fake.NewClientset(), gw: gatewayfake.NewSimpleClientset(), applied: map[objectKey]appliedObject{}}
	c.gate = newWatchGate(c.cs, c.gw)
	return c
}

// Clientset is the client of the cluster, for the provider.
func (c *Cluster) Clientset() kubernetes.Interface { return c.cs }

// GatewayClientset is the client of the cluster's Gateway API objects,
// for the provider's Gateway front end (ClientOptions.Gateway).
func (c *Cluster) GatewayClientset() gatewayclient.Interface { return c.gw }

// tracker is the object store of the clientset that holds resource.
func (c *Cluster) tracker(resource schema.GroupVersionResource) k8stesting.ObjectTracker {
	if isGatewayGroup(resource.Group) {
		return c.gw.Tracker()
	}
	return c.cs.Tracker()
}

// add stores a new object. A Gateway API object is created under the
// resource its key names: the tracker's Add would guess the resource from
// the kind, wrongly for Gateway (resourceOf).
func (c *Cluster) add(key objectKey, obj runtime.Object) error {
	if isGatewayGroup(key.resource.Group) {
		return c.gw.Tracker().Create(key.resource, obj, key.namespace)
	}
	return c.cs.Tracker().Add(obj)
}

// Apply makes the cluster hold exactly objs: objects that were not there
// are added, those that differ are updated, those no longer given are
// deleted, and equal ones are left alone, so that applying the same objects
// again tells the informers nothing. Namespaced objects without a namespace
// go to "default". Of two objects with the same kind, namespace and name
// the first one given is kept and the other is an error naming both
// sources.
//
// Objects are stored without a resourceVersion: the fake clientset keeps
// whichever it is given, whatever the change, and the change filter drops
// an update that keeps it as a resync. A manifest copied from kubectl get
// has one, which would hide its edits.
//
// An error of the cluster itself (an object it refuses, informers that
// stopped reading) is returned with the object it concerns; what was not
// applied is tried again by the next Apply.
func (c *Cluster) Apply(objs []Object) (ApplyResult, []*Error) {
	var problems []*Error
	wanted := make(map[objectKey]appliedObject, len(objs))
	var order []objectKey
	for _, o := range objs {
		key, id, err := keyOf(o.Object)
		if err != nil {
			problems = append(problems, &Error{File: o.File, Document: o.Document, Err: err})
			continue
		}
		if first, dup := wanted[key]; dup {
			problems = append(problems, &Error{File: o.File, Document: o.Document,
				Err: fmt.Errorf("%s is defined again (first in %s); this copy is skipped", id, first.source.Source())})
			continue
		}
		wanted[key] = appliedObject{object: o.Object, source: o, id: id}
		order = append(order, key)
	}

	var result ApplyResult
	fail := func(a appliedObject, err error) {
		problems = append(problems, &Error{File: a.source.File, Document: a.source.Document, Err: fmt.Errorf("%s: %w", a.id, err)})
	}
	// The provider renders a burst of changes once: the order of the calls
	// below does not show in the output.
	for key, old := range c.applied {
		if _, keep := wanted[key]; keep {
			continue
		}
		err := c.gate.do(func() error { return c.tracker(key.resource).Delete(key.resource, key.namespace, key.name) })
		if err != nil {
			fail(old, err)
			continue
		}
		delete(c.applied, key)
		result.Deleted++
	}
	for _, key := range order {
		a := wanted[key]
		old, exists := c.applied[key]
		if exists && equality.Semantic.DeepEqual(old.object, a.object) {
			c.applied[key] = a // the same object, perhaps from another document now
			continue
		}
		stored := a.object.DeepCopyObject()
		if m, err := meta.Accessor(stored); err == nil {
			m.SetResourceVersion("")
		}
		var err error
		if exists {
			err = c.gate.do(func() error { return c.tracker(key.resource).Update(key.resource, stored, key.namespace) })
		} else {
			err = c.gate.do(func() error { return c.add(key, stored) })
		}
		if err != nil {
			fail(a, err)
			continue
		}
		c.applied[key] = a
		if exists {
			result.Updated++
		} else {
			result.Added++
		}
	}
	return result, problems
}

// keyOf names an object, giving a namespaced object without a namespace
// the "default" one.
func keyOf(obj runtime.Object) (objectKey, string, error) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return objectKey{}, "", err
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		// Built in Go rather than decoded: ask the scheme.
		if kinds, _, err := decodingScheme.ObjectKinds(obj); err == nil && len(kinds) > 0 {
			gvk = kinds[0]
		}
	}
	if !clusterScoped[gvk.Kind] && accessor.GetNamespace() == "" {
		accessor.SetNamespace(corev1.NamespaceDefault)
	}
	resource := resourceOf(gvk)
	id := gvk.Kind + " " + accessor.GetName()
	if accessor.GetNamespace() != "" {
		id = gvk.Kind + " " + accessor.GetNamespace() + "/" + accessor.GetName()
	}
	return objectKey{resource: resource, namespace: accessor.GetNamespace(), name: accessor.GetName()}, id, nil
}
