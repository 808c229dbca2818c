package ingress

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func TestTranslateTLSSecrets(t *testing.T) {
	crt, key := testobjects.SelfSignedPEM(t)
	secret := func(ns, name string, data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeTLS, Data: data}
	}
	snap := testobjects.NewSnapshot(append(testobjects.Backend("apps", "whoami", "10.0.0.1"),
		testobjects.NewIngress("apps", "a", testobjects.WithTLS("good", "missing"), testobjects.WithPath("a.example.com", "/", "whoami", 80, "")),
		testobjects.NewIngress("apps", "b", testobjects.WithTLS("bad", "good"), testobjects.WithPath("b.example.com", "/", "whoami", 80, "")),
		secret("apps", "good", map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}),
		secret("apps", "bad", map[string][]byte{corev1.TLSCertKey: key, corev1.TLSPrivateKeyKey: key}),
		secret("other", "missing", map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}),
	)...)
	res := translateOnce(t, snap, nil)

	assert.Contains(t, res.Configuration.HTTP.Routers, "apps-a-a-example-com", "a keeps its routes")
	assert.Contains(t, res.Configuration.HTTP.Routers, "apps-b-b-example-com", "b keeps its routes")
	require.NotNil(t, res.Configuration.TLS)
	require.Len(t, res.Configuration.TLS.Certificates, 1, "the shared good secret is loaded once")
	assert.Equal(t, string(crt), res.Configuration.TLS.Certificates[0].CertFile)
	assert.Equal(t, string(key), res.Configuration.TLS.Certificates[0].KeyFile)

	require.Len(t, res.Errors, 2)
	assert.Equal(t, "a", res.Errors[0].Name)
	assert.Equal(t, "spec.tls[1].secretName", res.Errors[0].Field)
	assert.Contains(t, res.Errors[0].Error(), "secret apps/missing not found")
	assert.Equal(t, "b", res.Errors[1].Name)
	assert.Equal(t, "spec.tls[0].secretName", res.Errors[1].Field)
	assert.Contains(t, res.Errors[1].Error(), "secret apps/bad")
	for _, e := range res.Errors {
		assert.NotContains(t, e.Error(), "PRIVATE KEY", "errors must not leak secret contents")
		assert.NotContains(t, e.Error(), string(key[40:80]), "errors must not leak secret contents")
	}
}

func sha256Hex(s string) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(s)))
}
