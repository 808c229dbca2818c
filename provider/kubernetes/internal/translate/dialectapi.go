package translate

import (
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// What another dialect's translation (package nginx) builds with: the
// names, rules and checks of this package, so that both dialects name
// and match alike where they agree.

// RouterKey is the name of the router of one Ingress path.
func RouterKey(namespace, ingressName, host, path string) string {
	return routerKey(namespace, ingressName, host, path)
}

// HostRule matches the host of an Ingress rule; a wildcard host matches
// exactly one more label.
func HostRule(host string) string { return hostRule(host) }

// Matcher is name("value"), the value Go-quoted.
func Matcher(name, value string) string { return string(appendMatcher(nil, name, value)) }

// CheckHost refuses a host whose rule Traefik could not compile.
func CheckHost(host string) error { return checkHost(host) }

// BackendPort is the port key of an Ingress backend's Service in namespace.
func BackendPort(namespace string, sb *netv1.IngressServiceBackend) PortKey {
	return backendPort(namespace, sb)
}

// SetObservability names the Ingress and the backend of a router.
func SetObservability(rt *dynamic.Router, ing *netv1.Ingress, serviceName, port string) {
	setObservability(rt, &observabilityAlloc{}, ing, serviceName, port)
}
