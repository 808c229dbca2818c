package ingress

import (
	"crypto/sha256"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

func TestTranslateTLSSecrets(t *testing.T) {
	crt, key := selfSignedPEM(t)
	secret := func(ns, name string, data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeTLS, Data: data}
	}
	snap := newMemSnapshot(append(backend("apps", "whoami", "10.0.0.1"),
		newIngress("apps", "a", withTLS("good", "missing"), withPath("a.example.com", "/", "whoami", 80, "")),
		newIngress("apps", "b", withTLS("bad", "good"), withPath("b.example.com", "/", "whoami", 80, "")),
		secret("apps", "good", map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}),
		secret("apps", "bad", map[string][]byte{corev1.TLSCertKey: key, corev1.TLSPrivateKeyKey: key}),
		secret("other", "missing", map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}),
	)...)
	res := translate(t, snap, nil)

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

func TestCertificate(t *testing.T) {
	crt, key := selfSignedPEM(t)
	_, otherKey := selfSignedPEM(t)
	garbageCrt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("not DER")})
	garbageKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("not DER")})
	ecKey := pemRetype(t, key, "EC PRIVATE KEY")
	rsaKey := pemRetype(t, key, "RSA PRIVATE KEY")
	chain := append(append([]byte("# a comment before the chain\n"), crt...), crt...)
	withParams := append(pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: []byte{6, 8, 42}}), ecKey...)

	tests := []struct {
		desc    string
		data    map[string][]byte
		wantErr string
	}{
		{desc: "certificate and PKCS#8 key", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}},
		{desc: "EC key", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: ecKey}},
		{desc: "RSA key type", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: rsaKey}},
		{desc: "chain with text before it", data: map[string][]byte{corev1.TLSCertKey: chain, corev1.TLSPrivateKeyKey: key}},
		{desc: "key after EC parameters", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: withParams}},
		{desc: "nil data", data: nil, wantErr: "tls.crt is missing or empty"},
		{desc: "no tls.crt", data: map[string][]byte{corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt is missing or empty"},
		{desc: "empty tls.crt", data: map[string][]byte{corev1.TLSCertKey: {}, corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt is missing or empty"},
		{desc: "no tls.key", data: map[string][]byte{corev1.TLSCertKey: crt}, wantErr: "tls.key is missing or empty"},
		{desc: "empty tls.key", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: {}}, wantErr: "tls.key is missing or empty"},
		{desc: "tls.crt is not PEM", data: map[string][]byte{corev1.TLSCertKey: []byte("hello"), corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt holds no PEM CERTIFICATE block"},
		{desc: "tls.crt is binary DER", data: map[string][]byte{corev1.TLSCertKey: pemBytes(t, crt), corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt holds no PEM CERTIFICATE block"},
		{desc: "tls.crt holds a key", data: map[string][]byte{corev1.TLSCertKey: key, corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt holds no PEM CERTIFICATE block"},
		{desc: "tls.key is not PEM", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: []byte("secret")}, wantErr: "tls.key holds no PEM PRIVATE KEY block"},
		{desc: "tls.key holds a certificate", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: crt}, wantErr: "tls.key holds no PEM PRIVATE KEY block"},
		{desc: "key of another certificate", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: otherKey}, wantErr: "tls.crt and tls.key are not a valid certificate and key"},
		{desc: "certificate block is not DER", data: map[string][]byte{corev1.TLSCertKey: garbageCrt, corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt and tls.key are not a valid certificate and key"},
		{desc: "key block is not DER", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: garbageKey}, wantErr: "tls.crt and tls.key are not a valid certificate and key"},
		{desc: "tls.key holds a public key", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: pemRetype(t, key, "PUBLIC KEY")}, wantErr: "tls.key holds no PEM PRIVATE KEY block"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s"}, Data: tc.data}
			got, err := certificate(secret)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Nil(t, got)
				assert.True(t, strings.HasPrefix(err.Error(), tc.wantErr), "error %q should start with %q", err, tc.wantErr)
				assert.NotContains(t, err.Error(), "PRIVATE KEY-----", "errors must not leak secret contents")
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got)
			assert.Equal(t, &dynamic.CertAndStores{Certificate: dynamic.Certificate{
				CertFile: string(tc.data[corev1.TLSCertKey]),
				KeyFile:  string(tc.data[corev1.TLSPrivateKeyKey]),
			}}, got)
		})
	}
}

// pemRetype re-encodes the first PEM block of data under another type.
func pemRetype(t *testing.T, data []byte, typ string) []byte {
	t.Helper()
	block, _ := pem.Decode(data)
	require.NotNil(t, block)
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: block.Bytes})
}

// pemBytes returns the DER bytes of the first PEM block of data.
func pemBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	block, _ := pem.Decode(data)
	require.NotNil(t, block)
	return block.Bytes
}
