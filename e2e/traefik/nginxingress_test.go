package traefike2e

import (
	"fmt"
	"strconv"
	"strings"
)

// nginxIngress writes an Ingress of class nginx in the case's namespace
// for the annotation cases: one rule for host with one Prefix path to
// port http of service, spec.tls from tlsSecret unless it is "", and the
// annotations given as name, value pairs (names without the
// nginx.ingress.kubernetes.io/ prefix). host may be a template
// expression ({{ .Host }}). A document of its own, starting with "---".
func nginxIngress(name, host, path, service, tlsSecret string, annotations ...string) string {
	if len(annotations)%2 != 0 {
		panic("nginxIngress " + name + ": annotations come in name, value pairs")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\n  namespace: {{ .Namespace }}\n", name)
	if len(annotations) > 0 {
		b.WriteString("  annotations:\n")
		for i := 0; i < len(annotations); i += 2 {
			// strconv.Quote's escapes are those of a YAML double-quoted
			// scalar, and "{{" does not occur in the values.
			fmt.Fprintf(&b, "    nginx.ingress.kubernetes.io/%s: %s\n", annotations[i], strconv.Quote(annotations[i+1]))
		}
	}
	b.WriteString("spec:\n  ingressClassName: nginx\n")
	if tlsSecret != "" {
		fmt.Fprintf(&b, "  tls:\n  - hosts: [%s]\n    secretName: %s\n", host, tlsSecret)
	}
	fmt.Fprintf(&b, "  rules:\n  - host: %s\n    http:\n      paths:\n      - {path: %s, pathType: Prefix, backend: {service: {name: %s, port: {name: http}}}}\n",
		host, path, service)
	return b.String()
}

// repeat is n copies of r: the same answer, n times over.
func repeat(n int, r Request) []Request {
	out := make([]Request, n)
	for i := range out {
		out[i] = r
	}
	return out
}
