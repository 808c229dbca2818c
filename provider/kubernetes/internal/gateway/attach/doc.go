// Package attach decides, for the Gateway API front end, which routes attach
// to which listeners with which effective hostnames, and computes the status
// conditions of GatewayClasses, Gateways, listeners and routes beside that
// decision, the way Envoy Gateway's and Contour's gateway processors do: an
// invalid listener, reference or backend becomes a condition on its own
// object, and the rest of the Gateway is still served.
//
// The package is pure: it reads the objects it is given and the caller's
// Lookups (namespace labels, Services, Secrets, ReferenceGrants), never the
// API server; it does not log; the only time it uses is the "now" handed to
// the status merges.
//
// The caller runs it in this order, every step a plain function of values:
//
//	ProcessClass          a GatewayClass: ours or not, and its Accepted condition
//	ProcessGateway        a Gateway of an accepted-or-not class of ours: its
//	                      listeners (entry point, supported kinds, certificates,
//	                      Accepted/Conflicted/ResolvedRefs/Programmed), its
//	                      addresses and its Accepted/Programmed/ResolvedRefs
//	AttachRoute           an HTTPRoute or GRPCRoute (the Route view): for each
//	                      parentRef to one of our Gateways, the listeners that
//	                      take it and the hostnames it serves there, or why none
//	ApplyDroppedRules     what translation could not implement of the route's
//	                      rules: Accepted=False when nothing is left,
//	                      PartiallyInvalid when some is
//	ResolveKindConflicts  an HTTPRoute and a GRPCRoute may not share a hostname
//	                      on one listener: the older keeps it
//	CountAttachedRoutes   the listeners' attachedRoutes, from the final
//	                      attachments
//	CheckBackends         a route's backendRefs: the ResolvedRefs condition and,
//	                      per rule, which backends are usable and what weight
//	                      must be answered with an error status
//	ClassStatus, GatewayStatus, RouteStatus
//	                      the computed conditions merged into the existing
//	                      status, keeping lastTransitionTime when nothing
//	                      changed and leaving other controllers' entries alone
//
// Its files, one job each:
//
//	options.go        Options, EntryPoint, Lookups and the protocol tables
//	conditions.go     building conditions and merging them into existing ones
//	referencegrant.go whether a ReferenceGrant lets one object refer to another
//	hostnames.go      listener and route hostname intersection and overlap
//	class.go          the GatewayClass
//	listener.go       one listener alone: protocol, kinds, namespaces, TLS, port
//	certificates.go   a listener's certificateRefs
//	conflicts.go      listeners that are not distinct from each other
//	addresses.go      spec.addresses against the proxy's known addresses
//	gateway.go        a Gateway: its listeners and its own conditions
//	route.go          the common view of an HTTPRoute or a GRPCRoute
//	attach.go         one route's parentRefs against our Gateways
//	rules.go          dropped rules: UnsupportedValue and PartiallyInvalid
//	kindconflicts.go  HTTPRoute and GRPCRoute hostnames on one listener
//	count.go          attachedRoutes
//	backends.go       backendRef resolution and the error-status share
//	status.go         the status objects, merged with what is already written
package attach
