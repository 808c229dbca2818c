package traefike2e

import (
	"errors"
	"fmt"
	"strings"
)

// Cases of the ingress-nginx provider's backend annotations whose
// answers are not the backend's own (provider/kubernetes/ingress/
// internal/nginx: transport.go, backendmiddlewares.go, backendservice.go):
// a slow server's 504, a large body's 413, the error pages and the
// default backend.
func init() {
	register(
		// proxy-read-timeout and proxy-connect-timeout (proxy.go, "should
		// set valid proxy timeouts", checks nginx.conf; grpc.go, "should
		// return Error when request exceed timeout"): a server slower than
		// proxy-read-timeout is cut, 504 as nginx answers; a faster one is
		// answered. Without the annotation the wait is nginx's 60s (host
		// default.). Difference: Traefik bounds the wait for the response's
		// headers only, nginx each read of it. The connect timeout cannot
		// be provoked on loopback (a closed port refuses at once): it is
		// set here, and the fixture backend-timeouts shows it.
		Case{
			Name: "nginx-proxy-timeouts",
			Manifests: `
{{ service "app" "nginx-timeouts-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: short
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/proxy-read-timeout: "1"
    nginx.ingress.kubernetes.io/proxy-connect-timeout: "2"
    nginx.ingress.kubernetes.io/proxy-send-timeout: "1"
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
  name: default
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: default.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/sleep/3000", Status: 504, NoHeaders: []string{echoBackendHeader}},
				{URL: "/sleep/10", Backend: "nginx-timeouts-app"},
				{URL: "http://default.nginx-proxy-timeouts.e2e.test/sleep/1500", Backend: "nginx-timeouts-app"},
			},
		},
		// proxy-body-size (proxy.go, "should set proxy client-max-body-size
		// to 8m" and "... to incorrect value"; docs "Custom max body
		// size"): a body over the limit is 413, as nginx answers, one under
		// it reaches the backend whole; "0" is no limit (host unlimited.);
		// a bad value is an error and the Ingress is served without it
		// (host bad.). Difference: Traefik's buffering reads the whole body
		// before sending it on, nginx streams it.
		Case{
			Name: "nginx-proxy-body-size",
			Manifests: `
{{ service "app" "nginx-body-size-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: limited
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/proxy-body-size: 1k
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
  name: unlimited
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/proxy-body-size: "0"
spec:
  ingressClassName: nginx
  rules:
  - host: unlimited.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: bad
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/proxy-body-size: 15r
spec:
  ingressClassName: nginx
  rules:
  - host: bad.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/upload", Method: "POST", Body: strings.Repeat("x", 1025), Status: 413, NoHeaders: []string{echoBackendHeader}},
				{URL: "/upload", Method: "POST", Body: strings.Repeat("x", 1024), Backend: "nginx-body-size-app", Check: echoBodyLength(1024)},
				{URL: "http://unlimited.nginx-proxy-body-size.e2e.test/upload", Method: "POST", Body: strings.Repeat("x", 32<<10),
					Backend: "nginx-body-size-app", Check: echoBodyLength(32 << 10)},
				{URL: "http://bad.nginx-proxy-body-size.e2e.test/upload", Method: "POST", Body: strings.Repeat("x", 4096),
					Backend: "nginx-body-size-app", Check: echoBodyLength(4096)},
			},
		},
		// default-backend (test/e2e/annotations/default_backend.go, "should
		// use a custom default backend as upstream"): a path whose Service
		// has no endpoint is sent to the annotation's Service, path as it
		// is. Difference: nginx sends it X-Code: 503 and the X-Ingress-Name,
		// X-Service-Name... headers; here it gets the client's request
		// alone.
		//
		// custom-http-errors (customhttperrors.go checks nginx.conf; docs
		// "Custom HTTP Errors"), host errors.: a listed status of the
		// backend is answered by the default backend, asked for "/" with
		// the client's headers and Host; a status not listed comes back as
		// the backend wrote it. Difference: Traefik's errors middleware
		// keeps the original status (503) with the default backend's body,
		// where nginx answers with the status the default backend gives
		// (an ingress-nginx error page backend echoes X-Code; this echo
		// would give 200), and sends none of nginx's X-Code headers.
		Case{
			Name: "nginx-default-backend",
			Manifests: `
{{ service "app" "nginx-default-backend-app" }}
{{ service "pages" "nginx-default-backend-pages" }}
---
apiVersion: v1
kind: Service
metadata:
  name: invalid
  namespace: {{ .Namespace }}
spec:
  ports:
  - {name: http, port: 80, protocol: TCP, targetPort: http}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: fallback
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/default-backend: pages
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: invalid, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: errors
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/default-backend: pages
    nginx.ingress.kubernetes.io/custom-http-errors: "404,503"
spec:
  ingressClassName: nginx
  rules:
  - host: errors.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/alma/armud", Header: map[string]string{"X-Request-ID": "something-unique"},
					Backend: "nginx-default-backend-pages", Path: "/alma/armud",
					UpstreamHeaders: map[string]string{"X-Request-ID": "something-unique"}, NoUpstreamHeaders: []string{"X-Code"}},

				{URL: "http://errors.nginx-default-backend.e2e.test/ok", Backend: "nginx-default-backend-app", Path: "/ok"},
				{URL: "http://errors.nginx-default-backend.e2e.test/app/status/503?q=1", Header: map[string]string{"Accept": "text/html"},
					Status: 503, Backend: "nginx-default-backend-pages", RequestURI: "/", UpstreamHost: "errors.nginx-default-backend.e2e.test",
					UpstreamHeaders: map[string]string{"Accept": "text/html"}, NoUpstreamHeaders: []string{"X-Code"}},
				{URL: "http://errors.nginx-default-backend.e2e.test/status/404", Status: 404, Backend: "nginx-default-backend-pages", Path: "/"},
				{URL: "http://errors.nginx-default-backend.e2e.test/status/500", Status: 500, Backend: "nginx-default-backend-app", Path: "/status/500"},
			},
		},
	)
}

// echoBodyLength checks that the backend received the whole body.
func echoBodyLength(n int) func(*Response) error {
	return func(res *Response) error {
		if res.Echo == nil {
			return errors.New("no echo answer")
		}
		if len(res.Echo.Body) != n {
			return fmt.Errorf("backend received %d bytes of body, want %d", len(res.Echo.Body), n)
		}
		return nil
	}
}
