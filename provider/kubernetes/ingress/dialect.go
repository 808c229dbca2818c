package ingress

import (
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// dialect is a translation front end over the one engine (the informers,
// the load balancers, the render state and the assembly): which
// Ingresses a provider serves and what each becomes. The Traefik-style
// provider's is traefikDialect; the ingress-nginx one's is nginxDialect.
// A dialect is a comparable value (a pointer, or a struct of comparable
// fields): a full render compares the one settings returns with the last
// render's to know whether the last render's parts may be taken again.
type dialect interface {
	// name is the provider's name in its messages and logs.
	name() string
	// classes reads, from the IngressClasses of snap, which Ingresses are
	// served.
	classes(snap Snapshot) servedSet
	// translate builds into p (zero) the part of ing, a served Ingress;
	// pl is the client's Traefik-style plan of it, nil when there is none.
	translate(env *translate.IngressEnv, p *translate.Part, ing *netv1.Ingress, pl *translate.Plan)
	// hosts are the hosts of ing whose other Ingresses its part reads
	// through env.Hosts; a dialect whose parts read no other Ingress
	// returns nil for every Ingress.
	hosts(ing *netv1.Ingress) []string
	// defaults are the names of the default backend's router and service.
	defaults() defaultNames
	// keep is what the dialect reads of annotations and Secret data: the
	// informers' transform keeps it, the change filter compares it.
	keep() k8s.Keep
	// secretKeys are the Secrets (namespace/name) an Ingress names, whose
	// data the Secret cache keeps; nil for a nil Ingress.
	secretKeys(ing *netv1.Ingress) []string
	// settings reads what of snap every part depends on besides the
	// classes (ingress-nginx's controller ConfigMap): the dialect a full
	// render translates with (prev, the last render's, when nothing of
	// it changed) and the problems of those objects.
	settings(snap Snapshot, prev dialect) (dialect, []*ObjectError)
	// configMap is the ConfigMap the dialect reads (namespace and name),
	// which the client watches; "" when none.
	configMap() (namespace, name string)
	// settingsIngresses are the Ingresses the options add, which are no
	// objects of the cluster (settingsparts.go); the same pointers at
	// every call.
	settingsIngresses() []*netv1.Ingress
	// plansByClient says whether the client's index should plan each
	// Ingress as it arrives (translate.PlanIngress), which only the
	// Traefik-style dialect reads.
	plansByClient() bool
}

// servedSet says which Ingresses a provider serves.
type servedSet interface {
	Serves(ing *netv1.Ingress) bool
}

// defaultNames are the names of the default backend in the configuration.
type defaultNames struct {
	router, service string
}

// traefikDialect is the Traefik-style translation (package translate):
// the traefik.ingress.kubernetes.io annotations, classes of the
// traefik.io/ingress-controller controller.
type traefikDialect struct {
	ingressClass string
}

func (traefikDialect) name() string { return ProviderName }

func (d traefikDialect) classes(snap Snapshot) servedSet {
	return translate.ReadClasses(snap, d.ingressClass)
}

func (traefikDialect) translate(env *translate.IngressEnv, p *translate.Part, ing *netv1.Ingress, pl *translate.Plan) {
	env.Translate(p, ing, pl)
}

func (traefikDialect) hosts(*netv1.Ingress) []string { return nil }

func (traefikDialect) defaults() defaultNames {
	return defaultNames{router: DefaultRouterName, service: DefaultBackendName}
}

func (traefikDialect) plansByClient() bool { return true }

func (d traefikDialect) settings(Snapshot, dialect) (dialect, []*ObjectError) { return d, nil }

func (traefikDialect) settingsIngresses() []*netv1.Ingress { return nil }

func (traefikDialect) configMap() (string, string) { return "", "" }

func (traefikDialect) keep() k8s.Keep { return translate.Reads }

func (traefikDialect) secretKeys(ing *netv1.Ingress) []string { return tlsSecretKeys(ing) }

// Reads is what the provider's front end reads of objects beyond their
// specs (annotations, Secret data): its informers' transform keeps that
// (Reads().Transform) and its change filter compares that
// (Reads().EventHandler). An embedder that feeds its own informers trims
// their objects with it.
func (p *Provider) Reads() k8s.Keep { return dialectOf(p).keep() }

// dialectOf is the dialect of the provider's options: the Traefik-style
// one unless an ingress-nginx provider set its own.
func dialectOf(p *Provider) dialect {
	if p.dialect != nil {
		return p.dialect
	}
	return traefikDialect{ingressClass: p.IngressClass}
}
