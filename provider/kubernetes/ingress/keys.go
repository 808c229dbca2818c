package ingress

import (
	"strconv"
	"strings"

	netv1 "k8s.io/api/networking/v1"
)

// objectKey names a namespaced object: the key of Services, Secrets and
// Ingresses in every map of the provider, so that nothing is parsed back
// out of a "namespace/name" text.
type objectKey struct {
	namespace, name string
}

func (k objectKey) String() string { return k.namespace + "/" + k.name }

// compareKeys orders keys by namespace, then name.
func compareKeys(a, b objectKey) int {
	if c := strings.Compare(a.namespace, b.namespace); c != 0 {
		return c
	}
	return strings.Compare(a.name, b.name)
}

// portKey names one port of a Service the way an Ingress backend refers
// to it: by name, or by number when no name is given. Two backends that
// name the same port differently get two load balancers (their service
// names in the configuration differ), as Traefik's provider does.
type portKey struct {
	svc  objectKey
	port netv1.ServiceBackendPort
}

// backendPort is the port key of an Ingress backend's Service in namespace.
func backendPort(namespace string, sb *netv1.IngressServiceBackend) portKey {
	return portKey{svc: objectKey{namespace, sb.Name}, port: sb.Port}
}

// text is the port as router and service names write it: its name, or
// its number.
func (k portKey) text() string {
	if k.port.Name != "" {
		return k.port.Name
	}
	return strconv.Itoa(int(k.port.Number))
}

// serviceName is the name of the port's load balancer in the configuration.
func (k portKey) serviceName() string {
	return serviceKey(k.svc.namespace, k.svc.name, k.text())
}
