package traefike2e

// Cases of the ingress-nginx provider's path annotations
// (provider/kubernetes/internal/nginx: pathannotations.go,
// aliases.go): what the backend sees of the path, the header that goes
// with a rewrite, the names a path is served on, and the https redirect's
// path. The redirect annotations' cases are in
// cases_nginx_redirects_test.go.
func init() {
	register(
		// rewrite-target (test/e2e/annotations/rewrite.go): "should use
		// correct longest path match" (host longest.): a plain path keeps
		// its URI beside a rewritten "/"; "should use ~* location modifier
		// if regex annotation is present" (host regex.): /foo is the plain
		// Ingress's, /foo/bar the regex one's, rewritten; "should allow for
		// custom rewrite parameters" (host params.). And docs "Rewrite": a
		// target without groups replaces the whole URI (host root.), and
		// the query is kept, as nginx appends the request's arguments.
		Case{
			Name: "nginx-rewrite-target",
			Manifests: `
{{ service "app" "nginx-rewrite-target-app" }}
{{ service "plain" "nginx-rewrite-target-plain" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: root
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/rewrite-target: /
spec:
  ingressClassName: nginx
  rules:
  - host: root.{{ .Host }}
    http:
      paths:
      - {path: /something, pathType: ImplementationSpecific, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: acme
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: longest.{{ .Host }}
    http:
      paths:
      - {path: /.well-known/acme/challenge, pathType: ImplementationSpecific, backend: {service: {name: plain, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: rewrite-index
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/rewrite-target: /new/backend
spec:
  ingressClassName: nginx
  rules:
  - host: longest.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: ImplementationSpecific, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: foo
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: regex.{{ .Host }}
    http:
      paths:
      - {path: /foo, pathType: ImplementationSpecific, backend: {service: {name: plain, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: regex
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/use-regex: "true"
    nginx.ingress.kubernetes.io/rewrite-target: /new/backend
spec:
  ingressClassName: nginx
  rules:
  - host: regex.{{ .Host }}
    http:
      paths:
      - {path: /foo.+, pathType: ImplementationSpecific, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: params
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/use-regex: "true"
    nginx.ingress.kubernetes.io/rewrite-target: /new/backend/$1
spec:
  ingressClassName: nginx
  rules:
  - host: params.{{ .Host }}
    http:
      paths:
      - {path: /foo/bar/(.+), pathType: ImplementationSpecific, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "http://root.nginx-rewrite-target.e2e.test/something", Backend: "nginx-rewrite-target-app", Path: "/"},
				{URL: "http://root.nginx-rewrite-target.e2e.test/something/else/deep", Backend: "nginx-rewrite-target-app", Path: "/"},
				{URL: "http://root.nginx-rewrite-target.e2e.test/something?x=1&y=2", Backend: "nginx-rewrite-target-app",
					Path: "/", Query: "x=1&y=2", RequestURI: "/?x=1&y=2"},
				// The rewrite puts the host in regex mode: case-insensitive.
				{URL: "http://root.nginx-rewrite-target.e2e.test/SOMETHING", Backend: "nginx-rewrite-target-app", Path: "/"},

				{URL: "http://longest.nginx-rewrite-target.e2e.test/.well-known/acme/challenge", Backend: "nginx-rewrite-target-plain",
					RequestURI: "/.well-known/acme/challenge"},
				{URL: "http://longest.nginx-rewrite-target.e2e.test/index.html", Backend: "nginx-rewrite-target-app", Path: "/new/backend"},

				{URL: "http://regex.nginx-rewrite-target.e2e.test/foo", Backend: "nginx-rewrite-target-plain", RequestURI: "/foo"},
				{URL: "http://regex.nginx-rewrite-target.e2e.test/foo/bar", Backend: "nginx-rewrite-target-app", RequestURI: "/new/backend"},

				{URL: "http://params.nginx-rewrite-target.e2e.test/foo/bar/bar", Backend: "nginx-rewrite-target-app", RequestURI: "/new/backend/bar"},
				{URL: "http://params.nginx-rewrite-target.e2e.test/foo/bar/a/b?q=1", Backend: "nginx-rewrite-target-app",
					RequestURI: "/new/backend/a/b?q=1"},
			},
		},
		// x-forwarded-prefix (test/e2e/annotations/xforwardedprefix.go):
		// "should set the X-Forwarded-Prefix to the annotation value" and
		// "should not add X-Forwarded-Prefix if the annotation value is
		// empty" (host empty.). As in ingress-nginx, the header goes with a
		// rewritten path only (host norewrite.).
		Case{
			Name: "nginx-x-forwarded-prefix",
			Manifests: `
{{ service "app" "nginx-xfp-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: prefix
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/x-forwarded-prefix: /test/value
    nginx.ingress.kubernetes.io/rewrite-target: /foo
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
  name: empty
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/x-forwarded-prefix: ""
    nginx.ingress.kubernetes.io/rewrite-target: /foo
spec:
  ingressClassName: nginx
  rules:
  - host: empty.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: norewrite
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/x-forwarded-prefix: /test/value
spec:
  ingressClassName: nginx
  rules:
  - host: norewrite.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/", Backend: "nginx-xfp-app", Path: "/foo", UpstreamHeaders: map[string]string{"X-Forwarded-Prefix": "/test/value"}},
				{URL: "http://empty.nginx-x-forwarded-prefix.e2e.test/", Backend: "nginx-xfp-app", Path: "/foo",
					NoUpstreamHeaders: []string{"X-Forwarded-Prefix"}},
				{URL: "http://norewrite.nginx-x-forwarded-prefix.e2e.test/x", Backend: "nginx-xfp-app", Path: "/x",
					NoUpstreamHeaders: []string{"X-Forwarded-Prefix"}},
			},
		},
		// server-alias (test/e2e/annotations/alias.go): "should return
		// status code 200 for host 'foo' and 404 for 'bar'" (before the
		// alias: Update) and "... for host 'foo' and 'bar'": the alias
		// reaches the same backend, with its own Host. "... hosts defined
		// in two ingresses, different path with one alias": difference,
		// the alias serves the paths of the Ingress that names it only, so
		// /app-a of the other Ingress is 404 on the alias, where nginx
		// gives the alias the host's whole server.
		Case{
			Name: "nginx-server-alias",
			Manifests: `
{{ service "app" "nginx-alias-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app-a
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /app-a, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app-b
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /app-b, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/app-b", Backend: "nginx-alias-app", UpstreamHost: "nginx-server-alias.e2e.test"},
				{URL: "http://bar.nginx-server-alias.e2e.test/app-b", Status: 404},
			},
			Updates: []Update{{
				Manifests: `
{{ service "app" "nginx-alias-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app-a
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /app-a, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app-b
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/server-alias: bar.{{ .Host }}
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /app-b, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
				Requests: []Request{
					{URL: "/app-b", Backend: "nginx-alias-app", UpstreamHost: "nginx-server-alias.e2e.test"},
					{URL: "http://bar.nginx-server-alias.e2e.test/app-b/x", Backend: "nginx-alias-app", Path: "/app-b/x",
						UpstreamHost: "bar.nginx-server-alias.e2e.test"},
					{URL: "/app-a", Backend: "nginx-alias-app"},
					{URL: "http://bar.nginx-server-alias.e2e.test/app-a", Status: 404},
					{URL: "http://other.nginx-server-alias.e2e.test/app-b", Status: 404},
				},
			}},
		},
		// preserve-trailing-slash with ssl-redirect
		// (test/e2e/annotations/preservetrailingslash.go, "should allow
		// preservation of trailing slashes"): GET / of a TLS host goes to
		// https://host/; a deeper path keeps its slash. Differences: nginx
		// answers 308, Traefik 301 to GET (308 to POST, as nginx); and
		// without the annotation nginx drops one trailing slash
		// (https://host/a), where Traefik keeps the path as it is (host
		// drop.).
		Case{
			Name: "nginx-trailing-slash",
			Manifests: `
{{ service "app" "nginx-trailing-app" }}
{{ tlsSecret "cert" "nginx-trailing-slash.e2e.test" "drop.nginx-trailing-slash.e2e.test" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: preserve
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/ssl-redirect: "true"
    nginx.ingress.kubernetes.io/preserve-trailing-slash: "true"
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
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: drop
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  tls:
  - hosts: [drop.{{ .Host }}]
    secretName: cert
  rules:
  - host: drop.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/", Status: 301, Location: "https://nginx-trailing-slash.e2e.test/"},
				{URL: "/a/b/?q=1", Status: 301, Location: "https://nginx-trailing-slash.e2e.test/a/b/?q=1"},
				{URL: "/a/", Method: "POST", Body: "x", Status: 308, Location: "https://nginx-trailing-slash.e2e.test/a/"},
				{URL: "https://nginx-trailing-slash.e2e.test/a/", Backend: "nginx-trailing-app", Path: "/a/"},
				{URL: "http://drop.nginx-trailing-slash.e2e.test/a/", Status: 301, Location: "https://drop.nginx-trailing-slash.e2e.test/a/"},
			},
		},
	)
}
