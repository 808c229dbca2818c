package traefike2e

// Cases of the ingress-nginx provider (providers.kubernetesIngressNGINX):
// Ingresses of class nginx, their paths as ingress-nginx's locations
// match them, and its annotations. Each case says which behaviour of
// ingress-nginx it reproduces (its docs, or the e2e test under
// test/e2e/ of kubernetes/ingress-nginx). The other cases_nginx_*_test.go
// files hold the annotation families; this one holds the provider's flags
// and the paths.
func init() {
	slicewayFlags = append(slicewayFlags,
		"--providers.kubernetesingressnginx=true",
		"--providers.kubernetesingressnginx.allowfqdnendpoints=true",
		"--providers.kubernetesingressnginx.allowloopbackendpoints=true",
		// The auth services of the cases run on loopback, as every backend
		// here does; auth-url refuses loopback unless listed.
		"--providers.kubernetesingressnginx.allowedauthhosts=127.0.0.1")
	register(
		// ingress-nginx's path types (docs: "Ingress Path Matching";
		// test/e2e/ingress/pathtype_prefix.go, pathtype_exact.go,
		// pathtype_mixed.go): Prefix /foo is /foo and what is under /foo/,
		// not /foobar; ImplementationSpecific is nginx's plain prefix;
		// Exact beats a Prefix of the same path; the longest path wins.
		Case{
			Name: "nginx-paths",
			Manifests: nginxClass + `
{{ service "prefix" "nginx-paths-prefix" }}
{{ service "impl" "nginx-paths-impl" }}
{{ service "exact" "nginx-paths-exact" }}
{{ service "root" "nginx-paths-root" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: paths
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: root, port: {name: http}}}}
      - {path: /foo, pathType: Prefix, backend: {service: {name: prefix, port: {name: http}}}}
      - {path: /foo, pathType: Exact, backend: {service: {name: exact, port: {name: http}}}}
      - {path: /bar, pathType: ImplementationSpecific, backend: {service: {name: impl, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/foo", Backend: "nginx-paths-exact", Path: "/foo"},
				{URL: "/foo/", Backend: "nginx-paths-prefix", Path: "/foo/"},
				{URL: "/foo/x/y", Backend: "nginx-paths-prefix", Path: "/foo/x/y"},
				{URL: "/foobar", Backend: "nginx-paths-root"},
				{URL: "/bar", Backend: "nginx-paths-impl"},
				{URL: "/barn", Backend: "nginx-paths-impl"},
				{URL: "/", Backend: "nginx-paths-root"},
				// No TLS on the host: no redirect, and https is not served.
				{URL: "/anything", Backend: "nginx-paths-root"},
			},
		},
		// use-regex (docs: "Use Regex"; test/e2e/annotations/rewrite.go,
		// "should use ~* location modifier if regex annotation is
		// present"): once one Ingress of a host has it, every path of the
		// host, of every Ingress, is a case-insensitive regular
		// expression anchored at the start, and the longest wins.
		Case{
			Name: "nginx-regex",
			Manifests: `
{{ service "regex" "nginx-regex-re" }}
{{ service "plain" "nginx-regex-plain" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: regex
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/use-regex: "true"
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: "/v[0-9]+/items", pathType: ImplementationSpecific, backend: {service: {name: regex, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: plain
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /Static, pathType: Exact, backend: {service: {name: plain, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/v2/items", Backend: "nginx-regex-re", Path: "/v2/items"},
				{URL: "/V10/ITEMS/more", Backend: "nginx-regex-re"},
				// The other Ingress's Exact path is a regex prefix too, and
				// case-insensitive.
				{URL: "/static", Backend: "nginx-regex-plain"},
				{URL: "/STATIC/file.css", Backend: "nginx-regex-plain"},
				{URL: "/v/items", Status: 404},
			},
		},
		// rewrite-target with capture groups (docs: "Rewrite";
		// test/e2e/annotations/rewrite.go): the path the backend sees is
		// the target with $1, $2 filled from the path's regex; the query
		// is kept.
		Case{
			Name: "nginx-rewrite",
			Manifests: `
{{ service "app" "nginx-rewrite-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: rewrite
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/rewrite-target: /$2
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: "/something(/|$)(.*)", pathType: ImplementationSpecific, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/something", Backend: "nginx-rewrite-app", Path: "/"},
				{URL: "/something/", Backend: "nginx-rewrite-app", Path: "/"},
				{URL: "/something/new?x=1", Backend: "nginx-rewrite-app", Path: "/new", Query: "x=1"},
				{URL: "/something/a/b", Backend: "nginx-rewrite-app", Path: "/a/b"},
				{URL: "/SOMETHING/new", Backend: "nginx-rewrite-app", Path: "/new"},
			},
		},
		// ssl-redirect (docs: "Server-side HTTPS enforcement through
		// redirect"; test/e2e/annotations/sslredirect.go): a host with TLS
		// redirects plain requests to https; ssl-redirect "false" keeps
		// them; force-ssl-redirect redirects a host without TLS too.
		Case{
			Name: "nginx-ssl-redirect",
			Manifests: `
{{ service "app" "nginx-ssl-app" }}
{{ tlsSecret "cert" "nginx-ssl-redirect.e2e.test" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: secure
  namespace: {{ .Namespace }}
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
  name: forced
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/force-ssl-redirect: "true"
spec:
  ingressClassName: nginx
  rules:
  - host: forced.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: kept
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/ssl-redirect: "false"
spec:
  ingressClassName: nginx
  tls:
  - hosts: [kept.{{ .Host }}]
    secretName: cert
  rules:
  - host: kept.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/path?q=1", Status: 301, Location: "https://nginx-ssl-redirect.e2e.test/path?q=1"},
				{URL: "https://nginx-ssl-redirect.e2e.test/path", Backend: "nginx-ssl-app", Path: "/path"},
				{URL: "http://forced.nginx-ssl-redirect.e2e.test/x", Status: 301, Location: "https://forced.nginx-ssl-redirect.e2e.test/x"},
				{URL: "http://kept.nginx-ssl-redirect.e2e.test/x", Backend: "nginx-ssl-app"},
				{URL: "https://kept.nginx-ssl-redirect.e2e.test/x", Backend: "nginx-ssl-app"},
			},
		},
	)
}

// nginxClass is the IngressClass of ingress-nginx's controller, which
// every nginx case names. It is cluster-wide, so one case (nginx-paths)
// holds it for all: all cases live in one cluster.
const nginxClass = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
---
`
