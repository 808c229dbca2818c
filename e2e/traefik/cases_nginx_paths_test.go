package traefike2e

// Cases of the ingress-nginx provider's path and redirect annotations
// (provider/kubernetes/ingress/internal/nginx: pathannotations.go,
// redirects.go, aliases.go). Traefik's redirect middlewares choose their
// code by method, where nginx answers the one code it is given: a
// permanent redirect is 301 to GET and 308 to the others, a temporary
// one 302 to GET and 307 to the others. Each case below says where that
// makes its answers differ from ingress-nginx's.
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
