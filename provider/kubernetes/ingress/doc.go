// Package ingress is the Kubernetes Ingress provider: it watches Ingresses,
// IngressClasses, Services, EndpointSlices, Secrets (and Nodes when a
// feature needs them) and renders Traefik v3 dynamic configuration.
//
// One way through, a file (or a few) for each step:
//
//	client.go, secrets.go    informers and their handlers; the snapshot
//	svcindex.go, plans.go    what the handlers keep for renders: each Service
//	                         with its prepared slices and the load balancers
//	                         of its ports, each Ingress's plan
//	changes.go               Changes: the keys of what changed since a render
//	plan.go                  an Ingress alone: annotations, checks, router
//	                         keys, routers (planIngress)
//	translate.go             a plan completed into the Ingress's part: its
//	                         load balancers and certificates (translator)
//	loadbalancer.go,         a Service port's load balancer (lbEnv), the one
//	servers.go, selection.go builder of it, and its servers
//	state.go                 what the last render left: parts, entries, who
//	                         uses what (renderState)
//	assemble.go, naming.go,  parts to a configuration: names, conflicts, the
//	ties.go, outputmaps.go   default backend, certificates; full or patch
//	renderer.go,             the Renderer: a full render, or an incremental
//	incremental.go           one that translates what the changes touch and
//	                         patches the previous configuration
//	equal.go, errsort.go     "did it change", and the problems in order
//	provider.go, status.go   Provide's loop, and the status writer
//
// Translation reads the snapshot and never writes to it, never logs and
// never calls the API server: a bad object is an ObjectError naming it
// and its field, and the rest of the configuration is built.
package ingress
