package traefike2e

// An access annotation that cannot be honoured closes its paths: they
// answer 403 to everyone, so that a shorter path of another Ingress on
// the same host does not take their requests past the control they asked
// for. ingress-nginx refuses such an Ingress at its admission webhook, or
// leaves the location out of its server with an error in its log; its
// other locations keep serving. Here /admin's allow list is broken: /admin
// and what is under it answer 403, the other Ingress's / keeps serving.
// A path whose Service does not exist answers 503 for the same reason, as
// ingress-nginx's location without endpoints does.
func init() {
	register(Case{
		Name: "nginx-closed",
		Manifests: `
{{ service "site" "nginx-closed-site" }}
{{ service "admin" "nginx-closed-admin" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: site
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: site, port: {name: http}}}}
      - {path: /gone, pathType: Prefix, backend: {service: {name: gone, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: admin
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/whitelist-source-range: "10.0.0.0/8, not-a-range"
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /admin, pathType: Prefix, backend: {service: {name: admin, port: {name: http}}}}
`,
		Requests: []Request{
			{URL: "/admin", Status: 403, NoHeaders: []string{echoBackendHeader}},
			{URL: "/admin/users", Status: 403, NoHeaders: []string{echoBackendHeader}},
			{URL: "https://nginx-closed.e2e.test/admin", Status: 403, NoHeaders: []string{echoBackendHeader}},
			{URL: "/", Backend: "nginx-closed-site"},
			{URL: "/administrator", Backend: "nginx-closed-site"},
			{URL: "/gone/page", Status: 503, NoHeaders: []string{echoBackendHeader}},
		},
		Errors: []string{"whitelist-source-range]", "service nginx-closed/gone not found (the path answers 503)"},
	})
}
