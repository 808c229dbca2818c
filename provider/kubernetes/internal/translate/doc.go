// Package translate is the translation of the Ingress provider: pure
// functions of an explicit environment and one object. An Ingress
// becomes its part (IngressEnv.Translate: its routers, its default-backend
// candidate, its certificates and its problems); a Service port becomes
// its load balancer (LBEnv.Build, and LBEnv.BuildPort, which the client's
// index memoises through LBEnv.Memoise). There is one builder for each:
// whoever keeps their results (the renderer, the informers' index) never
// builds them its own way.
//
// What it reads: the environment (the options, PlanOptions and LBOptions,
// which the provider builds from its own; the Snapshot; where this proxy
// runs, Location; the Memos of decoded annotations and checked
// certificates) and the object. What it returns: values, a Part, a Plan,
// a LoadBalancer, each never modified once returned, and the problems of
// the objects as ObjectErrors naming the object and the field. It never
// writes to its inputs, never logs and never calls the API server; a
// panic while translating an Ingress is that Ingress's error.
//
// Its files, one job each:
//
//	keys.go, errors.go       the keys of objects and Service ports; the
//	                         ObjectError and its Severity
//	snapshot.go, classes.go, the Snapshot read; which Ingresses are ours;
//	location.go              where this proxy runs
//	reads.go                 what this front end reads of objects beyond
//	                         their specs (the informers keep it, the change
//	                         filter compares it)
//	annotations.go,          the router.* and service.* annotations, decoded
//	routerobservability.go   once per set (annotationMemo); router.observability.*
//	references.go            what those annotations may name: never an
//	                         ingress-nginx object (nginx_...), and another
//	                         provider's only from crossProviderNamespaces
//	rules.go, output.go      router rules and names; what an Ingress's routers
//	                         would add to the configuration, before they are
//	                         built
//	plan.go                  an Ingress alone: annotations, checks, router
//	                         keys, routers (PlanIngress)
//	part.go                  a plan completed into the Ingress's part: its
//	                         load balancers and certificates (IngressEnv)
//	certs.go, secretdata.go, the certificates of Secrets, checked once, and
//	memos.go, generations.go the Secret whose data is still being fetched;
//	                         the memos a renderer keeps across renders
//	dialectapi.go            what the ingress-nginx front end builds with:
//	                         this package's names, rules and checks
//	loadbalancer.go,         a Service port's load balancer (LBEnv), its
//	servers.go, selection.go servers and how its endpoints are chosen
//	lbmemo.go                the load balancers the client's index builds
//	                         when a Service's objects arrive
package translate
