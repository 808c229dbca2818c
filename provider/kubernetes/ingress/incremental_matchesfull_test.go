package ingress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// TestIncrementalMatchesFull drives random changes through real informers
// and checks after each one that the incremental render equals a full
// translation of the same caches, byte for byte, errors included, and that
// it says "changed" exactly when the configuration changed. One render in
// five is a full one, which takes again the parts nothing reached.
//
// SLICEWAY_INCREMENTAL_SEEDS=N runs N seeds instead of 3, for a longer hunt.
func TestIncrementalMatchesFull(t *testing.T) {
	crt, key := testobjects.SelfSignedPEM(t)
	seeds := uint64(3)
	if n, err := strconv.Atoi(os.Getenv("SLICEWAY_INCREMENTAL_SEEDS")); err == nil && n > 0 {
		seeds = uint64(n)
	}
	for _, variant := range []struct {
		name         string
		nodes, nginx bool
	}{{"objects", false, false}, {"nodes-and-topology", true, false}, {"ingress-nginx", false, true}} {
		for seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", variant.name, seed), func(t *testing.T) {
				runIncremental(t, seed, variant.nodes, variant.nginx, crt, key)
			})
		}
	}
}

// checkChangedSays fails the test unless changed, what a render of step
// (what changed) said, tells whether its configuration differs from
// prev's.
func checkChangedSays(t *testing.T, step int, what string, prev, got *Result, changed bool) {
	t.Helper()
	if same := reflect.DeepEqual(prev.Configuration, got.Configuration); same == changed {
		t.Fatalf("step %d (%s): changed=%t, but the configurations are equal=%t", step, what, changed, same)
	}
}

// runIncremental is one run of TestIncrementalMatchesFull; nginx runs
// the ingress-nginx provider, whose Ingresses change their
// nginx.ingress.kubernetes.io annotations too.
func runIncremental(t *testing.T, seed uint64, nodes, nginx bool, crt, key []byte) {
	const services = 30
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(services, 6) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	var events atomic.Int64
	changes := &Changes{}
	opts := benchOptions()
	if nginx {
		np := &NGINXProvider{}
		np.SetDefaults()
		np.WatchIngressWithoutClass = true // the generated Ingresses name no class
		np.EnableSSLPassthrough = true
		// The controller's default backend: one of the churned Services,
		// a settings part (engine/settingsparts.go) beside the Ingresses' parts.
		np.DefaultBackendService = "bench/svc-00002"
		require.NoError(t, np.Init())
		opts = &np.Provider
	}
	if nodes {
		// The zone comes from this proxy's Node, so Node changes matter.
		opts.Topology = &Topology{Node: "node-1"}
	}
	client, ctx := startClient(t, cs, ClientOptions{
		OnChange:   changes.Record,
		Notify:     func(string, bool) { events.Add(1) },
		WatchNodes: nodes,
		Provider:   opts, // as Provide does: the index chooses servers
	})

	r := NewRenderer(opts)
	c := &churn{t: t, rnd: rand.New(rand.NewPCG(seed, 7)), cs: cs, events: &events, ctx: ctx, client: client,
		crt: crt, key: key, nsvc: services, created: time.Unix(1_700_000_000, 0), nodes: nodes, nginx: nginx}
	c.want = events.Load()
	prev, _ := r.Render(client.Snapshot(), changes)
	// What serve and watch do with the configurations: the encoder takes the
	// text of every router and service whose pointer it saw before, which
	// is right only if the renderer never modifies them once sent.
	var enc dynamic.JSONEncoder
	var yenc dynamic.YAMLEncoder
	for step := range 400 {
		what := c.step()
		c.wait()
		checkIndex(t, client)
		if step%5 == 4 {
			// A full render now and then, which takes the parts of the
			// Ingresses the changes since the last did not reach (engine/reuse.go).
			changes.All()
		}
		got, changed := r.Render(client.Snapshot(), changes)
		checkParts(t, r, what)
		// The reference is a full render, through both kinds of snapshot.
		want := referenceRender(t, client.Snapshot(), opts)
		if !equalResults(t, want, got) {
			t.Fatalf("step %d (%s): the incremental render differs from a full one", step, what)
		}
		text, err := enc.Encode(got.Configuration)
		require.NoError(t, err)
		var wantText bytes.Buffer
		wenc := json.NewEncoder(&wantText)
		wenc.SetEscapeHTML(false)
		require.NoError(t, wenc.Encode(want.Configuration))
		if !bytes.Equal(wantText.Bytes(), text) {
			t.Fatalf("step %d (%s): the encoder's text differs from a full encoding:\n%s\n%s", step, what, wantText.Bytes(), text)
		}
		yamlText, err := yenc.Encode(got.Configuration)
		require.NoError(t, err)
		wantYAML, err := dynamic.MarshalYAML(want.Configuration)
		require.NoError(t, err)
		if !bytes.Equal(wantYAML, yamlText) {
			t.Fatalf("step %d (%s): the YAML encoder's text differs from MarshalYAML's:\n%s\n%s", step, what, wantYAML, yamlText)
		}
		checkChangedSays(t, step, what, prev, got, changed)
		prev = got
	}
	st := r.Stats()
	t.Logf("renders: %+v", st)
	require.Greater(t, st.Incremental, 250, "most renders should be incremental")
	require.Greater(t, st.Reused, 70*services/2, "full renders should take most parts of the render before")
}
