package ingress

import (
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// dialect is a translation front end over the render engine
// (engine.Dialect), with what the informer client reads of it. The
// Traefik-style provider's is traefikDialect; the ingress-nginx one's is
// nginxDialect; the Gateway API one's is gatewayDialect.
type dialect interface {
	engine.Dialect
	// name is the provider's name in its messages and logs.
	name() string
	// keep is what the dialect reads of annotations and Secret data: the
	// informers' transform keeps it, the change filter compares it.
	keep() k8s.Keep
	// secretKeys are the Secrets (namespace/name) an Ingress names, whose
	// data the Secret cache keeps; nil for a nil Ingress.
	secretKeys(ing *netv1.Ingress) []string
	// configMap is the ConfigMap the dialect reads (namespace and name),
	// which the client watches; "" when none.
	configMap() (namespace, name string)
	// plansByClient says whether the client's index should plan each
	// Ingress as it arrives (translate.PlanIngress), which only the
	// Traefik-style dialect reads.
	plansByClient() bool
}

// traefikDialect is the Traefik-style translation (package translate):
// the traefik.ingress.kubernetes.io annotations, classes of the
// traefik.io/ingress-controller controller.
type traefikDialect struct {
	ingressClass string
}

func (traefikDialect) name() string { return ProviderName }

func (d traefikDialect) Classes(snap Snapshot) engine.ServedSet {
	return translate.ReadClasses(snap, d.ingressClass)
}

func (traefikDialect) Translate(env *translate.IngressEnv, p *translate.Part, ing *netv1.Ingress, pl *translate.Plan) {
	env.Translate(p, ing, pl)
}

func (traefikDialect) Hosts(*netv1.Ingress) []string { return nil }

func (traefikDialect) Defaults() engine.DefaultNames {
	return engine.DefaultNames{Router: DefaultRouterName, Service: DefaultBackendName}
}

func (traefikDialect) plansByClient() bool { return true }

func (d traefikDialect) Settings(Snapshot, engine.Dialect) (engine.Dialect, []*ObjectError) {
	return d, nil
}

func (traefikDialect) SettingsIngresses() []*netv1.Ingress { return nil }

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
