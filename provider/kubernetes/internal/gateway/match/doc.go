// Package match turns the matches of Gateway API routes (HTTPRoute and
// GRPCRoute, sigs.k8s.io/gateway-api v1) into Traefik v3 router rules,
// and says in which order those routers must be tried for Traefik to
// pick the route the specification picks. It is a leaf of the Gateway
// API front end: pure functions of one match and the hostnames it is
// served for, no I/O.
//
// # Rules
//
// HTTP and GRPC take a match and the route's hostnames on one listener
// and return one Rule per rank of hostname: all exact hostnames share
// one, each length of wildcard has its own (a request must be ranked by
// the hostname it matched, and one router has one priority). A rule is
// the conjunction of:
//
//   - the hostnames: Host for an exact one; for a wildcard "*.example.com"
//     a HostRegexp that takes one or more labels before "example.com", as
//     the specification's suffix match does (not an Ingress wildcard's
//     single label);
//   - the path: Exact is Path; PathPrefix "/foo" (or "/foo/") is
//     Path("/foo") || PathPrefix("/foo/"), a match by path element, and
//     "/" is PathPrefix("/"); RegularExpression is PathRegexp. Exact and
//     PathPrefix values are spelt as Traefik's routing path spells
//     requests: percent-encodings of unreserved characters decoded;
//   - for a GRPCRoute, the service and method as a path, /service/method;
//   - the method (Method), each header (Header, HeaderRegexp; names in any
//     case) and each query parameter (Query, QueryRegexp; names exact).
//
// Every value is a Go-quoted string literal, as Traefik's parser reads
// them. A RegularExpression (path, header, query parameter, gRPC service
// or method) is a Go regular expression, as Traefik compiles them, and
// must match the whole value: it is wrapped as ^(?:re)$ (a gRPC service
// and method each as (?:re) inside ^/.../...$). A path expression sees
// the path as Traefik routes on it, with the encodings of reserved
// characters left as the client sent them. What the API leaves out
// is what it defaults to: a nil path is PathPrefix "/", a nil type Exact
// (PathPrefix for a path), a nil gRPC method any service and method.
//
// # Precedence and priorities
//
// The specification ranks the matches of all routes on a listener: the
// hostname, then the match (Precedence: path kind and length, method,
// header and query parameter counts for an HTTPRoute; service, method,
// header count for a GRPCRoute), then the older route, then the route
// first by "namespace/name", then the first rule and match in the
// route. A RegularExpression path, whose rank the specification leaves
// to the implementation, goes after Exact and before any PathPrefix. A
// match alone knows only the hostname and the match, so a Rule carries its
// Precedence, not a priority, and the caller, who has every router of
// an entry point, settles the rest:
//
//  1. For each router, an Order: the listener's hostname rank, the
//     Rule's Precedence, the route's creation timestamp and
//     namespace/name, the rule's and the match's index.
//  2. Priorities(orders, lowest) sorts them with CompareOrder and hands
//     out priorities from the highest down to lowest, one per distinct
//     Order, never above MaxPriority.
//
// Priorities are ranks, not sums of weights: Traefik tries routers by
// decreasing priority and leaves equal priorities in no defined order,
// and a weighted sum that fits the priorities Traefik accepts on every
// platform (MaxPriority) cannot hold path lengths, hostname lengths and
// counts side by side without one overflowing into the other.
//
// # What a Traefik rule cannot say
//
//   - A repeated query parameter: the specification recommends matching
//     its first value, Traefik's Query and QueryRegexp match any of them.
//   - The Host and Transfer-Encoding headers: Go's HTTP server takes them
//     out of the request's headers, so Traefik never sees them there; a
//     header match on either is refused (ErrUnsupported).
//   - Routers of listeners that share an entry point: ranking the most
//     specific listener first makes it win when both match, but a request
//     for its hostname that none of its routes matches falls through to
//     the routes of the less specific listener, where the specification
//     wants a 404.
//
// # Limits
//
// Sizes and counts are left to the API, which bounds them: at most 16
// hostnames of up to 253 characters, path values of up to 1024, 16
// header and 16 query parameter matches a match, names of up to 256
// characters, header values of up to 4096 and query values of up to
// 1024, gRPC services and methods of up to 1024, 128 matches a route.
// They are not checked again: the work is linear in the match, and Go's
// regexp package bounds the cost of compiling and running an expression.
// What would give Traefik a router it refuses, or one that cannot match
// as written, is refused whether or not the API server checked the route
// first: an empty name or value, an Exact or PathPrefix path that does
// not start with "/" or holds a "%" that is not an encoding, a hostname
// that is not a DNS name, an Exact gRPC service or method that is not a
// name, a regular expression Go cannot compile.
//
// # Files
//
//	http.go, grpc.go   HTTP and GRPC: a match's rules
//	path.go            an HTTPRoute's path, and Traefik's routing path
//	headers.go         header and query parameter matches
//	hosts.go           hostnames: their ranks and groups, HostRank
//	text.go            the rule's text: matchers, quoting, anchoring
//	rule.go            Rule, and a match's rules from its terms
//	precedence.go      Precedence and Compare
//	priority.go        Order, CompareOrder, Priorities and MaxPriority
//	errors.go          FieldError, HostnameError, ErrUnsupported
package match
