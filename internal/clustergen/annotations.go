package clustergen

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Teams is how many middleware chains WithAnnotations spreads the
// Ingresses over.
const Teams = 20

// WithAnnotations gives the generated objects the annotations a Traefik
// user puts on them: every Ingress an entry point, TLS and the headers
// middleware of one of Teams teams (as charts and kustomizations leave
// them: the same few sets over and over), one Service in four sticky
// sessions. It changes objs in place and returns it.
func WithAnnotations(objs []runtime.Object) []runtime.Object {
	const prefix = "traefik.ingress.kubernetes.io/"
	services := 0
	ingresses := 0
	for _, o := range objs {
		switch o := o.(type) {
		case *netv1.Ingress:
			if o.Annotations == nil {
				o.Annotations = map[string]string{}
			}
			o.Annotations[prefix+"router.entrypoints"] = "websecure"
			o.Annotations[prefix+"router.tls"] = "true"
			o.Annotations[prefix+"router.middlewares"] = fmt.Sprintf("%s-team-%d-headers@kubernetescrd", o.Namespace, ingresses%Teams)
			ingresses++
		case *corev1.Service:
			if services%4 == 0 {
				if o.Annotations == nil {
					o.Annotations = map[string]string{}
				}
				o.Annotations[prefix+"service.sticky.cookie"] = "true"
				o.Annotations[prefix+"service.sticky.cookie.name"] = "affinity"
			}
			services++
		}
	}
	return objs
}
