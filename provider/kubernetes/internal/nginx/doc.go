// Package nginx is the ingress-nginx front end of the Ingress provider:
// it reads the nginx.ingress.kubernetes.io annotations, and the
// controller's ConfigMap, of the Ingresses of ingress-nginx's classes and
// translates each into its part (Translate), using the same
// translate.IngressEnv, load balancers and assembly as the Traefik-style
// front end (package translate). Its names start with NamePrefix
// (nginx_), so both providers' output can go to one Traefik.
//
// Translate is pure, like package translate: it reads the environment
// and the Ingress, never logs and never calls the API server, and files
// every problem as an ObjectError naming the Ingress and the field. Unlike
// the Traefik-style part, an ingress-nginx part also reads the other
// Ingresses of its hosts (env.Hosts), as ingress-nginx merges every
// Ingress of a host into one nginx server. Options.Hosts names those
// hosts; the renderer translates an Ingress again when any Ingress of
// one of its hosts changes, so a missing host there gives a stale part.
//
// What must hold whatever the annotations say:
//   - An Ingress never changes the routers of another namespace's paths:
//     what a host's paths share is read from the path's own namespace,
//     and what Traefik allows once per host (the TLS option) is the
//     host owner's.
//   - Access fails closed: when an annotation about who may reach the
//     backend cannot be honoured, the Ingress's paths answer 403, and the
//     paths are never served as if the annotation were absent.
//   - What one Ingress adds to the configuration is bounded by
//     maxIngressOutput.
//
// The files, by job:
//
//	translate.go             Options, Translate and the walk over rules and
//	                         paths (translation, pathContext)
//	classes.go               which Ingresses are ingress-nginx's (ClassSet)
//
// Reading annotations:
//
//	annotations.go           the known annotations (each family's table),
//	                         the refused ones, ParseAnnotations, Problem,
//	                         the value readers
//	pathannotations.go       the path family (PathConfig): regex mode,
//	                         rewrites, ssl redirects, app-root, aliases
//	backendannotations.go    the backend family (BackendConfig)
//	accessannotations.go     the access family (AccessConfig) and the
//	                         order of its middlewares
//	canary.go                the canary family (CanaryConfig)
//	secrets.go               what the dialect reads beyond the specs
//	                         (Reads, which the informer transform keeps and
//	                         the change filter compares): the Secrets the
//	                         annotations name and their data keys
//	suggest.go               ingress-nginx's documented annotations, former
//	                         names, and the "did you mean" of an unknown one
//
// Hosts and ownership between namespaces:
//
//	hostfacts.go             who owns a host (the oldest Ingress claiming
//	                         it), and what its paths share
//	aliases.go               server-alias; the hosts a part reads
//	hostdefault.go           spec.defaultBackend of an Ingress with rules:
//	                         the fallback of its own hosts
//	defaultbackend.go        spec.defaultBackend of an Ingress without
//	                         rules: the catch-all candidate
//	controllerdefault.go     the controller's default backend
//	                         (defaultBackendService): the catch-all when
//	                         no Ingress sets one, and custom-http-errors'
//	                         pages
//
// Paths and routers:
//
//	paths.go, pathtypes.go   rules and priorities as nginx matches paths;
//	                         strict path types
//	routerpair.go            the one place routers are made: a plain one,
//	                         and a TLS one when the host has TLS
//	middlewares.go           the middlewares of a path, in nginx's phase
//	                         order
//	closed.go                routers that answer 403 (closed) or 503 (no
//	                         usable Service), and undoing a half-built path
//
// Canaries:
//
//	canaryhost.go            how a canary finds its main Ingress
//	canarysplit.go           the routers that split a main path's requests
//	canarycheck.go           the problems of a canary Ingress
//
// Access (each file holds its annotations and builds its middleware):
//
//	sourcerange.go           allow and deny lists, block-cidrs
//	basicauth.go             basic authentication from a Secret
//	forwardauth.go           external authentication (forwardAuth)
//	authhost.go              the hosts auth-url and auth-signin may not name
//	clientcert.go            client certificates: the host's TLS option
//	ratelimit.go, cors.go    rate and connection limits; CORS
//
// Redirects:
//
//	redirects.go             permanent and temporal redirects, app-root,
//	                         from-to-www
//
// Backends and transports:
//
//	backendservice.go        services derived from a load balancer: scheme,
//	                         transport, sticky cookie, service-upstream
//	affinity.go              the sticky cookie, a canary's included
//	transport.go             the Ingress's servers transport: timeouts,
//	                         backend TLS
//	backendmiddlewares.go    error pages, body size, Host header; the
//	                         default-backend annotation
//
// The controller's ConfigMap:
//
//	controller.go            Controller and ParseConfigMap
//	controllerkeys.go        the keys applied, and those that close every
//	                         Ingress
//	controllerkeysignored.go the keys without effect here, and why
//	hsts.go                  its Strict-Transport-Security header
//
// The rest:
//
//	output.go, budget.go     the output bound: an estimate before anything
//	                         is built, then a count as paths are built
//	passthrough.go           ssl-passthrough: a TCP router on HostSNI
//	names.go                 the names of routers, services and middlewares
package nginx
