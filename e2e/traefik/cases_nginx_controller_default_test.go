package traefike2e

import "net/http"

// The controller's default backend (defaultBackendService, ingress-nginx's
// --default-backend-service; docs: "Default backend", "Custom errors"):
// every request no router matches, of any host, reaches it, and it
// answers the status codes custom-http-errors lists for an Ingress
// without a default-backend annotation. Its Service here answers as
// ingress-nginx's stock default backend does, 404 to everything, so that
// the other cases' requests that match nothing still get a 404.
func init() {
	handlers[controllerDefaultBackend] = func() http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("X-Default-Backend", "controller")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("default backend - 404\n"))
		})
	}
	slicewayFlags = append(slicewayFlags, "--providers.kubernetesingressnginx.defaultbackendservice=nginx-controller-default/pages")
	register(Case{
		Name: "nginx-controller-default",
		Manifests: `
{{ service "pages" "` + controllerDefaultBackend + `" }}
{{ service "app" "nginx-controller-default-app" }}
` + nginxIngress("app", "{{ .Host }}", "/", "app", "", "custom-http-errors", "503"),
		Requests: []Request{
			{URL: "/ok", Backend: "nginx-controller-default-app", Path: "/ok"},
			{URL: "/status/500", Backend: "nginx-controller-default-app", Status: 500},
			// The listed code: the default backend's page, the error's status.
			{URL: "/status/503", Status: 503, Headers: map[string]string{"X-Default-Backend": "controller"}, NoHeaders: []string{echoBackendHeader}},
			// A host no Ingress has.
			{URL: "http://nobody-here.e2e.test/x", Status: 404, Headers: map[string]string{"X-Default-Backend": "controller"}},
		},
	})
}

const controllerDefaultBackend = "nginx-controller-default-pages"
