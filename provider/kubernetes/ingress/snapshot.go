package ingress

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
)

// Snapshot is the read-only view of the cluster that translation reads. The
// informer client implements it with listers; tests may implement it with maps.
// Returned objects are shared with the cache and must not be modified.
//
// A Snapshot whose methods may be called from several goroutines at once
// says so with a method ConcurrentReads() bool that returns true: a full
// render then translates the Ingresses on as many goroutines as there are
// CPUs (GOMAXPROCS). The informer client's snapshots do.
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

// serviceReader is the optional method of a Snapshot that finds a Service
// and its slices with one lookup, with the slices prepared for
// endpoints.AppendSelectPrepared and the servers chosen from them (nil when
// there is neither the Service nor a slice).
type serviceReader interface {
	serviceObjects(key string) *serviceObjects // key: namespace/name
	// indexSelection is how the servers in the serviceObjects were
	// chosen; nil when they were not.
	indexSelection() *selection
}

// orderedReader is the optional methods of a Snapshot that lists the
// Ingresses in key order (namespace, then name), each with what its
// translation gives its paths that depends on nothing else: a full render
// then neither sorts them nor writes those names, and takes the routers
// where they were built with its options (orderBuild; nil: none were).
type orderedReader interface {
	orderedIngresses() []*orderedIngress
	orderBuild() *pathBuild
}

// concurrentReader is the optional method of a Snapshot that may be read
// from several goroutines at once.
type concurrentReader interface {
	ConcurrentReads() bool
}
