package traefike2e

// Traefik v3.7's router.observability.* annotations reach the router,
// which Traefik accepts and serves; an Ingress with a router.* key
// sliceway does not know (a newer Traefik's) is served, with a warning
// naming the key, where it used to be skipped.
func init() {
	register(Case{
		Name: "observability",
		Manifests: `
{{ service "app" "observability-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: quiet
  namespace: {{ .Namespace }}
  annotations:
    traefik.ingress.kubernetes.io/router.observability.accesslogs: "false"
    traefik.ingress.kubernetes.io/router.observability.metrics: "false"
    traefik.ingress.kubernetes.io/router.observability.tracing: "false"
spec:
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /quiet, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: newer
  namespace: {{ .Namespace }}
  annotations:
    traefik.ingress.kubernetes.io/router.someday: "yes"
spec:
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /newer, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
		Requests: []Request{
			{URL: "/quiet/x", Backend: "observability-app", Path: "/quiet/x"},
			{URL: "/newer", Backend: "observability-app"},
		},
		Errors: []string{"router.someday]: not an annotation sliceway knows: ignored"},
	})
}
