// Package gateway is the Gateway API front end's translation of one
// route into its part (translate.Part), the unit the render engine keeps,
// assembles and renders again when what the part read changes, as it
// does for an Ingress. It composes the leaves beside it: attach (which
// listeners a route is attached to, with which hostnames; which of its
// backendRefs are usable), match (a match as Traefik rules, and the
// order the Gateway API ranks them in) and filter (filters as Traefik
// middlewares). Like them it is pure: the engine hands it the processed
// Gateways, the route's attachment and backend check, and the one builder
// of load balancers.
//
// What a route (HTTPRoute, GRPCRoute) becomes, per listener it is attached to and that is
// programmed, per rule, per match and per rank of hostname: a router on
// the listener's entry point (tls on an HTTPS listener, whose
// certificates are the Gateway's), with the rule's filters as its
// middlewares, sending to the rule's service: the load balancer of its
// one usable backend, or a weighted service of its backends, where the
// share of unusable ones goes to a service that answers 500. Each router carries its match.Order; Priorities turns the
// orders of all routers of an entry point into Traefik priorities, which
// only the assembly, seeing every route, can do.
//
// A rule that cannot be served as written (a match or filter refused, a
// feature not served yet) is left out whole and reported as a dropped
// rule, which the route's status tells (attach.ApplyDroppedRules); the
// other rules are served.
//
// Its files:
//
//	env.go         Env: what translating a route reads besides it
//	route.go       a rule of any route kind: listeners and matches into
//	               routers, all or none
//	httproute.go   HTTPRoute: its rules as route.go reads them
//	grpcroute.go   GRPCRoute: the same, its backends reached with h2c
//	services.go    a rule's service from its backendRefs
//	names.go       the names of routers and of the services and
//	               middlewares a route defines
//	priorities.go  Priorities: the orders of an entry point's routers
//	               as Traefik priorities
package gateway
