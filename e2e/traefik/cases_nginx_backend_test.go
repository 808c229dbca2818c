package traefike2e

import (
	"errors"
	"fmt"
)

// Cases of the ingress-nginx provider's backend annotations that say
// how the servers are reached (provider/kubernetes/internal/nginx:
// backendannotations.go, transport.go, backendservice.go,
// backendmiddlewares.go): protocol, backend TLS, the cluster IP, the
// Host. Timeouts, body size and error pages are in
// cases_nginx_backend_errors_test.go, affinity in
// cases_nginx_affinity_test.go.
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
		// proxy-ssl-secret and proxy-ssl-verify (test/e2e/annotations/
		// proxyssl.go, "should set valid proxy-ssl-secret, proxy-ssl-verify
		// to on ..."; its requests only reach plain echoes): with verify on,
		// an HTTPS backend whose certificate the Secret's ca.crt signs is
		// reached, one it does not sign is refused (host wrong.).
		// Difference: Traefik answers 500 to a failed verification (its
		// status for a proxy error that is neither a timeout nor a network
		// error), where nginx answers 502. verify off (nginx's default)
		// takes any certificate (host noverify.). verify on without a
		// Secret cannot be honoured and fails closed: its paths answer
		// 403 (host nosecret.).
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
				{URL: "http://nosecret.nginx-proxy-ssl.e2e.test/x", Status: 403, NoHeaders: []string{echoBackendHeader}},
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
	)
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
