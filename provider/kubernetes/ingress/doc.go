// Package ingress is the Kubernetes Ingress provider: it watches Ingresses,
// IngressClasses, Services, EndpointSlices, Secrets (and Nodes when a
// feature needs them) and renders Traefik v3 dynamic configuration.
//
// One way through, a file (or a few) for each step:
//
//	client.go, informers.go,  the informers and what they watch: Ingresses,
//	informersync.go,          Services, EndpointSlices, Secrets, Nodes when
//	configmapwatch.go         needed, the one ConfigMap of the nginx dialect;
//	                          waiting for their sync and saying why not
//	gatewayinformers.go,      with ClientOptions.Gateway, the Gateway API
//	gatewaysnapshot.go        informers (GatewayClasses, Gateways,
//	                          HTTPRoutes, GRPCRoutes, ReferenceGrants) and
//	                          the Namespaces, and GatewaySnapshot, what a
//	                          snapshot then gives of them
//	missingresource.go        a resource the API server does not serve (a
//	                          Gateway API CRD not installed), told at once
//	gatewayprovider.go,       the Gateway API provider (its options) and its
//	gatewaydialect.go,        dialect (an engine.RouteDialect): Gateways and
//	gatewayroutes.go          routes into parts (../internal/gateway),
//	                          ranked over all routes
//	gatewayincremental.go     what a change of routes, Services or Secrets
//	                          reaches of the Gateway front end, translated
//	                          again alone
//	handlers.go               their event handlers: the change filter
//	                          (k8s.Keep), then the client's own records
//	secretrefs.go,            the Secrets the Ingresses name, whose data the
//	secretfetch.go            cache keeps; fetching the data of one named
//	                          after it was listed
//	listersnapshot.go,        the snapshot a render reads; the cluster
//	connect.go                connection from the options
//	svcindex.go, plans.go     what the handlers keep for renders: each Service
//	                          with its prepared slices and the load balancers
//	                          of its ports, each Ingress's plan, built by the
//	                          translation's own builders
//	dialect.go,               the front ends over the one engine: the
//	nginxprovider.go,         Traefik-style one (../internal/translate) and
//	nginxconfigmap.go         ingress-nginx's (../internal/nginx, with the
//	                          controller's ConfigMap); each says what it
//	                          reads, which Ingresses it serves and how
//	../internal/translate     the translation: an Ingress to its part, a
//	                          Service port to its load balancer (its package
//	                          comment maps its files)
//	../internal/nginx         the ingress-nginx front end (likewise)
//	translation.go,           its names and types this package's API shows
//	translateoptions.go       (aliases), and its options, built from the
//	                          Provider's
//	render.go                 the render engine (../internal/engine, which
//	                          all three front ends share) as this package's
//	                          API: Renderer, Result, Changes, Translate
//	renderonce.go             RenderOnce for `sliceway render`
//	provider.go,              Provide's loop and its render step, the status
//	liverender.go, status.go, writer (of the Gateway API objects:
//	gatewaystatus.go,         gatewaystatus.go), the denied requests, the
//	denied.go, options.go     options
//
// Translation reads the snapshot and never writes to it, never logs and
// never calls the API server: a bad object is an ObjectError naming it
// and its field, and the rest of the configuration is built.
package ingress
