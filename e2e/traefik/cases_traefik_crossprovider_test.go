package traefike2e

// crossProviderNamespaces (Traefik v3.7's option): an Ingress of an
// allowed namespace uses another provider's middleware (Traefik's own
// dashboard_stripprefix@internal strips /dashboard from the path); the
// same annotation in another namespace skips that Ingress, with an error
// naming the annotation, and its host answers 404.
func init() {
	slicewayFlags = append(slicewayFlags, "--providers.kubernetesingress.crossprovidernamespaces=xprovider-allowed")
	register(Case{
		Name: "xprovider",
		Manifests: `
{{ service "app" "xprovider-app" }}
{{ serviceIn "xprovider-allowed" "app" "xprovider-allowed-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: allowed
  namespace: xprovider-allowed
  annotations:
    traefik.ingress.kubernetes.io/router.middlewares: dashboard_stripprefix@internal
spec:
  rules:
  - host: allowed.{{ .Host }}
    http:
      paths:
      - {path: /dashboard, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: denied
  namespace: {{ .Namespace }}
  annotations:
    traefik.ingress.kubernetes.io/router.middlewares: dashboard_stripprefix@internal
spec:
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /dashboard, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
		Requests: []Request{
			{URL: "http://allowed.xprovider.e2e.test/dashboard/x", Backend: "xprovider-allowed-app", Path: "/x"},
			{URL: "/dashboard/x", Status: 404, NoHeaders: []string{echoBackendHeader}},
		},
		Errors: []string{"router.middlewares]: middleware \"dashboard_stripprefix@internal\": namespace \"xprovider\""},
	})
}
