// Package filter translates the filters of Gateway API HTTPRoute and
// GRPCRoute rules and backendRefs, and HTTPRoute rule timeouts, into
// Traefik v3 dynamic configuration: named middlewares in the filters'
// order, the mirrors a mirroring service sends copies to, and the
// forwarding timeouts of a servers transport. It is pure: no I/O, no
// logging; each problem is an Error naming the field and the route
// condition it sets, and a list with a problem gives nothing else, so
// that a rule is never served with one of its filters left out.
//
// # Deliveries and targets
//
// Traefik v3.7 reads sliceway's JSON through its file and HTTP
// providers (paerser's file decoding, which skips every field tagged
// file:"-") and through a provider plugin (encoding/json into Traefik's
// dynamic.Configuration, which reads every field with a json name).
// Traefik's own Gateway API middlewares (requestHeaderModifier,
// responseHeaderModifier, requestRedirect, URLRewrite) are tagged
// file:"-", so only the plugin delivers them; a router naming one
// through the other deliveries fails. Env.Target chooses:
//
//   - Portable (every delivery): headers, redirectRegex, replacePath
//     and replacePathRegex. A header "add" (append) and the redirect
//     codes 303, 307 and 308 have no exact expression there and are
//     refused with an Error.
//   - Plugin: Traefik's Gateway API middlewares for header modifiers,
//     redirects and rewrites, which are exact.
//
// CORS (Traefik's headers middleware, v3.7.6 or later for the
// conformance cases), mirrors (a mirroring service) and timeouts (a
// servers transport) are the same in both.
//
// # Names and order
//
// A middleware is named prefix-<filter type in lower case>-<index in
// the list>, with -host or -path when a Portable URLRewrite needs two;
// the caller gives a prefix unique to the router (rule and listener)
// or to the backendRef's service, so two routes never share a name. A
// rule's middlewares go on its routers in the list's order; a
// backendRef's go on the service its weighted entry names (Traefik's
// service middlewares), after the router's, as Gateway API runs a
// backendRef's filters after its rule's. Mirrors see the request as
// every middleware of the rule left it.
//
// Refused combinations: RequestRedirect with URLRewrite in one list
// (Gateway API forbids it), a second header modifier, redirect, rewrite
// or CORS filter in one list, a RequestRedirect on a rule with
// backendRefs, and ReplacePrefixMatch on a rule that has not exactly
// one match, of type PathPrefix (all three are also refused by Gateway
// API's validation of HTTPRoute). ExtensionRef and ExternalAuth filters
// are refused (ResolvedRefs/InvalidKind and Accepted/UnsupportedValue).
//
// # Files
//
//	env.go       Target, Listener, Env, Result
//	rules.go     the entry points and the walk over a list of filters
//	headers.go   RequestHeaderModifier and ResponseHeaderModifier
//	path.go      path modifiers: ReplaceFullPath, ReplacePrefixMatch
//	redirect.go  RequestRedirect: the Location, its port, the code
//	rewrite.go   URLRewrite
//	cors.go      CORS
//	mirror.go    RequestMirror, MirroringService and its types
//	timeouts.go  HTTPRouteRule timeouts
//	errors.go    Error and the route conditions
package filter
