package traefike2e

import (
	"errors"
	"net/http"
	"strings"
)

// Cases of the ingress-nginx provider's access annotations: source
// ranges, basic and external authentication, rate limits, CORS and
// client certificates. The client is always 127.0.0.1.
func init() {
	handlers[authServiceName] = authService
	register(nginxSourceRange, nginxBasicAuth, nginxAuthURL, nginxLimits, nginxCORS, nginxClientCert)
}

// allowlist-source-range, its old name whitelist-source-range, and
// denylist-source-range (docs: "Allowlist source range", "Denylist source
// range"; test/e2e/annotations/ipallowlist.go "should set valid ip
// allowlist range", ipdenylist.go "only deny explicitly denied IPs, allow
// all others" and "only allow explicitly allowed IPs, deny all others"):
// a client outside the allowed ranges, or inside a denied one, gets 403;
// a deny beats an allow. Those tests send their client's address in
// X-Forwarded-For with use-forwarded-headers on; here the client is
// 127.0.0.1 itself, and an X-Forwarded-For it sends changes nothing, as
// with ingress-nginx's default (use-forwarded-headers off).
var nginxSourceRange = Case{
	Name: "nginx-source-range",
	Manifests: `
{{ service "app" "nginx-source-range-app" }}
` + nginxIngress("allowed", "allowed.{{ .Host }}", "/", "app", "",
		"allowlist-source-range", "10.0.0.0/8, 127.0.0.1/32") +
		nginxIngress("elsewhere", "elsewhere.{{ .Host }}", "/", "app", "",
			"allowlist-source-range", "18.0.0.0/8, 56.0.0.0/8") +
		nginxIngress("old-name", "old-name.{{ .Host }}", "/", "app", "",
			"whitelist-source-range", "192.168.0.0/16") +
		// allowlist-source-range is read, whitelist-source-range ignored.
		nginxIngress("both-names", "both-names.{{ .Host }}", "/", "app", "",
			"allowlist-source-range", "127.0.0.0/8", "whitelist-source-range", "192.168.0.0/16") +
		nginxIngress("denied", "denied.{{ .Host }}", "/", "app", "",
			"denylist-source-range", "18.0.0.0/8, 127.0.0.1") +
		nginxIngress("not-denied", "not-denied.{{ .Host }}", "/", "app", "",
			"denylist-source-range", "18.0.0.0/8, 56.0.0.1") +
		nginxIngress("deny-in-allow", "deny-in-allow.{{ .Host }}", "/", "app", "",
			"denylist-source-range", "127.0.0.1/32, 56.0.0.0/8", "whitelist-source-range", "127.0.0.0/8, 55.0.0.0/8") +
		nginxIngress("allow-around-deny", "allow-around-deny.{{ .Host }}", "/", "app", "",
			"denylist-source-range", "127.1.0.0/16", "allowlist-source-range", "127.0.0.0/8"),
	Requests: []Request{
		{URL: "http://allowed.nginx-source-range.e2e.test/", Backend: "nginx-source-range-app"},
		{URL: "http://elsewhere.nginx-source-range.e2e.test/", Status: 403, NoHeaders: []string{echoBackendHeader}},
		{URL: "http://elsewhere.nginx-source-range.e2e.test/", Header: map[string]string{"X-Forwarded-For": "18.0.0.1"},
			Status: 403, NoHeaders: []string{echoBackendHeader}},
		{URL: "http://old-name.nginx-source-range.e2e.test/", Status: 403},
		{URL: "http://both-names.nginx-source-range.e2e.test/", Backend: "nginx-source-range-app"},
		{URL: "http://denied.nginx-source-range.e2e.test/", Status: 403, NoHeaders: []string{echoBackendHeader}},
		{URL: "http://not-denied.nginx-source-range.e2e.test/", Backend: "nginx-source-range-app"},
		{URL: "http://deny-in-allow.nginx-source-range.e2e.test/", Status: 403},
		{URL: "http://allow-around-deny.nginx-source-range.e2e.test/", Backend: "nginx-source-range-app"},
		// Over https too: the TLS router has the same middlewares.
		{URL: "https://denied.nginx-source-range.e2e.test/", Status: 403},
	},
}

// Basic authentication (docs: "Authentication"; test/e2e/annotations/
// auth.go): "should return status code 401 when authentication is
// configured but Authorization header is not configured", "... sent with
// invalid credentials", "should return status code 200 when
// authentication is configured and Authorization header is sent", "...
// with a map ...", "should return status code 401 and cors headers when
// authentication and cors is configured", "should return status code 503
// when authentication is configured with an invalid secret" and "... 401
// when authentication is configured with invalid content". Differences:
// a missing Secret, or one whose content Traefik cannot verify, closes
// the path (403 to everyone, where ingress-nginx answers 503 for the one
// and 401 for the other) and sliceway reports the Ingress; without
// auth-realm the realm is "traefik" (nginx's is empty).
var nginxBasicAuth = Case{
	Name: "nginx-basic-auth",
	Manifests: `
{{ service "app" "nginx-basic-auth-app" }}
---
apiVersion: v1
kind: Secret
metadata: {name: htpasswd, namespace: {{ .Namespace }}}
type: Opaque
data:
  auth: {{ base64 (printf "# staff\nalice:%s\nbob:%s\n" (bcrypt "alice-pw") (sha1Hash "bob-pw")) }}
---
apiVersion: v1
kind: Secret
metadata: {name: usermap, namespace: {{ .Namespace }}}
type: Opaque
data:
  carol: {{ base64 (bcrypt "carol-pw") }}
---
apiVersion: v1
kind: Secret
metadata: {name: no-password, namespace: {{ .Namespace }}}
type: Opaque
data:
  auth: {{ base64 "foo:" }}
` + nginxIngress("file", "{{ .Host }}", "/", "app", "",
		"auth-type", "basic", "auth-secret", "htpasswd", "auth-realm", "test auth", "enable-cors", "true") +
		nginxIngress("map", "map.{{ .Host }}", "/", "app", "",
			"auth-type", "basic", "auth-secret", "usermap", "auth-secret-type", "auth-map") +
		nginxIngress("missing", "missing.{{ .Host }}", "/", "app", "",
			"auth-type", "basic", "auth-secret", "nowhere") +
		nginxIngress("invalid", "invalid.{{ .Host }}", "/", "app", "",
			"auth-type", "basic", "auth-secret", "no-password"),
	Requests: []Request{
		{URL: "/", Status: 401, NoHeaders: []string{echoBackendHeader},
			Headers: map[string]string{"WWW-Authenticate": `Basic realm="test auth"`, "Access-Control-Allow-Origin": "*"}},
		{URL: "/", Header: basicAuth("alice", "wrong"), Status: 401, NoHeaders: []string{echoBackendHeader}},
		{URL: "/", Header: basicAuth("nobody", "alice-pw"), Status: 401},
		{URL: "/", Header: basicAuth("carol", "carol-pw"), Status: 401},
		// bcrypt and {SHA} hashes both verify; the backend gets the request.
		{URL: "/private?x=1", Header: basicAuth("alice", "alice-pw"), Backend: "nginx-basic-auth-app", Path: "/private", Query: "x=1"},
		{URL: "/", Header: basicAuth("bob", "bob-pw"), Backend: "nginx-basic-auth-app"},
		{URL: "https://nginx-basic-auth.e2e.test/", Status: 401},
		{URL: "https://nginx-basic-auth.e2e.test/", Header: basicAuth("alice", "alice-pw"), Backend: "nginx-basic-auth-app"},
		// auth-map: a key per user.
		{URL: "http://map.nginx-basic-auth.e2e.test/", Status: 401, Headers: map[string]string{"WWW-Authenticate": `Basic realm="traefik"`}},
		{URL: "http://map.nginx-basic-auth.e2e.test/", Header: basicAuth("carol", "carol-pw"), Backend: "nginx-basic-auth-app"},
		{URL: "http://map.nginx-basic-auth.e2e.test/", Header: basicAuth("alice", "alice-pw"), Status: 401},
		// Fail closed: no path is served.
		{URL: "http://missing.nginx-basic-auth.e2e.test/", Header: basicAuth("alice", "alice-pw"), Status: 403, NoHeaders: []string{echoBackendHeader}},
		{URL: "http://invalid.nginx-basic-auth.e2e.test/", Header: basicAuth("foo", ""), Status: 403, NoHeaders: []string{echoBackendHeader}},
	},
	Errors: []string{
		"auth-secret]: secret nginx-basic-auth/nowhere not found (its paths answer 403)",
		"auth-secret]: secret nginx-basic-auth/no-password: key auth: line 1: the password is not a hash Traefik verifies",
	},
}

// basicAuth is the Authorization header of user and password.
func basicAuth(user, password string) map[string]string {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.SetBasicAuth(user, password)
	return map[string]string{"Authorization": r.Header.Get("Authorization")}
}

// authServiceName is the external auth service of nginx-auth-url.
const authServiceName = "nginx-auth-url-auth"

// authService answers as an external auth service does: 200 when the
// request's X-Auth-Token is "let-me-in", with the user in X-Auth-User and
// the URI Traefik said the client asked for (X-Forwarded-Uri) in
// X-Auth-Request-Uri; 403 when it is "forbidden"; else 401 with a
// WWW-Authenticate challenge. Every answer names the service in
// X-Echo-Backend, so a request can tell it from the backend's.
func authService() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(echoBackendHeader, authServiceName)
		switch r.Header.Get("X-Auth-Token") {
		case "let-me-in":
			w.Header().Set("X-Auth-User", "alice")
			w.Header().Set("X-Auth-Request-Uri", r.Header.Get("X-Forwarded-Uri"))
			w.WriteHeader(http.StatusOK)
		case "forbidden":
			http.Error(w, "forbidden by the auth service", http.StatusForbidden)
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="e2e"`)
			http.Error(w, "no token", http.StatusUnauthorized)
		}
	})
}

// auth-url, auth-response-headers and auth-signin (docs: "External
// Authentication"; test/e2e/annotations/auth.go "when external
// authentication is configured": "should return status code 200 when
// signed in", "should redirect to signin url when not signed in", "should
// overwrite Foo header with auth response"; "with invalid auth-url
// should deny whole location"). The auth service's 401 and 403 reach the
// client as they are; the headers auth-response-headers names replace
// the client's (one the auth service does not send is removed).
// Differences: Traefik tells the auth service the request in
// X-Forwarded-Uri (nginx: X-Original-URL); the sign-in redirect is to
// auth-signin as given, where nginx adds ?rd=<the original URL>; an
// invalid auth-url closes the path (403, nginx's 503).
var nginxAuthURL = Case{
	Name: "nginx-auth-url",
	Manifests: `
{{ service "app" "nginx-auth-url-app" }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/auth-url: "{{ backendURL "nginx-auth-url-auth" }}/check"
    nginx.ingress.kubernetes.io/auth-response-headers: "X-Auth-User, Foo, X-Auth-Request-Uri"
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
  name: signin
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/auth-url: "{{ backendURL "nginx-auth-url-auth" }}/check"
    nginx.ingress.kubernetes.io/auth-signin: "https://login.nginx-auth-url.e2e.test/start"
spec:
  ingressClassName: nginx
  rules:
  - host: signin.{{ .Host }}
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
` + nginxIngress("invalid-url", "invalid-url.{{ .Host }}", "/denied-auth", "app", "",
		"auth-url", "https://invalid..auth.url"),
	Requests: []Request{
		{URL: "/", Status: 401, Backend: authServiceName, Headers: map[string]string{"WWW-Authenticate": `Bearer realm="e2e"`}},
		{URL: "/", Header: map[string]string{"X-Auth-Token": "forbidden"}, Status: 403, Backend: authServiceName},
		{URL: "/x?y=1", Header: map[string]string{"X-Auth-Token": "let-me-in", "Foo": "bar", "X-Auth-User": "mallory"},
			Backend: "nginx-auth-url-app", Path: "/x", Query: "y=1",
			UpstreamHeaders:   map[string]string{"X-Auth-User": "alice", "X-Auth-Request-Uri": "/x?y=1"},
			NoUpstreamHeaders: []string{"Foo"}},
		{URL: "https://nginx-auth-url.e2e.test/", Status: 401, Backend: authServiceName},
		{URL: "https://nginx-auth-url.e2e.test/", Header: map[string]string{"X-Auth-Token": "let-me-in"}, Backend: "nginx-auth-url-app"},
		{URL: "http://signin.nginx-auth-url.e2e.test/?a=b&c=d", Status: 302, Location: "https://login.nginx-auth-url.e2e.test/start"},
		{URL: "http://signin.nginx-auth-url.e2e.test/", Header: map[string]string{"X-Auth-Token": "let-me-in"}, Backend: "nginx-auth-url-app"},
		{URL: "http://invalid-url.nginx-auth-url.e2e.test/denied-auth", Status: 403, NoHeaders: []string{echoBackendHeader}},
	},
	Errors: []string{"auth-url]: \"https://invalid..auth.url\": must be an absolute http or https URL with a valid host"},
}

// limit-rps, limit-rpm, limit-burst-multiplier and limit-connections
// (docs: "Rate Limiting"; test/e2e/annotations/limitconnections.go
// "should limit-connections": 20 requests at once to a slow backend with
// limit-connections 8 get eight 200s and twelve 503s). The limits count
// the client's requests (by its address, whatever Host it names): a
// burst of requests at once gets the burst's worth (the rate times the
// multiplier, 5 by default) answered and the others refused; a client
// with limit-connections requests in flight gets the others refused.
// Difference: Traefik refuses with 429 Too Many Requests, ingress-nginx
// with 503 (its default limit-req-status-code and
// limit-conn-status-code).
var nginxLimits = Case{
	Name: "nginx-limits",
	Manifests: `
{{ service "app" "nginx-limits-app" }}
` + nginxIngress("rps", "rps.{{ .Host }}", "/", "app", "", "limit-rps", "1") +
		nginxIngress("rpm", "rpm.{{ .Host }}", "/", "app", "", "limit-rpm", "2", "limit-burst-multiplier", "2") +
		nginxIngress("connections", "connections.{{ .Host }}", "/", "app", "", "limit-connections", "2"),
	Requests: []Request{
		// 1 a second and a burst of 5: some of 30 at once get through.
		// How many depends on how fast they come (the bucket refills), so
		// only both outcomes are asserted.
		{URL: "http://rps.nginx-limits.e2e.test/", Burst: 30, Statuses: map[int]int{200: AtLeastOne, 429: AtLeastOne}},
		// 2 a minute and a burst of 4: a burst's 10 requests, all over
		// within burstTimeout (under a minute), get exactly 4 through.
		{URL: "http://rpm.nginx-limits.e2e.test/", Burst: 10, Statuses: map[int]int{200: 4, 429: 6}},
		// The backend holds the requests until the others are answered:
		// two in flight, the others refused, whatever the Host header's
		// form (the limit is the client's, not the host's).
		{URL: "http://connections.nginx-limits.e2e.test/hold", Burst: 6,
			BurstHosts: []string{"connections.nginx-limits.e2e.test", "connections.nginx-limits.e2e.test:80"},
			Statuses:   map[int]int{200: 2, 429: 4}},
		// Once they are answered, a request gets through again.
		{URL: "http://connections.nginx-limits.e2e.test/", Backend: "nginx-limits-app"},
	},
}

// enable-cors and the cors-* annotations (docs: "Enable CORS";
// test/e2e/annotations/cors.go: "should enable cors", "should not break
// functionality", "should allow origin for cors", "should allow - single
// origin for multiple cors values", "should not allow - single origin for
// multiple cors values", "should not allow - single origin with port and
// origin without port", "should allow - matching origin with wildcard
// origin (2 subdomains)", "should not allow - unmatching origin with
// wildcard origin (2 subdomains)", "should set cors methods to only allow
// POST, GET", "should set cors max-age", "should expose headers for
// cors", "should disable cors allow credentials"). Differences: Traefik
// answers a preflight itself with 200 (nginx: 204) and joins list values
// with "," (nginx: ", "); an origin list adds Vary: Origin. With the
// origin "*", Access-Control-Allow-Credentials: true comes with "*", on
// answers and preflights, as nginx sends it (browsers refuse it).
var nginxCORS = Case{
	Name: "nginx-cors",
	Manifests: `
{{ service "app" "nginx-cors-app" }}
` + nginxIngress("any", "{{ .Host }}", "/", "app", "", "enable-cors", "true") +
		nginxIngress("origins", "origins.{{ .Host }}", "/", "app", "",
			"enable-cors", "true",
			"cors-allow-origin", "https://origin.cors.com:8080, https://origin2.cors.com, http://*.origin.com",
			"cors-allow-methods", "POST, GET", "cors-max-age", "200",
			"cors-expose-headers", "X-CustomResponseHeader, X-CustomSecondHeader") +
		nginxIngress("no-credentials", "no-credentials.{{ .Host }}", "/", "app", "",
			"enable-cors", "true", "cors-allow-origin", "https://origin.cors.com", "cors-allow-credentials", "false"),
	Requests: []Request{
		{URL: "/", Backend: "nginx-cors-app", Headers: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Credentials": "true"}},
		{URL: "/", Header: map[string]string{"Origin": "https://anyone.example"}, Backend: "nginx-cors-app",
			Headers: map[string]string{"Access-Control-Allow-Origin": "*"}},
		{Method: http.MethodOptions, URL: "/", Status: 200, NoHeaders: []string{echoBackendHeader},
			Header: map[string]string{"Origin": "https://anyone.example", "Access-Control-Request-Method": "PUT"},
			Headers: map[string]string{
				"Access-Control-Allow-Origin":      "*",
				"Access-Control-Allow-Credentials": "true",
				"Access-Control-Allow-Methods":     "GET,PUT,POST,DELETE,PATCH,OPTIONS",
				"Access-Control-Allow-Headers":     "DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization",
				"Access-Control-Max-Age":           "1728000",
			}},
		// An OPTIONS that is no preflight goes to the backend.
		{Method: http.MethodOptions, URL: "/", Backend: "nginx-cors-app"},
		{URL: "http://origins.nginx-cors.e2e.test/", Header: map[string]string{"Origin": "https://origin.cors.com:8080"},
			Backend: "nginx-cors-app", Headers: map[string]string{
				"Access-Control-Allow-Origin":      "https://origin.cors.com:8080",
				"Access-Control-Allow-Credentials": "true",
				"Access-Control-Expose-Headers":    "X-CustomResponseHeader,X-CustomSecondHeader",
				"Vary":                             "Origin",
			}},
		{URL: "http://origins.nginx-cors.e2e.test/", Header: map[string]string{"Origin": "https://origin2.cors.com"},
			Headers: map[string]string{"Access-Control-Allow-Origin": "https://origin2.cors.com"}},
		{URL: "http://origins.nginx-cors.e2e.test/", Header: map[string]string{"Origin": "http://no.cors.com"},
			Backend: "nginx-cors-app", NoHeaders: []string{"Access-Control-Allow-Origin"}},
		{URL: "http://origins.nginx-cors.e2e.test/", Header: map[string]string{"Origin": "https://origin.cors.com"},
			NoHeaders: []string{"Access-Control-Allow-Origin"}},
		{URL: "http://origins.nginx-cors.e2e.test/", Header: map[string]string{"Origin": "http://bar-foo.origin.com"},
			Headers: map[string]string{"Access-Control-Allow-Origin": "http://bar-foo.origin.com"}},
		{URL: "http://origins.nginx-cors.e2e.test/", Header: map[string]string{"Origin": "http://bar.foo.origin.com"},
			NoHeaders: []string{"Access-Control-Allow-Origin"}},
		{Method: http.MethodOptions, URL: "http://origins.nginx-cors.e2e.test/", NoHeaders: []string{echoBackendHeader},
			Header: map[string]string{"Origin": "https://origin2.cors.com", "Access-Control-Request-Method": "POST"},
			Headers: map[string]string{
				"Access-Control-Allow-Origin":  "https://origin2.cors.com",
				"Access-Control-Allow-Methods": "POST,GET",
				"Access-Control-Max-Age":       "200",
			}},
		{URL: "http://no-credentials.nginx-cors.e2e.test/", Header: map[string]string{"Origin": "https://origin.cors.com"},
			Headers:   map[string]string{"Access-Control-Allow-Origin": "https://origin.cors.com"},
			NoHeaders: []string{"Access-Control-Allow-Credentials"}},
	},
}

// auth-tls-secret, auth-tls-verify-client and
// auth-tls-pass-certificate-to-upstream (docs: "Client Certificate
// Authentication"; test/e2e/annotations/authtls.go: "should set
// sslClientCertificate, sslVerifyClient and sslVerifyDepth with
// auth-tls-secret", "should set valid auth-tls-secret, sslVerify to off,
// and sslVerifyDepth to 2", "should pass URL-encoded certificate to
// upstream"). A client with a certificate the Secret's CA signed is
// served, on the host, its server-alias and by its canary; verify-client
// off asks for none. Differences: without a
// certificate, or with one of another CA, Traefik ends the TLS handshake
// (ingress-nginx answers 400); plain http is redirected to https (nginx
// serves it without a certificate); the certificate reaches the backend
// in X-Forwarded-Tls-Client-Cert (nginx: ssl-client-cert), and
// ssl-client-subject-dn, which Traefik cannot fill, is removed so that
// no client can send its own.
var nginxClientCert = Case{
	Name: "nginx-client-cert",
	Manifests: `
{{ service "app" "nginx-client-cert-app" }}
{{ service "canary" "nginx-client-cert-canary" }}
{{ tlsSecret "cert" "nginx-client-cert.e2e.test" "off.nginx-client-cert.e2e.test" }}
{{ clientCASecret "client-ca" }}
{{ clientCASecret "other-ca" }}
` + nginxIngress("verified", "{{ .Host }}", "/", "app", "cert",
		"auth-tls-secret", "nginx-client-cert/client-ca", "auth-tls-pass-certificate-to-upstream", "true",
		"server-alias", "alias.nginx-client-cert.e2e.test") +
		nginxIngress("canary", "{{ .Host }}", "/", "canary", "", "canary", "true", "canary-by-header", "CanaryByHeader") +
		nginxIngress("verify-off", "off.{{ .Host }}", "/", "app", "cert",
			"auth-tls-secret", "client-ca", "auth-tls-verify-client", "off", "auth-tls-verify-depth", "2"),
	Requests: []Request{
		{URL: "https://nginx-client-cert.e2e.test/", TLSAlert: "certificate required"},
		{URL: "https://nginx-client-cert.e2e.test/", ClientCert: "other-ca", TLSAlert: "unknown certificate authority"},
		{URL: "https://nginx-client-cert.e2e.test/account", ClientCert: "client-ca", Backend: "nginx-client-cert-app", Path: "/account",
			Header:            map[string]string{"ssl-client-subject-dn": "CN=forged"},
			UpstreamHeaders:   map[string]string{"ssl-client-verify": "SUCCESS"},
			NoUpstreamHeaders: []string{"ssl-client-subject-dn"},
			Check:             clientCertPassed},
		{URL: "/account?x=1", Status: 301, Location: "https://nginx-client-cert.e2e.test/account?x=1"},
		// The canary's routers ask for the host's certificates too.
		{URL: "https://nginx-client-cert.e2e.test/", Header: map[string]string{"CanaryByHeader": "always"}, TLSAlert: "certificate required"},
		{URL: "https://nginx-client-cert.e2e.test/", Header: map[string]string{"CanaryByHeader": "always"}, ClientCert: "client-ca",
			Backend: "nginx-client-cert-canary", UpstreamHeaders: map[string]string{"ssl-client-verify": "SUCCESS"}},
		{URL: "/", Header: map[string]string{"CanaryByHeader": "always"}, Status: 301, Location: "https://nginx-client-cert.e2e.test/"},
		// server-alias: the alias asks for the same certificates.
		{URL: "https://alias.nginx-client-cert.e2e.test/", TLSAlert: "certificate required"},
		{URL: "https://alias.nginx-client-cert.e2e.test/", ClientCert: "client-ca", Backend: "nginx-client-cert-app"},
		{URL: "http://alias.nginx-client-cert.e2e.test/x", Status: 301, Location: "https://alias.nginx-client-cert.e2e.test/x"},
		{URL: "https://off.nginx-client-cert.e2e.test/", Backend: "nginx-client-cert-app"},
		// A host with TLS is redirected to https (ssl-redirect's default).
		{URL: "http://off.nginx-client-cert.e2e.test/", Status: 301, Location: "https://off.nginx-client-cert.e2e.test/"},
	},
}

// clientCertPassed: the backend got the client's certificate from
// Traefik's passTLSClientCert.
func clientCertPassed(r *Response) error {
	if r.Echo == nil || !strings.Contains(r.Echo.Header.Get("X-Forwarded-Tls-Client-Cert"), "MII") {
		return errors.New("the backend got no X-Forwarded-Tls-Client-Cert with the client's certificate")
	}
	return nil
}
