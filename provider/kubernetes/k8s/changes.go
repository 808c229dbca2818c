package k8s

import (
	"maps"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Annotations and labels of Kubernetes itself that every front end reads.
// What each front end reads besides is its Keep.
const (
	// IngressClassAnnotation is the legacy class annotation of Ingresses.
	IngressClassAnnotation = "kubernetes.io/ingress.class"
	// DefaultClassAnnotation marks the cluster's default IngressClass.
	DefaultClassAnnotation = "ingressclass.kubernetes.io/is-default-class"
	// ManagedByLabel names the controller of an EndpointSlice.
	ManagedByLabel = discoveryv1.LabelManagedBy
	// ZoneLabel and RegionLabel are the topology labels of Nodes.
	ZoneLabel   = corev1.LabelTopologyZone
	RegionLabel = corev1.LabelTopologyRegion
)

// Changed says whether an update from old to new can change the rendered
// output of the front end that reads what k says. It compares values,
// never pointers, on a projection of each kind: the fields translation
// reads. Resyncs, resourceVersion-only updates, managedFields, status
// heartbeats and annotations the front end does not read give false;
// so does a status-only update of a Gateway API object (gateway.go).
// Objects of different or unknown kinds give true.
func (k Keep) Changed(old, new any) bool {
	if changed, known := gatewayChanged(old, new); known {
		return changed
	}
	switch o := old.(type) {
	case *discoveryv1.EndpointSlice:
		n, ok := new.(*discoveryv1.EndpointSlice)
		return !ok || sliceChanged(o, n)
	case *corev1.Service:
		n, ok := new.(*corev1.Service)
		return !ok || k.serviceChanged(o, n)
	case *netv1.Ingress:
		n, ok := new.(*netv1.Ingress)
		return !ok || k.ingressChanged(o, n)
	case *netv1.IngressClass:
		n, ok := new.(*netv1.IngressClass)
		return !ok || classChanged(o, n)
	case *corev1.Secret:
		n, ok := new.(*corev1.Secret)
		return !ok || secretChanged(o, n)
	case *corev1.Node:
		n, ok := new.(*corev1.Node)
		return !ok || nodeChanged(o, n)
	case *corev1.ConfigMap:
		n, ok := new.(*corev1.ConfigMap)
		return !ok || !maps.Equal(o.Data, n.Data)
	}
	return true
}

func sliceChanged(o, n *discoveryv1.EndpointSlice) bool {
	if o.AddressType != n.AddressType ||
		o.Labels[discoveryv1.LabelServiceName] != n.Labels[discoveryv1.LabelServiceName] ||
		o.Labels[ManagedByLabel] != n.Labels[ManagedByLabel] {
		return true
	}
	// Compares what pointers point to, so two decodes of the same slice
	// compare equal.
	return !portsEqual(o.Ports, n.Ports) || !endpointsEqual(o.Endpoints, n.Endpoints)
}

// portsEqual and endpointsEqual are equality.Semantic.DeepEqual of the
// ports and endpoints of two slices (the same answer: a nil and an empty
// list or map are equal, pointers compare what they point to), written out field by field so that
// the filter every slice update goes through neither reflects nor
// allocates. TestSliceEqualityCoversEveryField fails when the API types
// gain a field these do not compare.
func portsEqual(a, b []discoveryv1.EndpointPort) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !ptrEqual(a[i].Name, b[i].Name) || !ptrEqual(a[i].Protocol, b[i].Protocol) ||
			!ptrEqual(a[i].Port, b[i].Port) || !ptrEqual(a[i].AppProtocol, b[i].AppProtocol) {
			return false
		}
	}
	return true
}

func endpointsEqual(a, b []discoveryv1.Endpoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if !sliceEqual(x.Addresses, y.Addresses) ||
			!ptrEqual(x.Conditions.Ready, y.Conditions.Ready) ||
			!ptrEqual(x.Conditions.Serving, y.Conditions.Serving) ||
			!ptrEqual(x.Conditions.Terminating, y.Conditions.Terminating) ||
			!ptrEqual(x.Hostname, y.Hostname) ||
			!ptrEqual(x.TargetRef, y.TargetRef) ||
			!mapEqual(x.DeprecatedTopology, y.DeprecatedTopology) ||
			!ptrEqual(x.NodeName, y.NodeName) ||
			!ptrEqual(x.Zone, y.Zone) ||
			!hintsEqual(x.Hints, y.Hints) {
			return false
		}
	}
	return true
}

func hintsEqual(a, b *discoveryv1.EndpointHints) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sliceEqual(a.ForZones, b.ForZones) && sliceEqual(a.ForNodes, b.ForNodes)
}

func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// sliceEqual and mapEqual hold nil and empty equal, as Semantic.DeepEqual does.
func sliceEqual[T comparable](a, b []T) bool { return slices.Equal(a, b) }

func mapEqual(a, b map[string]string) bool { return maps.Equal(a, b) }

// A Service's load-balancer status matters to the status writer
// (ingressEndpoint.publishedService).
func (k Keep) serviceChanged(o, n *corev1.Service) bool {
	return !equality.Semantic.DeepEqual(o.Spec, n.Spec) ||
		!equality.Semantic.DeepEqual(o.Status.LoadBalancer, n.Status.LoadBalancer) ||
		!keptEqual(o.Annotations, n.Annotations, k.ServiceAnnotation)
}

func (k Keep) ingressChanged(o, n *netv1.Ingress) bool {
	return !equality.Semantic.DeepEqual(o.Spec, n.Spec) ||
		o.Annotations[IngressClassAnnotation] != n.Annotations[IngressClassAnnotation] ||
		!keptEqual(o.Annotations, n.Annotations, k.IngressAnnotation) ||
		!reflect.DeepEqual(o.Labels, n.Labels) ||
		// The status writer compares the status it wants with this one.
		!equality.Semantic.DeepEqual(o.Status.LoadBalancer, n.Status.LoadBalancer)
}

func classChanged(o, n *netv1.IngressClass) bool {
	return o.Spec.Controller != n.Spec.Controller ||
		o.Annotations[DefaultClassAnnotation] != n.Annotations[DefaultClassAnnotation]
}

func secretChanged(o, n *corev1.Secret) bool {
	return o.Type != n.Type || !reflect.DeepEqual(o.Data, n.Data)
}

func nodeChanged(o, n *corev1.Node) bool {
	return o.Labels[ZoneLabel] != n.Labels[ZoneLabel] ||
		o.Labels[RegionLabel] != n.Labels[RegionLabel] ||
		!reflect.DeepEqual(o.Status.Addresses, n.Status.Addresses)
}

// keptEqual compares the entries of two maps whose keys read says are
// read; a nil read reads none.
func keptEqual(a, b map[string]string, read func(key string) bool) bool {
	if read == nil {
		return true
	}
	count := 0
	for k, v := range a {
		if !read(k) {
			continue
		}
		count++
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	for k := range b {
		if read(k) {
			count--
		}
	}
	return count == 0
}
