// Package k8s is the door between the informers and the providers: what
// enters an informer cache, and which updates are worth a render.
//
//	transform.go  the informer transforms: each object trimmed to what the
//	              front ends read (Keep says what a front end reads of
//	              annotations and Secret data)
//	changes.go    the change filter: whether an update can change the
//	              output, compared on what the front ends read
//	handler.go    the event handler that applies the filter and tells the
//	              renderer which objects changed
//	gateway.go    the Gateway API kinds and Namespaces at the door: what
//	              their cache keeps (their status too) and what counts
//	              as a change (not their status, which sliceway writes)
//
// Reading objects from files instead of an API server is package manifests.
package k8s
