package k8s_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

func TestTransformSecret(t *testing.T) {
	crt, key := []byte("certificate"), []byte("private key")
	for _, tc := range []struct {
		name     string
		typ      corev1.SecretType
		data     map[string][]byte
		str      map[string]string
		wantData map[string][]byte
	}{
		{
			name:     "TLS secret with a CA and string data",
			typ:      corev1.SecretTypeTLS,
			data:     map[string][]byte{"tls.crt": crt, "tls.key": key, "ca.crt": []byte("ca")},
			str:      map[string]string{"password": "hunter2"},
			wantData: map[string][]byte{"tls.crt": crt, "tls.key": key},
		},
		{
			name:     "opaque secret holding a certificate",
			typ:      corev1.SecretTypeOpaque,
			data:     map[string][]byte{"tls.crt": crt, "tls.key": key, "password": []byte("hunter2")},
			wantData: map[string][]byte{"tls.crt": crt, "tls.key": key},
		},
		{
			name:     "only a certificate",
			typ:      corev1.SecretTypeOpaque,
			data:     map[string][]byte{"tls.crt": crt, "config.json": []byte("{}")},
			wantData: map[string][]byte{"tls.crt": crt},
		},
		{
			name: "nothing a certificate is read from",
			typ:  corev1.SecretTypeDockerConfigJson,
			data: map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)},
		},
		{
			name: "string data only",
			typ:  corev1.SecretTypeOpaque,
			str:  map[string]string{"tls.crt": "certificate"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &corev1.Secret{ObjectMeta: fatMeta("web-tls", "shop"), Type: tc.typ, Data: tc.data, StringData: tc.str}
			out := transformed(t, s).(*corev1.Secret)
			assert.Equal(t, tc.wantData, out.Data)
			assert.Nil(t, out.StringData)
			assert.Equal(t, tc.typ, out.Type, "the type is kept")
			assert.Equal(t, "web-tls", out.Name)
			assert.Nil(t, out.Labels)
			assert.Nil(t, out.Annotations)
		})
	}
}
