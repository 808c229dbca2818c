package traefike2e

import (
	"fmt"
	"strings"
)

// ssl-passthrough with --enable-ssl-passthrough (docs: "SSL
// Passthrough"; test/e2e/annotations/sslpassthrough.go): a TLS
// connection for the host reaches the HTTPS backend as it is, so the
// backend's own certificate is served, not the Secret of spec.tls, and
// the backend sees TLS itself; plain requests are served as the Ingress
// says (redirected to https, the host being in spec.tls).
func init() {
	slicewayFlags = append(slicewayFlags, "--providers.kubernetesingressnginx.enablesslpassthrough=true")
	register(nginxPassthrough)
}

var nginxPassthrough = Case{
	Name: "nginx-passthrough",
	Manifests: `
{{ httpsService "secure" "nginx-passthrough-tls" }}
{{ tlsSecret "cert" }}
` + strings.Replace(nginxIngress("vault", "{{ .Host }}", "/", "secure", "cert", "ssl-passthrough", "true"),
		"port: {name: http}", "port: {name: https}", 1),
	Requests: []Request{
		{URL: "https://nginx-passthrough.e2e.test/anything", Backend: "nginx-passthrough-tls", Path: "/anything",
			CertDNSNames: []string{"example.com"}, NotCertSecret: "cert", Check: backendSawTLS},
		{URL: "/x", Status: 301, Location: "https://nginx-passthrough.e2e.test/x"},
	},
}

// backendSawTLS checks that the echo backend ended the TLS itself.
func backendSawTLS(res *Response) error {
	if res.Echo == nil || !res.Echo.TLS {
		return fmt.Errorf("the backend did not see TLS: %s", res.Body)
	}
	return nil
}
