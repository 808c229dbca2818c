package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"

	to "github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// TestFullRenderReadsNeighboursAgain checks that a full render takes the
// part of an Ingress that did not change again only while the other
// Ingresses of its hosts are the ones it read: with ingress-nginx, a
// use-regex on one Ingress of a host makes every path of the host a
// regular expression, so its unchanged neighbour is translated again,
// and an Ingress of another host is taken as it was.
func TestFullRenderReadsNeighboursAgain(t *testing.T) {
	np := &NGINXProvider{}
	np.SetDefaults()
	np.WatchIngressWithoutClass = true
	require.NoError(t, np.Init())
	opts := &np.Provider

	var backends []any
	for i, name := range []string{"a", "b", "c"} {
		backends = append(backends, to.Backend("ns", name, "10.0.0."+string(rune('1'+i)))...)
	}
	a := to.NewIngress("ns", "a", to.WithCreated(1), to.WithPath("shared.example", "/a", "a", 80, ""))
	b := to.NewIngress("ns", "b", to.WithCreated(2), to.WithPath("shared.example", "/b", "b", 80, ""))
	c := to.NewIngress("ns", "c", to.WithCreated(3), to.WithPath("other.example", "/", "c", 80, ""))
	regex := a.DeepCopy()
	regex.Annotations = map[string]string{"nginx.ingress.kubernetes.io/use-regex": "true"}

	r := NewRenderer(opts)
	r.Render(to.NewSnapshot(append([]any{a, b, c}, backends...)...), nil)
	snap := to.NewSnapshot(append([]any{regex, b, c}, backends...)...)
	got, changed := r.Render(snap, nil)
	require.True(t, changed)
	require.True(t, equalResults(t, Translate(snap, opts), got), "a warm full render differs from a fresh one")
	st := r.Stats()
	require.Equal(t, 1, st.Reused, "only the Ingress of the other host is taken again")
	require.Equal(t, 3+2, st.Translated, "a (changed) and b (its neighbour changed)")

	// Nothing changed: every part is taken again, and the configuration
	// is the last one.
	again, changed := r.Render(snap, nil)
	require.False(t, changed)
	require.Equal(t, 1+3, r.Stats().Reused)
	require.True(t, equalResults(t, got, again))
}
