package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/integration/controlplane"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// The cluster of the benchmarks (internal/clustergen: S Services, each with
// one Ingress and 20 endpoints over two or three EndpointSlices), loaded
// into a real API server. The benchmarks of the main module read it
// through client-go's fake clientset; here the provider lists and watches
// it through kube-apiserver, as the ServiceAccount of the shipped RBAC
// manifest, the way a Deployment starts on a cluster of that size.

// scaleSizes reads SLICEWAY_SCALE_SERVICES (comma-separated sizes), or
// gives def.
func scaleSizes(tb testing.TB, def ...int) []int {
	v := os.Getenv("SLICEWAY_SCALE_SERVICES")
	if v == "" {
		return def
	}
	var sizes []int
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			tb.Fatalf("SLICEWAY_SCALE_SERVICES=%q: %q is not a number of Services", v, f)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// generatedCluster writes the generated cluster of the given size with the
// main module's generator command and reads it back as the render command
// does.
func generatedCluster(tb testing.TB, services int) []manifests.Object {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), fmt.Sprintf("cluster-%d.yaml", services))
	out, err := os.Create(path)
	require.NoError(tb, err)
	cmd := exec.Command("go", "run", "./internal/clustergen/cmd", "-services", strconv.Itoa(services))
	cmd.Dir = ".." // the main module
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	require.NoError(tb, cmd.Run(), "clustergen: %s", stderr.String())
	require.NoError(tb, out.Close())
	objs, problems := manifests.Read([]string{path}, manifests.IsUsedKind)
	require.Empty(tb, problems)
	return objs
}

// scaleCluster is a control plane with the RBAC manifest, loaded with the
// generated cluster and grown from one size to the next: the cluster of n
// Services is the cluster of fewer plus the Services after them.
type scaleCluster struct {
	cp      *controlplane.ControlPlane
	client  kubernetes.Interface
	created map[string]bool // kind/namespace/name
}

func newScaleCluster(tb testing.TB) *scaleCluster {
	tb.Helper()
	cp := startControlPlane(tb)
	applyFile(tb, cp, rbacManifest)
	cfg := cp.AdminConfig()
	cfg.QPS, cfg.Burst = 5000, 5000
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(tb, err)
	return &scaleCluster{cp: cp, client: client, created: map[string]bool{}}
}

// grow loads the generated cluster of the given size, creating as the
// admin, from several goroutines, what is not there yet, and returns its
// objects. Each Service is created without its selector, so that the
// EndpointSlice controller leaves the generated slices alone (as it leaves
// those of any selectorless Service), and without its cluster IP, which
// the API server allocates from its own range; the provider reads neither.
func (c *scaleCluster) grow(tb testing.TB, services int) []manifests.Object {
	tb.Helper()
	objs := generatedCluster(tb, services)
	var todo []manifests.Object
	for _, o := range objs {
		m, err := metaOf(o)
		require.NoError(tb, err)
		if ns := m.GetNamespace(); ns != "" && !c.created["Namespace//"+ns] {
			require.NoError(tb, c.cp.CreateNamespace(ctx, ns))
			c.created["Namespace//"+ns] = true
		}
		key := fmt.Sprintf("%T/%s/%s", o.Object, m.GetNamespace(), m.GetName())
		if !c.created[key] {
			c.created[key] = true
			todo = append(todo, o)
		}
	}

	start := time.Now()
	var next atomic.Int64
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(todo) {
					return
				}
				if err := create(c.client, todo[i]); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s: %w", todo[i].Source(), err))
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	require.Empty(tb, errs)
	took := time.Since(start)
	tb.Logf("created %d objects in %s (%.0f/s): %d Services", len(todo), took.Round(time.Millisecond), float64(len(todo))/took.Seconds(), services)
	return objs
}

func metaOf(o manifests.Object) (metav1.Object, error) {
	m, ok := o.Object.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no object metadata", o.Object)
	}
	return m, nil
}

// create creates a copy of one generated object.
func create(client kubernetes.Interface, o manifests.Object) error {
	opts := metav1.CreateOptions{}
	var err error
	switch obj := o.Object.DeepCopyObject().(type) {
	case *corev1.Service:
		obj.Spec.Selector, obj.Spec.ClusterIP, obj.Spec.ClusterIPs = nil, "", nil
		_, err = client.CoreV1().Services(obj.Namespace).Create(ctx, obj, opts)
	case *discoveryv1.EndpointSlice:
		_, err = client.DiscoveryV1().EndpointSlices(obj.Namespace).Create(ctx, obj, opts)
	case *netv1.Ingress:
		_, err = client.NetworkingV1().Ingresses(obj.Namespace).Create(ctx, obj, opts)
	case *netv1.IngressClass:
		_, err = client.NetworkingV1().IngressClasses().Create(ctx, obj, opts)
	case *corev1.Secret:
		_, err = client.CoreV1().Secrets(obj.Namespace).Create(ctx, obj, opts)
	default:
		err = fmt.Errorf("the test does not create a %T", obj)
	}
	return err
}

// offlineRender is what `sliceway render` gives for the manifests.
func offlineRender(tb testing.TB, objs []manifests.Object) *dynamic.Configuration {
	tb.Helper()
	fake, problems := manifests.NewFakeCluster(objs)
	require.Empty(tb, problems)
	opts := &ingress.Provider{}
	opts.SetDefaults()
	res, err := ingress.RenderOnce(ctx, fake, opts, ingress.ClientOptions{}, 5*time.Minute)
	require.NoError(tb, err)
	require.Empty(tb, res.Errors, "the generated cluster renders without errors")
	return res.Configuration
}

// requireSameConfiguration compares two configurations entry by entry, and
// names the first routers and services that differ rather than printing
// megabytes of JSON.
func requireSameConfiguration(tb testing.TB, want, got *dynamic.Configuration) {
	tb.Helper()
	require.NotNil(tb, got)
	var diffs []string
	diff := func(kind string, w, g map[string][]byte) {
		for _, name := range slices.Sorted(keys(w, g)) {
			if !bytes.Equal(w[name], g[name]) && len(diffs) < 10 {
				diffs = append(diffs, fmt.Sprintf("%s %s:\n  want %s\n  got  %s", kind, name, w[name], g[name]))
			}
		}
	}
	diff("router", encodeEach(tb, want.HTTP.Routers), encodeEach(tb, got.HTTP.Routers))
	diff("service", encodeEach(tb, want.HTTP.Services), encodeEach(tb, got.HTTP.Services))
	require.Empty(tb, diffs, "%d routers and %d services wanted, %d and %d got",
		len(want.HTTP.Routers), len(want.HTTP.Services), len(got.HTTP.Routers), len(got.HTTP.Services))
	// And the whole, TLS and all, byte for byte.
	require.True(tb, bytes.Equal(mustJSON(tb, want), mustJSON(tb, got)), "the configurations differ outside their routers and services")
}

func encodeEach[V any](tb testing.TB, m map[string]V) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		b, err := json.Marshal(v)
		require.NoError(tb, err)
		out[k] = b
	}
	return out
}

func keys(maps ...map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range maps {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					if !yield(k) {
						return
					}
				}
			}
		}
	}
}

// TestGeneratedClusterFromAPIServer loads the benchmarks' generated cluster
// (1,000 Services, 4,200 objects; SLICEWAY_SCALE_SERVICES for other sizes)
// into a real API server and checks that the provider's first
// configuration is complete (a proxy that starts on a partial one answers
// 404 for the Services it has not heard of yet) and equals what
// `sliceway render` gives for the same manifests, byte for byte: the
// informers' lists through kube-apiserver, the transforms, and the
// events that follow the first sync lose and change nothing.
func TestGeneratedClusterFromAPIServer(t *testing.T) {
	c := newScaleCluster(t)
	for _, n := range scaleSizes(t, 1000) {
		t.Run(fmt.Sprintf("services=%d", n), func(t *testing.T) {
			objs := c.grow(t, n)
			want := offlineRender(t, objs)
			require.Len(t, want.HTTP.Routers, n)

			p := newProvider(t, c.cp)
			p.ClientCompression = ingress.CompressionOff // what auto does in a cluster
			start := time.Now()
			r := runProvider(t, p)
			// The first configuration, whatever it holds.
			got := r.waitFor(t, "a configuration", 5*time.Minute, func(*dynamic.Configuration) bool { return true })
			t.Logf("first configuration %s after the provider started", time.Since(start).Round(time.Millisecond))
			requireSameConfiguration(t, want, got)

			// Nothing follows it: the informers' own events after the sync
			// change nothing.
			settle(t, r, 3*time.Second)
			require.Equal(t, 1, r.count(), "configurations sent for a cluster that did not change")
		})
	}
}

// BenchmarkStartupFromAPIServer is the time from a provider's start to its
// first configuration, on the generated cluster served by a real API
// server (SLICEWAY_SCALE_SERVICES, 1,000 Services by default): connecting,
// listing and watching five kinds as the ServiceAccount of the RBAC
// manifest, the transforms, the first render. Loading the cluster is not
// timed. It reports the time to the synced caches (sync-ms), the first
// render's own time (render-ms), the heap the running provider holds
// (heap-MB: its caches, index and configuration), the CPU time of this
// process (provider-cpu-ms: the provider's, the test's goroutines wait)
// and the API server's (apiserver-cpu-ms) meanwhile, with the responses
// gzip-compressed (clientCompression on, client-go's default) and not
// (off, what auto does in a cluster). The API server runs on the same
// CPUs, as it does in no production cluster.
func BenchmarkStartupFromAPIServer(b *testing.B) {
	forEachScale(b, func(c *scaleCluster, n int) {
		for _, compression := range []string{ingress.CompressionOn, ingress.CompressionOff} {
			b.Run(fmt.Sprintf("services=%d/compression=%s", n, compression), func(b *testing.B) {
				var syncTook, renderTook, apiCPU, ownCPU time.Duration
				var heapBytes uint64
				for range b.N {
					b.StopTimer()
					p := newProvider(b, c.cp)
					p.ClientCompression = compression
					runtime.GC()
					var before runtime.MemStats
					runtime.ReadMemStats(&before)
					cpuBefore, err := c.cp.APIServerCPU()
					require.NoError(b, err)
					ownBefore := processCPU(b)
					b.StartTimer()
					start := time.Now()
					r := runProvider(b, p)
					r.waitFor(b, fmt.Sprintf("%d routers", n), 5*time.Minute, func(c *dynamic.Configuration) bool {
						return len(c.HTTP.Routers) == n
					})
					b.StopTimer()
					ownCPU += processCPU(b) - ownBefore
					cpuAfter, err := c.cp.APIServerCPU()
					require.NoError(b, err)
					apiCPU += cpuAfter - cpuBefore
					runtime.GC()
					var after runtime.MemStats
					runtime.ReadMemStats(&after)
					heapBytes += after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
					renderStart, took := r.observer.firstRender()
					syncTook += renderStart.Sub(start)
					renderTook += took
					r.stop(b)
					b.StartTimer()
				}
				b.ReportMetric(float64(syncTook.Milliseconds())/float64(b.N), "sync-ms")
				b.ReportMetric(float64(renderTook.Milliseconds())/float64(b.N), "render-ms")
				b.ReportMetric(float64(ownCPU.Milliseconds())/float64(b.N), "provider-cpu-ms")
				b.ReportMetric(float64(apiCPU.Milliseconds())/float64(b.N), "apiserver-cpu-ms")
				b.ReportMetric(float64(heapBytes)/float64(b.N)/(1<<20), "heap-MB")
			})
		}
	})
}

// forEachScale calls f for each size of SLICEWAY_SCALE_SERVICES (1,000
// Services by default), smallest first, with one control plane whose
// cluster grows to each size in turn.
func forEachScale(b *testing.B, f func(c *scaleCluster, n int)) {
	c := newScaleCluster(b)
	sizes := scaleSizes(b, 1000)
	slices.Sort(sizes)
	for _, n := range sizes {
		c.grow(b, n)
		f(c, n)
	}
}

// processCPU is the CPU time this process has used (user and system).
func processCPU(tb testing.TB) time.Duration {
	d, err := controlplane.ProcessCPU(os.Getpid())
	require.NoError(tb, err)
	return d
}

// BenchmarkRenderFullFromAPIServer is the main module's
// BenchmarkRenderFull (a cold full render, Translate) on informer caches
// synced from a real API server instead of the fake clientset: objects
// decoded from protobuf, with strings of their own, in the order the API
// server sent them. The API server is idle while it runs.
func BenchmarkRenderFullFromAPIServer(b *testing.B) {
	forEachScale(b, func(c *scaleCluster, n int) {
		b.Run(fmt.Sprintf("services=%d", n), func(b *testing.B) {
			p := newProvider(b, c.cp)
			p.ClientCompression = ingress.CompressionOff
			cs, err := p.NewClientset()
			require.NoError(b, err)
			opts := &ingress.Provider{}
			opts.SetDefaults()
			// Told the renders' options, as Provide tells its client.
			client, err := ingress.NewClient(cs, ingress.ClientOptions{Provider: opts})
			require.NoError(b, err)
			ctx, cancel := context.WithCancel(context.Background())
			defer client.Shutdown()
			defer cancel()
			client.Start(ctx)
			require.NoError(b, client.WaitForSync(ctx, 5*time.Minute))
			snap := client.Snapshot()
			var res *ingress.Result
			b.ReportAllocs()
			for b.Loop() {
				res = ingress.Translate(snap, opts)
			}
			require.Len(b, res.Configuration.HTTP.Routers, n)
		})
	})
}

// BenchmarkSliceChangeFromAPIServer is the main module's
// BenchmarkSliceChangeEndToEnd through a real API server: from the update
// of one EndpointSlice (its first endpoint moved to a documentation
// address and back, a different Service each time) to the configuration
// that has the new server, at the provider's defaults (no throttle). The
// write through kube-apiserver to etcd and the watch event back are in
// it; the API server runs on the same CPUs.
func BenchmarkSliceChangeFromAPIServer(b *testing.B) {
	forEachScale(b, func(c *scaleCluster, n int) {
		b.Run(fmt.Sprintf("services=%d", n), func(b *testing.B) {
			p := newProvider(b, c.cp)
			p.ClientCompression = ingress.CompressionOff
			r := runProvider(b, p)
			r.waitFor(b, fmt.Sprintf("%d routers", n), 5*time.Minute, func(c *dynamic.Configuration) bool {
				return len(c.HTTP.Routers) == n
			})
			sent := r.count()
			api := c.client.DiscoveryV1().EndpointSlices("bench")
			i := 0
			for b.Loop() {
				b.StopTimer()
				name := fmt.Sprintf("svc-%05d", i*7919%n)
				s, err := api.Get(ctx, name+"-0", metav1.GetOptions{})
				require.NoError(b, err)
				// Endpoint 0 is ready (clustergen.Endpoint): after the
				// change the Service has a server at the new address.
				want := "198.51.100.7"
				if s.Endpoints[0].Addresses[0] == want {
					want = "198.51.100.8"
				}
				s.Endpoints[0].Addresses[0] = want
				b.StartTimer()
				_, err = api.Update(ctx, s, metav1.UpdateOptions{})
				require.NoError(b, err)
				r.waitFor(b, name+" at "+want, time.Minute, func(c *dynamic.Configuration) bool {
					return slices.Contains(servers(c, "bench-"+name+"-http"), "http://"+want+":8080")
				})
				i++
			}
			b.ReportMetric(float64(r.count()-sent)/float64(i), "configurations/op")
		})
	})
}
