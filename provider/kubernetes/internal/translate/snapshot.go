package translate

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
)

// Snapshot is the read-only view of the cluster that translation reads. The
// informer client implements it with listers; tests may implement it with maps.
// Returned objects are shared with the cache and must not be modified.
//
// Translation reads nothing else of it: what the informer client's
// snapshots give besides (the prepared slices and memoised load balancers
// of ServiceObjects, the plans of Ingresses) reaches translation as
// arguments, from the renderer.
type Snapshot interface {
	// Ingresses returns the Ingresses the provider watches, in any order.
	Ingresses() []*netv1.Ingress
	// IngressClasses returns all IngressClasses, in any order.
	IngressClasses() []*netv1.IngressClass
	// Service returns the Service, or nil when there is none.
	Service(namespace, name string) *corev1.Service
	// EndpointSlices returns the slices labelled kubernetes.io/service-name=service.
	EndpointSlices(namespace, service string) []*discoveryv1.EndpointSlice
	// Secret returns the Secret, or nil when there is none.
	Secret(namespace, name string) *corev1.Secret
	// Nodes returns all Nodes, or nil when nodes are not watched.
	Nodes() []*corev1.Node
}
