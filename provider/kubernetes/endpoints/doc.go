// Package endpoints turns the EndpointSlices (discovery.k8s.io/v1) of one
// Kubernetes Service into the deduplicated, sorted set of backends for one
// Service port, following kube-proxy's semantics. It is pure: no I/O, no logging.
//
// The rules, in short:
//
//   - Port: in each slice the first TCP (or unset protocol) port whose name
//     matches is used; a slice without one contributes nothing, and a port
//     outside 1..65535 makes the slice unusable.
//   - Address type: IPv4 and IPv6 slices only accept addresses of their own
//     family (no zones); FQDN slices are used only with Options.AllowFQDN and
//     need DNS-1123 subdomain names (a dotted-quad name is treated as that
//     IPv4 address); other address types are ignored.
//   - Every address of an endpoint is used, with the endpoint's conditions
//     (ready nil = true, serving nil = ready, terminating nil = false).
//     An endpoint is READY if ready, SERVING-TERMINATING if not ready but
//     serving and terminating, and otherwise never used.
//   - Backends are deduplicated on address and port; the best copy wins
//     (READY over SERVING-TERMINATING over unusable).
//   - The TerminatingPolicy decides the fate of serving-terminating backends:
//     fenced (sticky sessions only) while something is ready and used normally
//     otherwise (fallback, the default), always fenced (fence), or dropped
//     (exclude).
//   - The result is sorted (IPs before FQDNs, IPs numerically, then by port),
//     so it does not depend on the order of slices or endpoints.
//
// Defects in a slice never fail the whole selection: the bad part is dropped
// and reported as a *Problem, in a deterministic order.
//
// A program that keeps slices between selections can do the part of the
// work that depends on one slice alone once, when the slice arrives
// (Prepare), and select from the prepared slices (AppendSelectPrepared):
// the same backends and problems, and each backend's URL already written.
// Select prepares its slices the same way on the fly, and both select with
// one implementation, so they cannot disagree.
package endpoints
