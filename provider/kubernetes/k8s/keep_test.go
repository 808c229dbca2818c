package k8s

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// testKeep reads what the Traefik-style front end reads. The front ends
// declare their own (translate.Reads, nginx.Reads), which this package
// cannot import; the ingress package's tests check each against the
// filter and the transform.
var testKeep = Keep{
	IngressAnnotation: traefikAnnotation,
	ServiceAnnotation: traefikAnnotation,
	SecretData: func(_ *corev1.Secret, key string) bool {
		return key == corev1.TLSCertKey || key == corev1.TLSPrivateKeyKey
	},
}

func traefikAnnotation(key string) bool {
	return strings.HasPrefix(key, "traefik.ingress.kubernetes.io/")
}
