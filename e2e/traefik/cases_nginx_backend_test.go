package traefike2e

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Cases of the ingress-nginx provider's backend annotations
// (provider/kubernetes/ingress/internal/nginx: backendannotations.go,
// transport.go, affinity.go, backendservice.go, backendmiddlewares.go):
// how the servers are reached, and what changes on the way to them.
func init() {
	register(
		// backend-protocol HTTPS (test/e2e/annotations/backendprotocol.go,
		// "should set backend protocol to https:// and use proxy_pass with
		// lowercase annotation"): the servers are reached over TLS, their
		// certificate not verified (nginx's proxy_ssl_verify is off by
		// default). Without the annotation ingress-nginx speaks plain HTTP
		// even to a port named https (host plain.), which the TLS server
		// answers with its 400.
		Case{
			Name: "nginx-backend-https",
			Manifests: `
{{ httpsService "secure" "nginx-backend-https-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: https
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/backend-protocol: https
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: secure, port: {name: https}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: plain
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: plain.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: secure, port: {name: https}}}}
`,
			Requests: []Request{
				{URL: "/x", Backend: "nginx-backend-https-app", Path: "/x", UpstreamHost: "nginx-backend-https.e2e.test", Check: echoTLS(true)},
				{URL: "http://plain.nginx-backend-https.e2e.test/x", Status: 400, NoHeaders: []string{echoBackendHeader}},
			},
		},
		// backend-protocol GRPC and GRPCS (backendprotocol.go, "should set
		// backend protocol to grpc:// and use grpc_pass"; grpc.go needs a
		// gRPC server): GRPC reaches the servers with HTTP/2 without TLS
		// (h2c), which the echo answers, so the proto it saw is the proof;
		// no gRPC call is made. GRPCS is HTTP/2 over TLS when the server
		// offers it by ALPN; the HTTPS echo offers HTTP/1.1 only, so the
		// proof is TLS.
		Case{
			Name: "nginx-backend-grpc",
			Manifests: `
{{ service "app" "nginx-backend-grpc-app" }}
{{ httpsService "secure" "nginx-backend-grpcs-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: grpc
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/backend-protocol: GRPC
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
  name: grpcs
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/backend-protocol: GRPCS
spec:
  ingressClassName: nginx
  rules:
  - host: grpcs.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: secure, port: {name: https}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: http
  namespace: {{ .Namespace }}
spec:
  ingressClassName: nginx
  rules:
  - host: http.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/pkg.Service/Method", Method: "POST", Body: "x", Backend: "nginx-backend-grpc-app", Path: "/pkg.Service/Method",
					Check: echoProto("HTTP/2.0", false)},
				{URL: "http://grpcs.nginx-backend-grpc.e2e.test/", Backend: "nginx-backend-grpcs-app", Check: echoTLS(true)},
				{URL: "http://http.nginx-backend-grpc.e2e.test/", Backend: "nginx-backend-grpc-app", Check: echoProto("HTTP/1.1", false)},
			},
		},
		// service-upstream (test/e2e/annotations/serviceupstream.go, "should
		// use the Service Cluster IP and Port"): the one server is the
		// Service's cluster IP and port, not its endpoints. The cluster IP
		// here is 127.0.0.1 and the port the one of an echo that no
		// EndpointSlice names (-vip), so which echo answers says which was
		// used; the Service's slice names another (-pod), which the
		// Ingress without the annotation reaches (host pods.). The cluster
		// IP is not checked against allowLoopbackEndpoints, as Traefik's
		// nativeLB does not check it: the API server allocates it from the
		// Service range, where a slice's address is whatever its writer
		// says.
		Case{
			Name: "nginx-service-upstream",
			Manifests: `
apiVersion: v1
kind: Service
metadata:
  name: app
  namespace: {{ .Namespace }}
spec:
  clusterIP: 127.0.0.1
  ports:
  - {name: http, port: {{ backendPort "nginx-upstream-vip" }}, protocol: TCP, targetPort: http}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: app-pod
  namespace: {{ .Namespace }}
  labels:
    kubernetes.io/service-name: app
addressType: FQDN
ports:
- {name: http, port: {{ backendPort "nginx-upstream-pod" }}, protocol: TCP}
endpoints:
- addresses: ["127.0.0.1"]
  conditions: {ready: true, serving: true, terminating: false}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: upstream
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/service-upstream: "true"
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
  name: pods
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/service-upstream: "false"
spec:
  ingressClassName: nginx
  rules:
  - host: pods.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/x", Backend: "nginx-upstream-vip", Path: "/x"},
				{URL: "http://pods.nginx-service-upstream.e2e.test/x", Backend: "nginx-upstream-pod"},
			},
		},
		// upstream-vhost (test/e2e/annotations/upstreamvhost.go, "set host
		// to upstreamvhost.bar.com"): the backend sees that Host; as in
		// nginx, X-Forwarded-Host keeps the client's.
		Case{
			Name: "nginx-upstream-vhost",
			Manifests: `
{{ service "app" "nginx-upstream-vhost-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: vhost
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/upstream-vhost: upstreamvhost.bar.test
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
			Requests: []Request{
				{URL: "/x", Backend: "nginx-upstream-vhost-app", Path: "/x", UpstreamHost: "upstreamvhost.bar.test",
					UpstreamHeaders: map[string]string{"X-Forwarded-Host": "nginx-upstream-vhost.e2e.test"}},
			},
		},
		affinityCase(),
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
		// proxy-ssl-secret and proxy-ssl-verify (test/e2e/annotations/
		// proxyssl.go, "should set valid proxy-ssl-secret, proxy-ssl-verify
		// to on ..."; its requests only reach plain echoes): with verify on,
		// an HTTPS backend whose certificate the Secret's ca.crt signs is
		// reached, one it does not sign is refused (host wrong.).
		// Difference: Traefik answers 500 to a failed verification (its
		// status for a proxy error that is neither a timeout nor a network
		// error), where nginx answers 502. verify off (nginx's default)
		// takes any certificate (host noverify.). verify on without a
		// Secret cannot be honoured and fails closed: the Ingress is not
		// served (host nosecret., 404).
		Case{
			Name: "nginx-proxy-ssl",
			Manifests: `
{{ httpsService "secure" "nginx-proxy-ssl-app" }}
{{ caSecret "ca" "nginx-proxy-ssl-app" }}
{{ caSecret "wrong-ca" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: verified
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/backend-protocol: HTTPS
    nginx.ingress.kubernetes.io/proxy-ssl-secret: {{ .Namespace }}/ca
    nginx.ingress.kubernetes.io/proxy-ssl-verify: "on"
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: secure, port: {name: https}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: wrong
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/backend-protocol: HTTPS
    nginx.ingress.kubernetes.io/proxy-ssl-secret: wrong-ca
    nginx.ingress.kubernetes.io/proxy-ssl-verify: "on"
spec:
  ingressClassName: nginx
  rules:
  - host: wrong.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: secure, port: {name: https}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: noverify
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/backend-protocol: HTTPS
    nginx.ingress.kubernetes.io/proxy-ssl-secret: wrong-ca
spec:
  ingressClassName: nginx
  rules:
  - host: noverify.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: secure, port: {name: https}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: nosecret
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/backend-protocol: HTTPS
    nginx.ingress.kubernetes.io/proxy-ssl-verify: "on"
spec:
  ingressClassName: nginx
  rules:
  - host: nosecret.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: secure, port: {name: https}}}}
`,
			Requests: []Request{
				{URL: "/x", Backend: "nginx-proxy-ssl-app", Path: "/x", Check: echoTLS(true)},
				{URL: "http://wrong.nginx-proxy-ssl.e2e.test/x", Status: 500, NoHeaders: []string{echoBackendHeader}},
				{URL: "http://noverify.nginx-proxy-ssl.e2e.test/x", Backend: "nginx-proxy-ssl-app", Check: echoTLS(true)},
				{URL: "http://nosecret.nginx-proxy-ssl.e2e.test/x", Status: 404, NoHeaders: []string{echoBackendHeader}},
			},
		},
	)
}

// affinityCase is cookie affinity (test/e2e/annotations/affinity.go):
// "should set sticky cookie SERVERID", "should set the path to
// /something on the generated cookie", "should set cookie with
// expires" (Max-Age from session-cookie-max-age), "should not set
// affinity across all server locations when using separate ingresses"
// (/foo of another Ingress gets no cookie), "should set secure in cookie
// with provided true annotation on http" (host secure.); and docs
// "Session Affinity": a client that sends the cookie back stays on its
// server among two. Differences: Traefik writes no Expires attribute
// (Max-Age only, which browsers prefer), and the cookie's value is
// Traefik's hash of the server, not nginx's.
func affinityCase() Case {
	relay := &cookieRelay{name: "SERVERID", header: map[string]string{}}
	stay := Request{URL: "/foo/bar", Header: relay.header, Check: relay.sameBackend}
	return Case{
		Name: "nginx-affinity",
		Manifests: `
{{ service "app" "nginx-affinity-a" "nginx-affinity-b" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: sticky
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/affinity: cookie
    nginx.ingress.kubernetes.io/session-cookie-name: SERVERID
    nginx.ingress.kubernetes.io/session-cookie-max-age: "259200"
    nginx.ingress.kubernetes.io/session-cookie-expires: "172800"
    nginx.ingress.kubernetes.io/session-cookie-samesite: Lax
spec:
  ingressClassName: nginx
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /foo/bar, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
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
      - {path: /foo, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: secure
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/affinity: cookie
    nginx.ingress.kubernetes.io/session-cookie-secure: "true"
    nginx.ingress.kubernetes.io/session-cookie-samesite: None
spec:
  ingressClassName: nginx
  rules:
  - host: secure.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`,
		Requests: []Request{
			// Without the cookie, both servers take requests.
			{URL: "/foo/bar", Backends: []string{"nginx-affinity-a", "nginx-affinity-b"},
				Check: wantCookie(stickyCookie{name: "SERVERID", path: "/foo/bar", maxAge: 259200, sameSite: http.SameSiteLaxMode})},
			{URL: "/foo", Backends: []string{"nginx-affinity-a", "nginx-affinity-b"}, NoHeaders: []string{"Set-Cookie"}},
			// With it, one server only.
			{URL: "/foo/bar", Check: relay.capture},
			stay, stay, stay, stay, stay,
			{URL: "http://secure.nginx-affinity.e2e.test/",
				Check: wantCookie(stickyCookie{name: "INGRESSCOOKIE", path: "/", secure: true, sameSite: http.SameSiteNoneMode})},
		},
	}
}

// cookieRelay sends the affinity cookie of one answer with the requests
// after it: capture keeps the cookie (in header, which those requests
// share) and the backend that answered; sameBackend checks that each
// later answer comes from it.
type cookieRelay struct {
	name    string
	header  map[string]string
	backend string
}

func (c *cookieRelay) capture(res *Response) error {
	i := slices.IndexFunc(res.Cookies, func(k *http.Cookie) bool { return k.Name == c.name })
	if i < 0 || res.Backend == "" {
		return fmt.Errorf("no cookie %s from an echo backend to send back", c.name)
	}
	c.header["Cookie"] = c.name + "=" + res.Cookies[i].Value
	c.backend = res.Backend
	return nil
}

func (c *cookieRelay) sameBackend(res *Response) error {
	if c.backend == "" {
		return errors.New("no cookie was captured before")
	}
	if res.Backend != c.backend {
		return fmt.Errorf("with cookie %s answered by %s, want %s, which set it", c.name, answeredBy(res), c.backend)
	}
	return nil
}

// stickyCookie is what an affinity cookie must say; it is always
// HttpOnly, as ingress-nginx writes it.
type stickyCookie struct {
	name, path string
	maxAge     int
	sameSite   http.SameSite
	secure     bool
}

func wantCookie(want stickyCookie) func(*Response) error {
	return func(res *Response) error {
		i := slices.IndexFunc(res.Cookies, func(k *http.Cookie) bool { return k.Name == want.name })
		if i < 0 {
			return fmt.Errorf("no cookie %s set (Set-Cookie: %q)", want.name, res.Header.Values("Set-Cookie"))
		}
		got := res.Cookies[i]
		var wrong []string
		if got.Value == "" {
			wrong = append(wrong, "an empty value")
		}
		if got.Path != want.path {
			wrong = append(wrong, fmt.Sprintf("Path %q, want %q", got.Path, want.path))
		}
		if got.MaxAge != want.maxAge {
			wrong = append(wrong, fmt.Sprintf("Max-Age %d, want %d", got.MaxAge, want.maxAge))
		}
		if got.SameSite != want.sameSite {
			wrong = append(wrong, fmt.Sprintf("SameSite %v, want %v", got.SameSite, want.sameSite))
		}
		if got.Secure != want.secure {
			wrong = append(wrong, fmt.Sprintf("Secure %v, want %v", got.Secure, want.secure))
		}
		if !got.HttpOnly {
			wrong = append(wrong, "not HttpOnly")
		}
		if len(wrong) > 0 {
			return fmt.Errorf("cookie %s (%s): %s", want.name, got.Raw, strings.Join(wrong, ", "))
		}
		return nil
	}
}

// echoTLS checks whether the backend was reached over TLS.
func echoTLS(want bool) func(*Response) error {
	return func(res *Response) error {
		if res.Echo == nil {
			return errors.New("no echo answer")
		}
		if res.Echo.TLS != want {
			return fmt.Errorf("backend reached with TLS %v, want %v", res.Echo.TLS, want)
		}
		return nil
	}
}

// echoProto checks the protocol the backend was reached with, and TLS.
func echoProto(proto string, tls bool) func(*Response) error {
	return func(res *Response) error {
		if err := echoTLS(tls)(res); err != nil {
			return err
		}
		if res.Echo.Proto != proto {
			return fmt.Errorf("backend reached with %s, want %s", res.Echo.Proto, proto)
		}
		return nil
	}
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
