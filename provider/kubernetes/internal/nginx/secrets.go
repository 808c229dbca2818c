package nginx

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// The annotations that name a Secret.
var secretAnnotations = []string{"auth-secret", "auth-tls-secret", "proxy-ssl-secret"}

// SecretKeys are the Secrets (namespace/name) the annotations of ing name:
// the Secret cache keeps the data of those alone (and of spec.tls's).
func SecretKeys(ing *netv1.Ingress) []string {
	if ing == nil {
		return nil
	}
	var keys []string
	for _, a := range secretAnnotations {
		v := strings.TrimSpace(ing.Annotations[AnnotationPrefix+a])
		if v == "" {
			continue
		}
		if !strings.Contains(v, "/") {
			v = ing.Namespace + "/" + v
		}
		keys = append(keys, v)
	}
	return keys
}

// Reads is what this dialect reads of objects beyond their specs: the
// Ingress annotations under AnnotationPrefix, the Service annotations of
// the load balancer builder it shares with the Traefik-style front end,
// and the Secret data of SecretData. The informer transform keeps this and
// the change filter compares this.
var Reads = k8s.Keep{
	IngressAnnotation: func(key string) bool { return strings.HasPrefix(key, AnnotationPrefix) },
	ServiceAnnotation: translate.ReadsServiceAnnotation,
	SecretData:        SecretData,
}

// SecretData says whether a data key of a referenced Secret is read: the
// certificate and key of a TLS or client certificate, the CA of a client
// or backend verification, an htpasswd file (auth), and every key of an
// Opaque Secret (an auth-map's users).
func SecretData(s *corev1.Secret, key string) bool {
	switch key {
	case corev1.TLSCertKey, corev1.TLSPrivateKeyKey, "ca.crt", "ca.crl", "auth":
		return true
	}
	return s.Type == corev1.SecretTypeOpaque || s.Type == ""
}
