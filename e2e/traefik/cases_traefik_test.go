package traefike2e

import "errors"

// Cases of the Traefik-style provider (providers.kubernetesIngress), on
// by default: an Ingress without a class is its.
func init() {
	register(
		Case{
			Name: "prefix",
			Manifests: `
{{ service "app" "prefix-app" }}
{{ service "api" "prefix-api" }}
{{ service "root" "prefix-root" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: paths
  namespace: {{ .Namespace }}
spec:
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /app, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
      - {path: /api, pathType: Prefix, backend: {service: {name: api, port: {number: 80}}}}
      - {path: /, pathType: Prefix, backend: {service: {name: root, port: {name: http}}}}
`,
			Requests: []Request{
				// The path, query and Host reach the backend as sent, with
				// Traefik's forwarding headers.
				{URL: "/app/x?q=1&r=2", Backend: "prefix-app", Path: "/app/x", Query: "q=1&r=2", RequestURI: "/app/x?q=1&r=2",
					UpstreamHost: "prefix.e2e.test",
					UpstreamHeaders: map[string]string{
						"X-Forwarded-Host": "prefix.e2e.test", "X-Forwarded-Proto": "http", "X-Forwarded-Port": "80"}},
				{URL: "/app", Backend: "prefix-app", Path: "/app"},
				{URL: "/api/v1/users", Backend: "prefix-api", Path: "/api/v1/users"},
				// Without strictPrefixMatching a Prefix is a prefix of the
				// path's text, as in Traefik's own provider.
				{URL: "/apiary", Backend: "prefix-api"},
				{URL: "/", Backend: "prefix-root"},
				{URL: "/elsewhere", Backend: "prefix-root", Path: "/elsewhere"},
				// Over https too: websecure terminates TLS for every router.
				{URL: "https://prefix.e2e.test/app/y", Backend: "prefix-app", Path: "/app/y",
					UpstreamHeaders: map[string]string{"X-Forwarded-Proto": "https"}},
				// A host no Ingress names is Traefik's 404.
				{URL: "http://nobody.e2e.test/app", Status: 404, NoHeaders: []string{echoBackendHeader}},
				// The backend's own status comes back as it is.
				{URL: "/app/status/503", Backend: "prefix-app", Status: 503},
			},
		},
		Case{
			Name: "exact",
			Manifests: `
{{ service "login" "exact-login" }}
{{ service "web" "exact-web" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: login
  namespace: {{ .Namespace }}
spec:
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
      - {path: /login, pathType: Exact, backend: {service: {name: login, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/login", Backend: "exact-login", Path: "/login"},
				{URL: "/login?next=/cart", Backend: "exact-login", Query: "next=/cart"},
				// Exact is the whole path: not with a slash more, nor a
				// longer name.
				{URL: "/login/", Backend: "exact-web", Path: "/login/"},
				{URL: "/login/step2", Backend: "exact-web"},
				{URL: "/loginx", Backend: "exact-web"},
				{URL: "/", Backend: "exact-web"},
			},
		},
		Case{
			Name: "tls",
			Manifests: `
{{ service "web" "tls-web" }}
{{ tlsSecret "tls-cert" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: secured
  namespace: {{ .Namespace }}
spec:
  tls:
  - hosts: [{{ .Host }}]
    secretName: tls-cert
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`,
			Requests: []Request{
				// SNI tls.e2e.test gets the Ingress's Secret, not Traefik's
				// default certificate.
				{URL: "https://tls.e2e.test/account", Backend: "tls-web", Path: "/account",
					CertSecret: "tls-cert", CertDNSNames: []string{"tls.e2e.test"},
					UpstreamHeaders: map[string]string{"X-Forwarded-Proto": "https"}},
				// spec.tls gives the certificate; as in Traefik's provider,
				// it does not take the host off plain HTTP.
				{URL: "/account", Backend: "tls-web"},
				// Another name gets Traefik's default certificate.
				{URL: "https://prefix.e2e.test/app", Backend: "prefix-app", NotCertSecret: "tls-cert"},
			},
		},
		Case{
			Name: "https-backend",
			Manifests: `
{{ httpsService "secure" "https-backend-a" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: to-https
  namespace: {{ .Namespace }}
spec:
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: secure, port: {name: https}}}}
`,
			Requests: []Request{
				// A Service port named https is reached over TLS.
				{URL: "/secret", Backend: "https-backend-a", Path: "/secret", Check: upstreamTLS},
			},
		},
		Case{
			Name: "endpoints-update",
			Manifests: `
{{ service "web" "endpoints-update-a" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: {{ .Namespace }}
spec:
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/", Backends: []string{"endpoints-update-a"}},
			},
			Updates: []Update{{
				// A second EndpointSlice for the Service: Traefik balances
				// over both.
				Manifests: `
{{ service "web" "endpoints-update-a" "endpoints-update-b" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: {{ .Namespace }}
spec:
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`,
				Requests: []Request{
					{URL: "/", Backends: []string{"endpoints-update-a", "endpoints-update-b"}},
				},
			}},
		},
	)
}

// upstreamTLS: the backend was reached over TLS.
func upstreamTLS(r *Response) error {
	if r.Echo == nil || !r.Echo.TLS {
		return errors.New("the backend was not reached over TLS")
	}
	return nil
}
