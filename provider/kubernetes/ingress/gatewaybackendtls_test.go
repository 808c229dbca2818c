package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The cache keeps of a ConfigMap its name and ca.crt alone: other keys,
// labels and annotations never stay in memory.
func TestCACertificateOnly(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "ca", UID: "u", ResourceVersion: "7",
		Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"}},
		Data: map[string]string{"ca.crt": "PEM", "settings.json": "{}"}, BinaryData: map[string][]byte{"blob": {1}}}
	got, err := caCertificateOnly(cm)
	require.NoError(t, err)
	require.Equal(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "ca", UID: "u", ResourceVersion: "7"},
		Data: map[string]string{"ca.crt": "PEM"}}, got)
	other, err := caCertificateOnly(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "app"}, Data: map[string]string{"x": "y"}})
	require.NoError(t, err)
	require.Nil(t, other.(*corev1.ConfigMap).Data, "no ca.crt: no data")
}
