package traefike2e

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Cookie affinity of the ingress-nginx provider
// (provider/kubernetes/internal/nginx/affinity.go).
func init() {
	register(affinityCase())
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
