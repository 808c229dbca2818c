package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/internal/clustergen"
)

// panicSnapshot panics when the incremental render looks up an Ingress.
type panicSnapshot struct{ Snapshot }

func (panicSnapshot) Ingress(string, string) *netv1.Ingress { panic("lookup failed") }

// TestRenderRecoversIntoFull checks that a panic during an incremental
// render gives a full render of the same snapshot, counted in Stats.
func TestRenderRecoversIntoFull(t *testing.T) {
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(5, 4) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	client, _ := startClient(t, cs, ClientOptions{})

	opts := benchOptions()
	r := NewRenderer(opts)
	snap := panicSnapshot{client.Snapshot()}
	_, _ = r.Render(snap, nil)
	changes := &Changes{}
	changes.Record("Ingress", nil, clustergen.Service(1, 4)[1])
	res, changed := r.Render(snap, changes)
	require.False(t, changed)
	require.True(t, equalResults(t, Translate(client.Snapshot(), opts), res))
	st := r.Stats()
	require.Equal(t, 1, st.Recovered)
	require.Equal(t, "lookup failed", st.LastRecovered)
	require.Equal(t, 2, st.Full)
}
