package traefike2e

// Cases of the Gateway API provider (providers.kubernetesGateway): a
// Gateway of sliceway's class whose HTTP listener on port 80 is served on
// Traefik's entry point web (the provider's default entry points), and
// HTTPRoutes attached to it. What the Gateway API conformance suite does
// not try through Traefik is proven here.
func init() {
	slicewayFlags = append(slicewayFlags,
		"--providers.kubernetesgateway=true",
		"--providers.kubernetesgateway.allowfqdnendpoints=true",
		"--providers.kubernetesgateway.allowloopbackendpoints=true")
	register(gatewayCase())
}

// gatewayCase is, on one Gateway:
//   - "Weighted backends": the share of the requests of a backendRef
//     that cannot be used (a Service that does not exist) answers 500
//     and the others reach their backends; a rule none of whose
//     backendRefs is usable answers 500 to all;
//   - the filters of a backendRef, a RequestMirror among them, run on
//     the requests that backendRef takes;
//   - sessionPersistence: a client that sends the session cookie back
//     stays on the server that set it, among two servers of one Service
//     (a Permanent cookie, Max-Age its absoluteTimeout) and among two
//     Services by weight (a Session cookie).
func gatewayCase() Case {
	one := &cookieRelay{name: "shop-session", header: map[string]string{}}
	stayOne := Request{URL: "/session/x", Header: one.header, Check: one.sameBackend}
	split := &cookieRelay{name: "split-session", header: map[string]string{}}
	staySplit := Request{URL: "/weighted-session", Header: split.header, Check: split.sameBackend}
	return Case{
		Name: "gateway",
		Manifests: `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: sliceway}
spec: {controllerName: sliceway.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: {{ .Namespace }}}
spec:
  gatewayClassName: sliceway
  listeners:
  - {name: http, port: 80, protocol: HTTP, hostname: {{ .Host }}}
{{ service "app" "gateway-app" }}
{{ service "pair" "gateway-pair-a" "gateway-pair-b" }}
{{ service "other" "gateway-other" }}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: split, namespace: {{ .Namespace }}}
spec:
  parentRefs: [{name: edge}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /split}}]
    backendRefs:
    - {name: app, port: 80, weight: 1}
    - {name: gone, port: 80, weight: 1}
  - matches: [{path: {type: PathPrefix, value: /none}}]
    backendRefs:
    - {name: gone, port: 80}
  - matches: [{path: {type: PathPrefix, value: /all}}]
    backendRefs:
    - {name: app, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: sessions, namespace: {{ .Namespace }}}
spec:
  parentRefs: [{name: edge}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /session}}]
    backendRefs:
    - {name: pair, port: 80}
    sessionPersistence:
      sessionName: shop-session
      absoluteTimeout: 1h
      cookieConfig: {lifetimeType: Permanent}
  - matches: [{path: {type: PathPrefix, value: /weighted-session}}]
    backendRefs:
    - {name: app, port: 80, weight: 1}
    - {name: other, port: 80, weight: 1}
    sessionPersistence: {sessionName: split-session}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: mirrors, namespace: {{ .Namespace }}}
spec:
  parentRefs: [{name: edge}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /mirrored}}]
    backendRefs:
    - name: app
      port: 80
      filters:
      - type: RequestHeaderModifier
        requestHeaderModifier: {set: [{name: X-Backend-Filter, value: app}]}
      - type: RequestMirror
        requestMirror: {backendRef: {name: other, port: 80}}
`,
		Requests: []Request{
			{URL: "/split/a", Burst: 20, Statuses: map[int]int{200: AtLeastOne, 500: AtLeastOne}},
			{URL: "/none", Status: 500},
			{URL: "/all/x", Backend: "gateway-app", Path: "/all/x"},
			// A backendRef's filters, a mirror among them, run on the
			// requests it takes: Traefik builds the mirroring service in
			// front of the backendRef's own and answers from the latter.
			{URL: "/mirrored/y", Backend: "gateway-app", Path: "/mirrored/y", UpstreamHeaders: map[string]string{"X-Backend-Filter": "app"}},
			// Without the cookie, both servers take requests and each
			// answer sets it; with it, one server only.
			{URL: "/session/x", Backends: []string{"gateway-pair-a", "gateway-pair-b"},
				Check: wantCookie(stickyCookie{name: "shop-session", path: "/", maxAge: 3600})},
			{URL: "/session/x", Check: one.capture},
			stayOne, stayOne, stayOne, stayOne,
			{URL: "/weighted-session", Backends: []string{"gateway-app", "gateway-other"},
				Check: wantCookie(stickyCookie{name: "split-session", path: "/"})},
			{URL: "/weighted-session", Check: split.capture},
			staySplit, staySplit, staySplit, staySplit,
		},
	}
}
