package traefike2e

import "strings"

// spec.defaultBackend of an Ingress with rules is the fallback of its own
// hosts, as nginx's "/" location of the server that Ingress creates: what
// no path of the host matches reaches it, with the Ingress's
// annotations; another namespace's Ingress on the host, younger, has no
// say over the host's fallback (ingress-nginx keeps the first Ingress's
// server). A redirect answers without any upstream: nginx returns it
// before it looks for one (test/e2e/annotations/redirect.go deploys no
// backend for its redirect).
func init() {
	register(nginxHostFallback, nginxRedirectWithoutService)
}

var nginxHostFallback = Case{
	Name: "nginx-fallback",
	Manifests: `
{{ service "app" "nginx-fallback-app" }}
{{ service "pages" "nginx-fallback-pages" }}
{{ serviceIn "nginx-fallback-other" "grab" "nginx-fallback-grab" }}
` + withDefaultBackend(nginxIngress("site", "{{ .Host }}", "/api", "app", "", "upstream-vhost", "site.internal"), "pages") +
		strings.Replace(withDefaultBackend(nginxIngress("squat", "{{ .Host }}", "/zz", "grab", ""), "grab"),
			"namespace: {{ .Namespace }}", "namespace: nginx-fallback-other", 1),
	Requests: []Request{
		{URL: "/api/x", Backend: "nginx-fallback-app", UpstreamHost: "site.internal"},
		{URL: "/zz", Backend: "nginx-fallback-grab"},
		{URL: "/anything/else", Backend: "nginx-fallback-pages", Path: "/anything/else", UpstreamHost: "site.internal"},
		{URL: "/", Backend: "nginx-fallback-pages"},
	},
}

var nginxRedirectWithoutService = Case{
	Name:      "nginx-redirect-no-service",
	Manifests: nginxIngress("gone", "{{ .Host }}", "/", "missing", "", "permanent-redirect", "http://redirect.example.com/"),
	Requests: []Request{
		{URL: "/anything", Status: 301, Location: "http://redirect.example.com/"},
	},
}

// withDefaultBackend gives the Ingress nginxIngress wrote a
// spec.defaultBackend: port http of service.
func withDefaultBackend(ingress, service string) string {
	return strings.Replace(ingress, "spec:\n", "spec:\n  defaultBackend: {service: {name: "+service+", port: {name: http}}}\n", 1)
}
