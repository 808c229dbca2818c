package translate

import (
	"strconv"
	"strings"

	netv1 "k8s.io/api/networking/v1"
)

// Key names a namespaced object: the key of Services, Secrets and
// Ingresses in every map of the provider, so that nothing is parsed back
// out of a "namespace/name" text.
type Key struct {
	Namespace, Name string
}

func (k Key) String() string { return k.Namespace + "/" + k.Name }

// ObjectKey names the object of a part: an HTTPRoute and a GRPCRoute of
// one name are two objects, whose parts the render state keeps apart.
type ObjectKey struct {
	Kind string
	Key
}

// IngressKey is the key of the Ingress namespace/name.
func IngressKey(namespace, name string) ObjectKey {
	return ObjectKey{Kind: KindIngress, Key: Key{Namespace: namespace, Name: name}}
}

// CompareKeys orders keys by namespace, then name.
func CompareKeys(a, b Key) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// PortKey names one port of a Service the way an Ingress backend refers
// to it: by name, or by number when no name is given. Two backends that
// name the same port differently get two load balancers (their service
// names in the configuration differ), as Traefik's provider does.
type PortKey struct {
	Service Key
	Port    netv1.ServiceBackendPort
}

// backendPort is the port key of an Ingress backend's Service in namespace.
func backendPort(namespace string, sb *netv1.IngressServiceBackend) PortKey {
	return PortKey{Service: Key{namespace, sb.Name}, Port: sb.Port}
}

// Text is the port as router and service names write it: its name, or
// its number.
func (k PortKey) Text() string {
	if k.Port.Name != "" {
		return k.Port.Name
	}
	return strconv.Itoa(int(k.Port.Number))
}

// ServiceName is the name of the port's load balancer in the configuration.
func (k PortKey) ServiceName() string {
	return serviceKey(k.Service.Namespace, k.Service.Name, k.Text())
}
