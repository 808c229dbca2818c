package traefike2e

import "strings"

// A tenant of another namespace adds a path, without annotations, to a
// host whose Ingress asks for client certificates (sliceway's shared-host
// rules; no ingress-nginx test: there every Ingress of a host shares its
// server). The host keeps asking every client for a certificate the
// owner's CA signed, on the owner's paths and the tenant's alike: a
// client without one gets no answer from any path of the host. The
// tenant's namespace sorts after the owner's, so with no creation times
// the owner's Ingress is the older.
func init() {
	register(nginxTenantClientCert)
}

var nginxTenantClientCert = Case{
	Name: "nginx-tenant",
	Manifests: `
{{ service "app" "nginx-tenant-owner" }}
{{ serviceIn "nginx-tenant-other" "app" "nginx-tenant-other" }}
{{ tlsSecret "cert" }}
{{ clientCASecret "client-ca" }}
` + nginxIngress("owner", "{{ .Host }}", "/", "app", "cert", "auth-tls-secret", "nginx-tenant/client-ca") +
		strings.Replace(nginxIngress("squat", "{{ .Host }}", "/zz", "app", ""),
			"namespace: {{ .Namespace }}", "namespace: nginx-tenant-other", 1),
	Requests: []Request{
		{URL: "https://nginx-tenant.e2e.test/", TLSAlert: "certificate required"},
		{URL: "https://nginx-tenant.e2e.test/zz", TLSAlert: "certificate required"},
		{URL: "https://nginx-tenant.e2e.test/", ClientCert: "client-ca", Backend: "nginx-tenant-owner"},
		{URL: "https://nginx-tenant.e2e.test/zz", ClientCert: "client-ca", Backend: "nginx-tenant-other",
			UpstreamHeaders: map[string]string{"ssl-client-verify": "SUCCESS"}},
		{URL: "http://nginx-tenant.e2e.test/zz", Status: 301, Location: "https://nginx-tenant.e2e.test/zz"},
	},
}
