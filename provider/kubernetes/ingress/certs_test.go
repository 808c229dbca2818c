package ingress

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func tlsSecret(name string, crt, key []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key},
	}
}

func TestCertMemoParsesEachPairOnce(t *testing.T) {
	crt, key := selfSignedPEM(t)
	var m certMemo
	a := tlsSecret("a", crt, key)
	cert, err := m.check(objectKey{"ns", "a"}, a)
	require.NoError(t, err)
	assert.Equal(t, string(crt), cert.CertFile)
	assert.Equal(t, string(key), cert.KeyFile)
	assert.Equal(t, 1, m.parsed)

	again, err := m.check(objectKey{"ns", "a"}, a)
	require.NoError(t, err)
	assert.Same(t, cert, again, "the same Secret: the same certificate, neither parsed nor copied")

	// The same content in another object (as after a relist, which decodes
	// every object again).
	decoded := tlsSecret("a", slices.Clone(crt), slices.Clone(key))
	again, err = m.check(objectKey{"ns", "a"}, decoded)
	require.NoError(t, err)
	assert.Same(t, cert, again, "equal content: the same certificate")

	// A copy of the pair under another name is not parsed again.
	b, err := m.check(objectKey{"ns", "b"}, tlsSecret("b", slices.Clone(crt), slices.Clone(key)))
	require.NoError(t, err)
	assert.Equal(t, cert.Certificate, b.Certificate)
	assert.Equal(t, 1, m.parsed)

	// A new content under the name is checked, and its problem reported;
	// going back to the first content needs no parsing.
	_, otherKey := selfSignedPEM(t)
	_, err = m.check(objectKey{"ns", "a"}, tlsSecret("a", crt, otherKey))
	require.ErrorContains(t, err, "not a valid certificate and key")
	assert.Equal(t, 2, m.parsed)
	_, err = m.check(objectKey{"ns", "a"}, tlsSecret("a", crt, otherKey))
	require.ErrorContains(t, err, "not a valid certificate and key", "a problem is remembered too")
	back, err := m.check(objectKey{"ns", "a"}, tlsSecret("a", crt, key))
	require.NoError(t, err)
	assert.Equal(t, cert.Certificate, back.Certificate)
	assert.Equal(t, 2, m.parsed)
}

// More Secrets than the generations of hashes hold (as at ten thousand
// TLS Ingresses) are still parsed once: a render that checks them all
// again finds each by its name.
func TestCertMemoKeepsEverySecretInUse(t *testing.T) {
	var m certMemo
	n := 3*maxMemo + 1
	secrets := make([]*corev1.Secret, n)
	for i := range secrets {
		// Pairs that fail their check are remembered like good ones, and
		// fail at once.
		secrets[i] = tlsSecret(fmt.Sprintf("s%d", i), fmt.Appendf(nil, "not a certificate %d", i), []byte("no key"))
	}
	for range 2 {
		for i, s := range secrets {
			_, err := m.check(objectKey{"ns", s.Name}, s)
			require.Error(t, err, i)
		}
		assert.Equal(t, n, m.parsed)
	}
}

func TestCertMemoForgetsSecretsNotInUse(t *testing.T) {
	var m certMemo
	inUse := map[objectKey][]*ingressPart{}
	for i := range 200 {
		id := objectKey{"ns", fmt.Sprintf("s%d", i)}
		_, _ = m.check(id, tlsSecret(id.name, []byte("x"), []byte("y")))
		if i < 100 {
			inUse[id] = nil
		}
	}
	m.prune(inUse)
	assert.Len(t, m.secrets, 200, "at most twice those in use: kept")
	for id := range inUse {
		if len(inUse) <= 60 {
			break
		}
		delete(inUse, id)
	}
	m.prune(inUse)
	assert.ElementsMatch(t, slices.Collect(maps.Keys(inUse)), slices.Collect(maps.Keys(m.secrets)))
}

// A full render of a Renderer that rendered before parses no certificate
// again (a change of this proxy's zone).
func TestFullRenderParsesNoCertificateAgain(t *testing.T) {
	crt, key := selfSignedPEM(t)
	objs := backend("ns", "web", "10.0.0.1")
	for i := range 20 {
		name := fmt.Sprintf("web-%d", i)
		objs = append(objs,
			newIngress("ns", name, withPath(name+".example.com", "/", "web", 80, ""), withTLS(name+"-tls")),
			tlsSecret(name+"-tls", slices.Clone(crt), slices.Clone(key)))
	}
	snap := newMemSnapshot(objs...)
	r := NewRenderer(benchOptions())
	first, _ := r.Render(snap, nil)
	require.Empty(t, first.Errors)
	require.Len(t, first.Configuration.TLS.Certificates, 20)
	assert.Equal(t, 1, r.certs.parsed, "twenty copies of one pair")
	second, _ := r.Render(snap, nil)
	assert.Equal(t, 1, r.certs.parsed)
	for i, c := range second.Configuration.TLS.Certificates {
		assert.Same(t, first.Configuration.TLS.Certificates[i], c)
	}
}

func TestGenerationsKeepWhatWasUsedLately(t *testing.T) {
	var g generations[int, string]
	for i := range 5 {
		g.put(i, fmt.Sprint(i), 2)
	}
	// Generations of two: {0, 1} went when {4} began; {2, 3} is the older.
	_, ok := g.get(0, 2)
	assert.False(t, ok)
	v, ok := g.get(2, 2)
	assert.True(t, ok)
	assert.Equal(t, "2", v)
	// Taking 2 made it current again: it outlives 3.
	g.put(5, "5", 2)
	_, ok = g.get(3, 2)
	assert.False(t, ok)
	_, ok = g.get(2, 2)
	assert.True(t, ok)
}
