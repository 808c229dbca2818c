package traefike2e

import "strings"

// The controller's ConfigMap (ingress-nginx's --configmap; docs:
// "ConfigMaps", keys hsts-max-age and block-cidrs): one for all the
// ingress-nginx cases, in this case's namespace. Its HSTS header is on
// the answers over TLS of every Ingress, and its block-cidrs refuses a
// client whatever the Ingress says (403, as nginx's deny); an edit of
// the ConfigMap reaches Traefik without a restart. Only clients from
// 127.0.0.2 and 127.0.0.3 are ever blocked, which no other case uses.
func init() {
	slicewayFlags = append(slicewayFlags, "--providers.kubernetesingressnginx.configmap=nginx-configmap/controller")
	register(nginxConfigMap)
}

var nginxConfigMap = Case{
	Name:      "nginx-configmap",
	Manifests: controllerConfigMap("600", "127.0.0.2/32") + nginxConfigMapSite,
	Requests: []Request{
		{URL: "https://nginx-configmap.e2e.test/", Backend: "nginx-configmap-app",
			Headers: map[string]string{"Strict-Transport-Security": "max-age=600; includeSubDomains"}},
		{URL: "https://nginx-configmap.e2e.test/", From: "127.0.0.3", Backend: "nginx-configmap-app"},
		{URL: "https://nginx-configmap.e2e.test/", From: "127.0.0.2", Status: 403},
		// Plain requests get no HSTS header: browsers ignore it there.
		{URL: "/", Status: 301, NoHeaders: []string{"Strict-Transport-Security"}},
	},
	Updates: []Update{{
		// The converger waits for routers and services alone: the second
		// Ingress's router marks the configuration that carries the
		// ConfigMap's new values.
		Manifests: controllerConfigMap("1200", "127.0.0.3/32") + nginxConfigMapSite +
			nginxIngress("marker", "marker.{{ .Host }}", "/", "app", ""),
		Requests: []Request{
			{URL: "https://nginx-configmap.e2e.test/", Backend: "nginx-configmap-app",
				Headers: map[string]string{"Strict-Transport-Security": "max-age=1200; includeSubDomains"}},
			{URL: "https://nginx-configmap.e2e.test/", From: "127.0.0.2", Backend: "nginx-configmap-app"},
			{URL: "https://nginx-configmap.e2e.test/", From: "127.0.0.3", Status: 403},
		},
	}},
	Errors: []string{"data[worker-processes]: no effect"},
}

var nginxConfigMapSite = `
{{ service "app" "nginx-configmap-app" }}
{{ tlsSecret "cert" }}
` + nginxIngress("site", "{{ .Host }}", "/", "app", "cert")

// controllerConfigMap is the ConfigMap the provider's configMap flag
// names, with its HSTS max-age and block-cidrs; worker-processes has no
// effect, and says so.
func controllerConfigMap(maxAge, block string) string {
	return strings.NewReplacer("MAXAGE", maxAge, "BLOCK", block).Replace(`---
apiVersion: v1
kind: ConfigMap
metadata:
  name: controller
  namespace: {{ .Namespace }}
data:
  hsts-max-age: "MAXAGE"
  block-cidrs: BLOCK
  worker-processes: "4"
`)
}
