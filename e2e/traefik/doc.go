// Package traefike2e proves sliceway's behaviour with real requests: a
// real Traefik binary polls a real `sliceway serve` of the cases'
// manifests through its HTTP provider, and requests go through Traefik's
// entry points to echo backends on 127.0.0.1, which answer with what they
// received.
//
// Run it with tools/traefik-e2e/run (part of make check-traefik), which
// builds both binaries and names them in SLICEWAY_E2E_TRAEFIK and
// SLICEWAY_E2E_SLICEWAY; arguments go to go test:
//
//	bash tools/traefik-e2e/run -v -run 'TestTraefik/tls'
//
// Without those variables TestTraefik skips, so go test ./... stays fast.
//
// One sliceway serve and one Traefik serve every case. Before the first
// case, and after each update, the suite waits until serve's
// /api/config is what `sliceway render` makes of the same manifests and
// flags, then until Traefik's /api/rawdata has exactly its routers (with
// their rules) and services (with their servers).
//
// # Adding a case
//
// A case is a Case value registered from a file's init function:
//
//	func init() {
//		register(Case{
//			Name: "rewrite",           // namespace "rewrite", host rewrite.e2e.test
//			Manifests: `
//	{{ service "app" "rewrite-app" }}
//	---
//	apiVersion: networking.k8s.io/v1
//	kind: Ingress
//	metadata: {name: app, namespace: {{ .Namespace }}}
//	spec:
//	  rules:
//	  - host: {{ .Host }}
//	    http:
//	      paths:
//	      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
//	`,
//			Requests: []Request{
//				{URL: "/x?y=1", Backend: "rewrite-app", Path: "/x", Query: "y=1"},
//				{URL: "https://rewrite.e2e.test/", Status: 200, UpstreamHeaders: map[string]string{"X-Forwarded-Proto": "https"}},
//			},
//		})
//	}
//
// The manifests are a text/template (see caseData and manifests.render
// for the helpers: service, httpsService, tlsSecret, caSecret,
// backendURL, bcrypt, sha1Hash, base64). A backend is named by the case,
// and its first mention starts it (an echo, unless a case file registered
// a handler of that name in handlers); name backends after the case so
// that answers say whose they are. A case owns its namespace and
// its host and must route no one else's: everything lives in one
// configuration.
//
// Cases of another provider go in a file of their own, whose init also
// appends that provider's flags to slicewayFlags (serve and render both
// get them).
package traefike2e
