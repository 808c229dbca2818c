package translate

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func TestCertMemoParsesEachPairOnce(t *testing.T) {
	crt, key := testobjects.SelfSignedPEM(t)
	var m certMemo
	a := testobjects.TLSSecret("ns", "a", crt, key)
	cert, err := m.check(Key{"ns", "a"}, a)
	require.NoError(t, err)
	assert.Equal(t, string(crt), cert.CertFile)
	assert.Equal(t, string(key), cert.KeyFile)
	assert.Equal(t, 1, m.parsed)

	again, err := m.check(Key{"ns", "a"}, a)
	require.NoError(t, err)
	assert.Same(t, cert, again, "the same Secret: the same certificate, neither parsed nor copied")

	// The same content in another object (as after a relist, which decodes
	// every object again).
	decoded := testobjects.TLSSecret("ns", "a", slices.Clone(crt), slices.Clone(key))
	again, err = m.check(Key{"ns", "a"}, decoded)
	require.NoError(t, err)
	assert.Same(t, cert, again, "equal content: the same certificate")

	// A copy of the pair under another name is not parsed again.
	b, err := m.check(Key{"ns", "b"}, testobjects.TLSSecret("ns", "b", slices.Clone(crt), slices.Clone(key)))
	require.NoError(t, err)
	assert.Equal(t, cert.Certificate, b.Certificate)
	assert.Equal(t, 1, m.parsed)

	// A new content under the name is checked, and its problem reported;
	// going back to the first content needs no parsing.
	_, otherKey := testobjects.SelfSignedPEM(t)
	_, err = m.check(Key{"ns", "a"}, testobjects.TLSSecret("ns", "a", crt, otherKey))
	require.ErrorContains(t, err, "not a valid certificate and key")
	assert.Equal(t, 2, m.parsed)
	_, err = m.check(Key{"ns", "a"}, testobjects.TLSSecret("ns", "a", crt, otherKey))
	require.ErrorContains(t, err, "not a valid certificate and key", "a problem is remembered too")
	back, err := m.check(Key{"ns", "a"}, testobjects.TLSSecret("ns", "a", crt, key))
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
		secrets[i] = testobjects.TLSSecret("ns", fmt.Sprintf("s%d", i), fmt.Appendf(nil, "not a certificate %d", i), []byte("no key"))
	}
	for range 2 {
		for i, s := range secrets {
			_, err := m.check(Key{"ns", s.Name}, s)
			require.Error(t, err, i)
		}
		assert.Equal(t, n, m.parsed)
	}
}

func TestCertMemoForgetsSecretsNotInUse(t *testing.T) {
	var m certMemo
	inUse := map[Key]bool{}
	for i := range 200 {
		id := Key{"ns", fmt.Sprintf("s%d", i)}
		_, _ = m.check(id, testobjects.TLSSecret("ns", id.Name, []byte("x"), []byte("y")))
		if i < 100 {
			inUse[id] = true
		}
	}
	m.prune(len(inUse), func(k Key) bool { return inUse[k] })
	assert.Len(t, m.secrets, 200, "at most twice those in use: kept")
	for id := range inUse {
		if len(inUse) <= 60 {
			break
		}
		delete(inUse, id)
	}
	m.prune(len(inUse), func(k Key) bool { return inUse[k] })
	assert.ElementsMatch(t, slices.Collect(maps.Keys(inUse)), slices.Collect(maps.Keys(m.secrets)))
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
