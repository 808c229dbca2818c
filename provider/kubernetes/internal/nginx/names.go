package nginx

import (
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// NamePrefix starts every name this dialect gives a router, service,
// middleware, servers transport or TLS option. The Traefik-style
// dialect's names are runs of letters and digits joined by dashes
// (translate.Normalize), so the underscore keeps the two providers' names
// apart when one Traefik reads both; and that dialect's annotations refuse
// to name anything with this prefix (translate.NGINXNamePrefix, the same
// constant), so that no Traefik-style Ingress can use another namespace's
// nginx middleware, TLS option or transport.
const NamePrefix = translate.NGINXNamePrefix

// Names of the default backend (spec.defaultBackend of the oldest
// Ingress that has a usable one).
const (
	DefaultRouterName  = NamePrefix + "default-router"
	DefaultBackendName = NamePrefix + "default-backend"
)

// serviceName is the name of a Service port's load balancer.
func serviceName(key translate.PortKey) string { return NamePrefix + key.ServiceName() }

// ingressName is the name of something the Ingress being translated
// defines for all its paths (a CORS policy, an allow list), suffix saying
// what: NamePrefix, the Ingress's namespace and name, "_", suffix.
func (t *translation) ingressName(suffix string) string { return t.namePrefix() + suffix }

// namePrefix is what ingressName puts before its suffix, made once per
// Ingress.
func (t *translation) namePrefix() string {
	if t.ingressPrefix == "" {
		t.ingressPrefix = NamePrefix + translate.Normalize(t.ing.Namespace+"-"+t.ing.Name) + "_"
	}
	return t.ingressPrefix
}

// controllerName is the name of something the controller's ConfigMap
// defines for every Ingress (its HSTS header, its global
// authentication), suffix saying what. No Ingress's name has this form:
// theirs hold a dash between namespace and name.
func controllerName(suffix string) string { return NamePrefix + "configmap_" + suffix }
