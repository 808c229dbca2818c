package ingress

import (
	"cmp"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/internal/clustergen"
)

// sequentialSnapshot hides ConcurrentReads: renders of it stay on one goroutine.
type sequentialSnapshot struct{ Snapshot }

// atLeastTwoCPUs lets the test run goroutines in parallel, until it ends.
func atLeastTwoCPUs(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		prev := runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
}

// parallelRender renders snap in full on several goroutines, however few
// Ingresses it has, and fails the test if it did not.
func parallelRender(t *testing.T, snap Snapshot, opts *Provider) *Result {
	t.Helper()
	atLeastTwoCPUs(t)
	r := NewRenderer(opts)
	r.e.parallelMin = 1
	res, _ := r.Render(snap, nil)
	if len(res.Ingresses) >= 2 {
		require.Equal(t, 1, r.e.parallelRenders, "the full render should have been parallel")
	}
	// The assembly met the parts in the order they were translated in and
	// named the router groups in the order it met them, and in key order
	// only when names crossed between groups: meeting the parts oldest
	// first (as an incremental render does), or naming the groups in key
	// order, must give the same.
	again := func() *Result {
		return &Result{Configuration: r.e.conf, Errors: r.e.sortErrors(slices.Clone(r.e.collectErrors())), Ingresses: res.Ingresses, NeedsNodes: res.NeedsNodes}
	}
	r.e.assembleAll(r.e.served)
	require.True(t, equalResults(t, res, again()), "meeting the parts oldest first gives another result")
	r.e.assemble(r.e.served, true)
	require.True(t, equalResults(t, res, again()), "naming the groups in key order gives another result")
	return res
}

// TestParallelFullRender checks that a full render on several goroutines
// gives what one goroutine gives, on every fixture (conflicts, default
// backends, TLS, broken objects) and on a generated cluster.
func TestParallelFullRender(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "manifests.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, manifests := range dirs {
		dir := filepath.Dir(manifests)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			opts, cs, _ := loadFixture(t, dir)
			client, _ := startClient(t, cs, ClientOptions{Namespaces: opts.Namespaces, LabelSelector: opts.LabelSelector, WatchNodes: true})
			want := Translate(sequentialSnapshot{client.Snapshot()}, opts)
			got := parallelRender(t, client.Snapshot(), opts)
			require.True(t, equalResults(t, want, got))
		})
	}
	t.Run("generated", func(t *testing.T) {
		cs := fake.NewClientset()
		for _, o := range clustergen.Cluster(700, 6) {
			require.NoError(t, cs.Tracker().Add(o))
		}
		client, _ := startClient(t, cs, ClientOptions{})
		opts := benchOptions()
		want := Translate(sequentialSnapshot{client.Snapshot()}, opts)
		require.Len(t, want.Configuration.HTTP.Routers, 700)
		// The default threshold: 700 Ingresses are enough.
		r := NewRenderer(opts)
		got, _ := r.Render(client.Snapshot(), nil)
		if runtime.GOMAXPROCS(0) > 1 {
			require.Equal(t, 1, r.e.parallelRenders)
		}
		require.True(t, equalResults(t, want, got))
		require.True(t, equalResults(t, want, parallelRender(t, client.Snapshot(), opts)))
	})
}

// panickySnapshot panics when the Service named panicOn is looked up.
type panickySnapshot struct {
	Snapshot
	panicOn string
}

func (panickySnapshot) ConcurrentReads() bool { return true }

func (s panickySnapshot) Service(namespace, name string) *corev1.Service {
	if name == s.panicOn {
		panic("lookup of " + name + " failed")
	}
	return s.Snapshot.Service(namespace, name)
}

// TestParallelFullRenderPanic checks that a panic on a translating
// goroutine reaches the caller, with what it was and where.
func TestParallelFullRenderPanic(t *testing.T) {
	atLeastTwoCPUs(t)
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(300, 2) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	client, _ := startClient(t, cs, ClientOptions{})
	r := NewRenderer(benchOptions())
	r.e.parallelMin = 1
	var got any
	func() {
		defer func() { got = recover() }()
		r.Render(panickySnapshot{Snapshot: client.Snapshot(), panicOn: clustergen.Name(150)}, nil)
	}()
	msg, _ := got.(string)
	require.Contains(t, msg, "lookup of "+clustergen.Name(150)+" failed")
	require.Contains(t, msg, "[translating Ingresses on another goroutine]")
	require.Contains(t, msg, "translateIngress", "the goroutine's stack")
	require.Equal(t, 1, r.e.parallelRenders)

	// The renderer renders again after it.
	res, _ := r.Render(client.Snapshot(), nil)
	require.Len(t, res.Configuration.HTTP.Routers, 300)
}

// TestSortHalves checks the two-goroutine sort of a full render's
// Ingresses against slices.SortFunc, on lengths that split evenly and not,
// with repeated values.
func TestSortHalves(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 10, 257, 1000} {
		in := make([]int, n)
		for i := range in {
			in[i] = rng.IntN(n/2 + 1)
		}
		got, want := slices.Clone(in), slices.Clone(in)
		sortHalves(got, cmp.Compare[int])
		slices.Sort(want)
		require.Equal(t, want, got, "n=%d", n)
	}
}
