package translate

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// AnnotationPrefix starts every annotation the Traefik-style front end
// reads, of Ingresses and of Services.
const AnnotationPrefix = "traefik.ingress.kubernetes.io/"

// Reads is what the Traefik-style front end reads of objects beyond their
// specs: the Ingress and Service annotations under AnnotationPrefix, and
// the certificate and key of TLS Secrets. The informer transform keeps
// this and the change filter compares this, so an update of anything else
// is neither cached nor rendered.
var Reads = k8s.Keep{
	IngressAnnotation: hasAnnotationPrefix,
	ServiceAnnotation: ReadsServiceAnnotation,
	SecretData: func(_ *corev1.Secret, key string) bool {
		return key == corev1.TLSCertKey || key == corev1.TLSPrivateKeyKey
	},
}

// ReadsServiceAnnotation says whether a Service annotation is read: the
// service.* annotations of the load balancer builder (LBEnv), which every
// front end shares.
func ReadsServiceAnnotation(key string) bool { return hasAnnotationPrefix(key) }

func hasAnnotationPrefix(key string) bool { return strings.HasPrefix(key, AnnotationPrefix) }
