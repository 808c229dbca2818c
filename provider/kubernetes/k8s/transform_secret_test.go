package k8s

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTransformSecret(t *testing.T) {
	referenced := func(ns, name string) bool { return ns == "a" && name == "used" }
	secret := func(name string) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, Annotations: map[string]string{LastAppliedAnnotation: "{}"}},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{corev1.TLSCertKey: []byte("c"), corev1.TLSPrivateKeyKey: []byte("k"), "ca.crt": []byte("x")},
		}
	}

	out, err := testKeep.TransformSecret(referenced)(secret("used"))
	require.NoError(t, err)
	used := out.(*corev1.Secret)
	assert.False(t, DataDropped(used))
	assert.Equal(t, map[string][]byte{corev1.TLSCertKey: []byte("c"), corev1.TLSPrivateKeyKey: []byte("k")}, used.Data)
	assert.NotContains(t, used.Annotations, LastAppliedAnnotation)

	out, err = testKeep.TransformSecret(referenced)(secret("other"))
	require.NoError(t, err)
	other := out.(*corev1.Secret)
	assert.True(t, DataDropped(other))
	assert.Nil(t, other.Data)
	assert.Equal(t, corev1.SecretTypeTLS, other.Type, "the type is kept")

	// Other kinds pass through Transform unchanged by the Secret rule.
	cm := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}}
	out, err = testKeep.TransformSecret(referenced)(cm)
	require.NoError(t, err)
	assert.Same(t, cm, out)
	assert.False(t, DataDropped(nil))
}
