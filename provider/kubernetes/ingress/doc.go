// Package ingress is the Kubernetes Ingress provider: it watches Ingresses,
// IngressClasses, Services, EndpointSlices, Secrets (and Nodes when a
// feature needs them) and renders Traefik v3 dynamic configuration.
//
// One way through, a file (or a few) for each step:
//
//	client.go, secrets.go,   informers and their handlers; the snapshot
//	connect.go
//	svcindex.go, plans.go    what the handlers keep for renders: each Service
//	                         with its prepared slices and the load balancers
//	                         of its ports, each Ingress's plan, built by the
//	                         translation's own builders
//	changes.go               Changes: the keys of what changed since a render
//	internal/translate       the translation: an Ingress to its part, a
//	                         Service port to its load balancer (its package
//	                         comment maps its files)
//	translation.go,          its names and types this package's API shows
//	translateoptions.go      (aliases), and its options, built from the
//	                         Provider's
//	state.go                 what the last render left: parts, the entries
//	                         of the Service ports they use, who uses what
//	                         (renderState)
//	pass.go                  one render's translation: the environment it
//	                         gives translate, and the entries it records
//	assemble.go, naming.go,  parts to a configuration: names, conflicts, the
//	ties.go, outputmaps.go   default backend, certificates; full or patch
//	renderer.go,             the Renderer: a full render, or an incremental
//	incremental.go,          one that translates what the changes touch and
//	result.go                patches the previous configuration; Translate
//	equal.go, errsort.go     "did it change", and the problems in order
//	provider.go, status.go,  Provide's loop, the status writer, the denied
//	denied.go, options.go    requests, the options
//
// Translation reads the snapshot and never writes to it, never logs and
// never calls the API server: a bad object is an ObjectError naming it
// and its field, and the rest of the configuration is built.
package ingress
