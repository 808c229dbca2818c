package testobjects

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/internal/pki"
)

// SelfSignedPEM returns a real self-signed certificate for example.com and
// its PKCS#8 key, valid from 1970 for a century: whatever the date a test
// runs at, or the clock it is given, the certificate is not what fails.
func SelfSignedPEM(t testing.TB) (crt, key []byte) {
	t.Helper()
	epoch := time.Unix(0, 0)
	cert, err := pki.SelfSigned(pki.Request{
		CommonName: "example.com",
		Hosts:      []string{"example.com"},
		Usage:      pki.ServerAuth,
		NotBefore:  epoch,
		NotAfter:   epoch.Add(100 * 365 * 24 * time.Hour),
	})
	require.NoError(t, err)
	return cert.CertPEM(), cert.KeyPEM()
}

// TLSSecret is a Secret of type kubernetes.io/tls with the certificate
// and key.
func TLSSecret(ns, name string, crt, key []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key},
	}
}
