package traefike2e

import (
	"net/http"
	"os"
	"strings"
)

// The Ingress of `make demo-nginx` (fixtures/demo/nginx.yaml), moved into
// this case's namespace and host: the requests docs/getting-started.md
// shows for it get what it says through Traefik. Its IngressClass is left
// out: the nginx-paths case defines class nginx for every case.
func init() {
	data, err := os.ReadFile("../../fixtures/demo/nginx.yaml")
	if err != nil {
		panic("the demo-nginx Ingress: " + err.Error())
	}
	var docs []string
	for _, doc := range strings.Split(string(data), "\n---\n") {
		if !strings.Contains(doc, "\nkind: IngressClass\n") {
			docs = append(docs, doc)
		}
	}
	ingress := strings.NewReplacer("namespace: echo", "namespace: {{ .Namespace }}",
		"echo-nginx.demo.example", "{{ .Host }}").Replace(strings.Join(docs, "\n---\n"))
	if !strings.Contains(ingress, "{{ .Host }}") || !strings.Contains(ingress, "{{ .Namespace }}") {
		panic("fixtures/demo/nginx.yaml no longer has the host or namespace this case replaces")
	}
	register(Case{
		Name:      "nginx-demo",
		Manifests: "{{ service \"echo\" \"nginx-demo-echo\" }}\n---\n" + ingress,
		Requests: []Request{
			// rewrite-target /$2 of the path /api(/|$)(.*)
			{URL: "/api/cart", Backend: "nginx-demo-echo", Path: "/cart"},
			{URL: "/api", Backend: "nginx-demo-echo", Path: "/"},
			{URL: "/API/cart?item=1", Backend: "nginx-demo-echo", Path: "/cart", Query: "item=1"},
			// enable-cors: the preflight is answered by Traefik (200;
			// ingress-nginx says 204), the answers carry the headers.
			{Method: http.MethodOptions, URL: "/api/", Status: 200, NoHeaders: []string{echoBackendHeader},
				Header:  map[string]string{"Origin": "https://shop.example", "Access-Control-Request-Method": "POST"},
				Headers: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Credentials": "true"}},
			{URL: "/api/cart", Header: map[string]string{"Origin": "https://shop.example"}, Backend: "nginx-demo-echo",
				Headers: map[string]string{"Access-Control-Allow-Origin": "*"}},
			{URL: "/other", Status: 404},
		},
	})
}
