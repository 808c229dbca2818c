package traefike2e

// Cases of the ingress-nginx provider's redirect annotations
// (provider/kubernetes/internal/nginx: redirects.go). Traefik's
// redirect middlewares choose their code by method, where nginx answers
// the one code it is given: a permanent redirect is 301 to GET and 308
// to the others, a temporary one 302 to GET and 307 to the others. Each
// case says where that makes its answers differ from ingress-nginx's.
func init() {
	register(
		// app-root (test/e2e/annotations/approot.go, "should redirect to
		// /foo"): GET / is 302 to $scheme://$http_host/foo; nginx tests the
		// URI without its query, so /?x=1 is redirected too (the query is
		// not carried); every other path reaches the backend. Difference:
		// nginx answers 302 to a POST too, Traefik 307.
		Case{
			Name: "nginx-app-root",
			Manifests: `
{{ service "app" "nginx-app-root-app" }}
{{ tlsSecret "cert" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: approot
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/app-root: /foo
    nginx.ingress.kubernetes.io/ssl-redirect: "false"
spec:
  ingressClassName: nginx
  tls:
  - hosts: [{{ .Host }}]
    secretName: cert
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/", Status: 302, Location: "http://nginx-app-root.e2e.test/foo", NoHeaders: []string{echoBackendHeader}},
				{URL: "/?x=1", Status: 302, Location: "http://nginx-app-root.e2e.test/foo"},
				{URL: "https://nginx-app-root.e2e.test/", Status: 302, Location: "https://nginx-app-root.e2e.test/foo"},
				{URL: "/", Method: "POST", Body: "x", Status: 307, Location: "http://nginx-app-root.e2e.test/foo"},
				{URL: "/foo", Backend: "nginx-app-root-app", Path: "/foo"},
				{URL: "/bar/", Backend: "nginx-app-root-app", Path: "/bar/"},
			},
		},
		// permanent-redirect and permanent-redirect-code
		// (test/e2e/annotations/redirect.go): "should respond with a
		// standard redirect code" (301, host; Location the URL as written)
		// and "should respond with a custom redirect code" (302, host
		// found.). Codes 308 (host code308.) and 301: Traefik answers 301 to
		// GET and 308 to the others whichever of the two is asked, where
		// nginx answers the code asked to every method. A path target is
		// made absolute on the request's host (host path.); Traefik sends a
		// request for the target itself on, where nginx would redirect it
		// to itself.
		Case{
			Name: "nginx-permanent-redirect",
			Manifests: `
{{ service "app" "nginx-permanent-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: standard
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/permanent-redirect: http://redirect.example.com
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /something, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: found
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/permanent-redirect: http://redirect.example.com
    nginx.ingress.kubernetes.io/permanent-redirect-code: "302"
spec:
  ingressClassName: nginx
  rules:
  - host: found.{{ .Host }}
    http:
      paths:
      - {path: /something, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: code308
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/permanent-redirect: https://other.example.com/landing?from=e2e
    nginx.ingress.kubernetes.io/permanent-redirect-code: "308"
spec:
  ingressClassName: nginx
  rules:
  - host: code308.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: path
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/permanent-redirect: /moved
spec:
  ingressClassName: nginx
  rules:
  - host: path.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/something", Status: 301, Location: "http://redirect.example.com", NoHeaders: []string{echoBackendHeader}},
				{URL: "/something/deeper?q=1", Status: 301, Location: "http://redirect.example.com"},
				{URL: "/something", Method: "POST", Body: "x", Status: 308, Location: "http://redirect.example.com"},
				// No other path of the host: nothing to redirect.
				{URL: "/elsewhere", Status: 404},

				{URL: "http://found.nginx-permanent-redirect.e2e.test/something", Status: 302, Location: "http://redirect.example.com"},

				{URL: "http://code308.nginx-permanent-redirect.e2e.test/x", Status: 301, Location: "https://other.example.com/landing?from=e2e"},
				{URL: "http://code308.nginx-permanent-redirect.e2e.test/x", Method: "PUT", Body: "x", Status: 308,
					Location: "https://other.example.com/landing?from=e2e"},

				{URL: "http://path.nginx-permanent-redirect.e2e.test/old/page", Status: 301, Location: "http://path.nginx-permanent-redirect.e2e.test/moved"},
				{URL: "http://path.nginx-permanent-redirect.e2e.test/moved", Backend: "nginx-permanent-app", Path: "/moved"},
			},
		},
		// temporal-redirect and temporal-redirect-code (docs: "Temporal
		// redirect"; ingress-nginx's e2e tests only check its nginx.conf):
		// 302 by default; code 307 is 302 to GET here and 307 to the
		// others (nginx: 307 to every method); with permanent-redirect
		// too, the temporal one wins (host both.).
		Case{
			Name: "nginx-temporal-redirect",
			Manifests: `
{{ service "app" "nginx-temporal-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: temporal
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/temporal-redirect: http://temporal.example.com/maintenance
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: code307
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/temporal-redirect: http://temporal.example.com/maintenance
    nginx.ingress.kubernetes.io/temporal-redirect-code: "307"
spec:
  ingressClassName: nginx
  rules:
  - host: code307.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: both
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/temporal-redirect: http://temporal.example.com/maintenance
    nginx.ingress.kubernetes.io/permanent-redirect: http://permanent.example.com
spec:
  ingressClassName: nginx
  rules:
  - host: both.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/any/path", Status: 302, Location: "http://temporal.example.com/maintenance", NoHeaders: []string{echoBackendHeader}},
				{URL: "/any/path", Method: "POST", Body: "x", Status: 307, Location: "http://temporal.example.com/maintenance"},
				{URL: "http://code307.nginx-temporal-redirect.e2e.test/", Status: 302, Location: "http://temporal.example.com/maintenance"},
				{URL: "http://code307.nginx-temporal-redirect.e2e.test/", Method: "DELETE", Status: 307, Location: "http://temporal.example.com/maintenance"},
				{URL: "http://both.nginx-temporal-redirect.e2e.test/", Status: 302, Location: "http://temporal.example.com/maintenance"},
			},
		},
		// from-to-www-redirect (test/e2e/annotations/fromtowwwredirect.go):
		// "should redirect from www HTTP to HTTP" and "should redirect from
		// www HTTPS to HTTPS" (the host itself is not redirected); the path
		// and query are kept, one trailing slash dropped. Differences:
		// nginx answers 308 to GET, Traefik 301 (308 to the others), and
		// nginx writes its own port in the Location (host:80), Traefik the
		// request's (none here). The rule's host may be the www one
		// (host www.rev.): the bare name then goes to www.
		Case{
			Name: "nginx-from-to-www",
			Manifests: `
{{ service "app" "nginx-www-app" }}
{{ tlsSecret "cert" "nginx-from-to-www.e2e.test" "www.nginx-from-to-www.e2e.test" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: www
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/from-to-www-redirect: "true"
    nginx.ingress.kubernetes.io/ssl-redirect: "false"
spec:
  ingressClassName: nginx
  tls:
  - hosts: [{{ .Host }}, www.{{ .Host }}]
    secretName: cert
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: rev
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/from-to-www-redirect: "true"
spec:
  ingressClassName: nginx
  rules:
  - host: www.rev.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "http://www.nginx-from-to-www.e2e.test/foo", Status: 301, Location: "http://nginx-from-to-www.e2e.test/foo",
					NoHeaders: []string{echoBackendHeader}},
				{URL: "http://www.nginx-from-to-www.e2e.test/foo/bar/?q=1", Status: 301, Location: "http://nginx-from-to-www.e2e.test/foo/bar/?q=1"},
				{URL: "http://www.nginx-from-to-www.e2e.test/foo/", Status: 301, Location: "http://nginx-from-to-www.e2e.test/foo"},
				{URL: "http://www.nginx-from-to-www.e2e.test/foo", Method: "POST", Body: "x", Status: 308, Location: "http://nginx-from-to-www.e2e.test/foo"},
				{URL: "https://www.nginx-from-to-www.e2e.test/", Status: 301, Location: "https://nginx-from-to-www.e2e.test"},
				{URL: "https://nginx-from-to-www.e2e.test/", Backend: "nginx-www-app", UpstreamHost: "nginx-from-to-www.e2e.test"},
				{URL: "/foo", Backend: "nginx-www-app", Path: "/foo"},

				{URL: "http://rev.nginx-from-to-www.e2e.test/x?y=1", Status: 301, Location: "http://www.rev.nginx-from-to-www.e2e.test/x?y=1"},
				{URL: "http://www.rev.nginx-from-to-www.e2e.test/x", Backend: "nginx-www-app"},
			},
		},
	)
}
