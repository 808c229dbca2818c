package translate

import (
	"encoding/pem"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func TestCertificate(t *testing.T) {
	crt, key := testobjects.SelfSignedPEM(t)
	_, otherKey := testobjects.SelfSignedPEM(t)
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
