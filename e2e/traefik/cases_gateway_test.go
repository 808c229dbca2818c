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
	register(
		// The Gateway API's "Weighted backends": the share of the requests
		// of a backendRef that cannot be used (here a Service that does
		// not exist) answers 500, and the others reach their backends; a
		// rule none of whose backendRefs is usable answers 500 to all.
		Case{
			Name: "gateway-unusable-share",
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
{{ service "app" "gateway-unusable-share-app" }}
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
`,
			Requests: []Request{
				{URL: "/split/a", Burst: 20, Statuses: map[int]int{200: AtLeastOne, 500: AtLeastOne}},
				{URL: "/none", Status: 500},
				{URL: "/all/x", Backend: "gateway-unusable-share-app", Path: "/all/x"},
			},
		},
	)
}
