package ingress

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// Benchmarks run on a generated cluster (internal/clustergen), or on the
// manifests named by SLICEWAY_BENCH_MANIFESTS, served by the fake clientset
// through the provider's informers with their transforms.

var benchSizes = []int{1000, 10000}

const benchEndpoints = 20

func benchClientset(b *testing.B, services int) kubernetes.Interface {
	b.Helper()
	if path := os.Getenv("SLICEWAY_BENCH_MANIFESTS"); path != "" {
		objs, problems := manifests.Read([]string{path}, manifests.IsUsedKind)
		for _, p := range problems {
			if !p.Warning {
				b.Fatalf("SLICEWAY_BENCH_MANIFESTS: %v", p)
			}
		}
		cs, problems := manifests.NewFakeCluster(objs)
		if len(problems) > 0 {
			b.Fatalf("SLICEWAY_BENCH_MANIFESTS: %v", problems[0])
		}
		return cs
	}
	return benchClientsetOf(b, clustergen.Cluster(services, benchEndpoints))
}

func benchOptions() *Provider {
	p := &Provider{}
	p.SetDefaults()
	return p
}

// forEachSize runs f for each size: benchSizes, or the comma-separated
// numbers of SLICEWAY_BENCH_SERVICES (to see how a cost grows), or 0 with
// SLICEWAY_BENCH_MANIFESTS.
func forEachSize(b *testing.B, f func(b *testing.B, services int)) {
	sizes := benchSizes
	if list := os.Getenv("SLICEWAY_BENCH_SERVICES"); list != "" {
		sizes = nil
		for _, field := range strings.Split(list, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(field))
			if err != nil || n < 1 {
				b.Fatalf("SLICEWAY_BENCH_SERVICES: %q is not a number of services", field)
			}
			sizes = append(sizes, n)
		}
	}
	if os.Getenv("SLICEWAY_BENCH_MANIFESTS") != "" {
		sizes = []int{0}
	}
	for _, s := range sizes {
		b.Run(fmt.Sprintf("services=%d", s), func(b *testing.B) { f(b, s) })
	}
}

// syncedClient starts informers on cs and waits for them to sync; they
// stop when the benchmark ends. The client is told the options of the
// renders (benchOptions, unless opts has others), as Provide tells its own.
func syncedClient(b *testing.B, cs kubernetes.Interface, opts ClientOptions) *Client {
	b.Helper()
	if opts.Provider == nil {
		opts.Provider = benchOptions()
	}
	client, err := NewClient(cs, opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(func() { cancel(); client.Shutdown() })
	client.Start(ctx)
	if err := client.WaitForSync(ctx, time.Minute); err != nil {
		b.Fatal(err)
	}
	return client
}

// BenchmarkRenderFull renders the whole configuration from synced caches.
func BenchmarkRenderFull(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		res := benchTranslate(b, benchClientset(b, services), benchOptions(), services)
		reportSize(b, res.Configuration)
	})
}

// benchClientsetOf serves the objects through the fake clientset.
func benchClientsetOf(b *testing.B, objs []k8sruntime.Object) kubernetes.Interface {
	b.Helper()
	cs := fake.NewClientset()
	for _, o := range objs {
		if err := cs.Tracker().Add(o); err != nil {
			b.Fatal(err)
		}
	}
	return cs
}

// benchTLSClientset serves the generated cluster with a TLS Secret for
// each Ingress (clustergen.WithTLS).
func benchTLSClientset(b *testing.B, services int) kubernetes.Interface {
	b.Helper()
	objs, err := clustergen.WithTLS(clustergen.Cluster(services, benchEndpoints))
	if err != nil {
		b.Fatal(err)
	}
	return benchClientsetOf(b, objs)
}

// BenchmarkRenderFullAnnotated is BenchmarkRenderFull with the annotations
// of a Traefik user on every Ingress and on one Service in four
// (clustergen.WithAnnotations): a few sets, repeated.
func BenchmarkRenderFullAnnotated(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		if services == 0 {
			b.Skip("needs the generated cluster; give the manifests to BenchmarkRenderFull")
		}
		res := benchTranslate(b, benchClientsetOf(b, clustergen.WithAnnotations(clustergen.Cluster(services, benchEndpoints))), benchOptions(), services)
		if len(res.Errors) > 0 {
			b.Fatal(res.Errors[0])
		}
	})
}

// BenchmarkRenderFullTLS is BenchmarkRenderFullWarm with a TLS Secret of
// its own for each Ingress: a full render once the certificates were
// checked (by an earlier render of the same Renderer), as after a change
// of this proxy's zone.
func BenchmarkRenderFullTLS(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		if services == 0 {
			b.Skip("needs the generated cluster; give the manifests to BenchmarkRenderFull")
		}
		client := syncedClient(b, benchTLSClientset(b, services), ClientOptions{})
		r := NewRenderer(benchOptions())
		res, _ := r.Render(client.Snapshot(), nil)
		if len(res.Errors) > 0 || res.Configuration.TLS == nil || len(res.Configuration.TLS.Certificates) != services {
			b.Fatalf("not a certificate for each of %d services, or errors: %v", services, res.Errors)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			r.Render(client.Snapshot(), nil)
		}
		reportPerService(b, services)
	})
}

// benchTranslate times Translate on the synced caches of cs, with opts
// for every render, and returns the first result, which must have a
// router for each service.
func benchTranslate(b *testing.B, cs kubernetes.Interface, opts *Provider, services int) *Result {
	client := syncedClient(b, cs, ClientOptions{Provider: opts})
	res := Translate(client.Snapshot(), opts)
	if len(res.Configuration.HTTP.Routers) < services {
		b.Fatalf("%d routers for %d services", len(res.Configuration.HTTP.Routers), services)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var times []time.Duration
	gcs := numGC()
	for b.Loop() {
		start := time.Now()
		Translate(client.Snapshot(), opts)
		times = append(times, time.Since(start))
	}
	reportPerService(b, services)
	reportSpread(b, times, numGC()-gcs)
	return res
}

// numGC is how many garbage collections have run.
func numGC() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

// reportSpread reports the median and the 90th percentile of the times of
// the renders (ms), and how many garbage collections ran over them. ns/op
// is their mean, which the renders that ran while a collection marked the
// heap raise: this machine has two CPUs, and marking the caches takes one
// of them for a while.
func reportSpread(b *testing.B, times []time.Duration, gcs uint32) {
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1e3, "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1e3, "p90-ms")
	b.ReportMetric(float64(gcs)/float64(len(times)), "gc/op")
}

// BenchmarkRenderFirstTLS is the first render of a provider on the same
// cluster: every certificate and key is checked (parsed, and the key
// matched to the certificate).
func BenchmarkRenderFirstTLS(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		if services == 0 {
			b.Skip("needs the generated cluster")
		}
		client := syncedClient(b, benchTLSClientset(b, services), ClientOptions{})
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			Translate(client.Snapshot(), benchOptions())
		}
		reportPerService(b, services)
	})
}

// reportPerService reports the time per Service (us/service), which stays
// flat as the cluster grows when nothing is worse than linear.
func reportPerService(b *testing.B, services int) {
	if services > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(services)/1e3, "us/service")
	}
}

// reportSize reports how many routers and servers conf has, to compare
// like with like against other providers (tools/traefik-bench).
func reportSize(b *testing.B, conf *dynamic.Configuration) {
	servers := 0
	for _, svc := range conf.HTTP.Services {
		if svc.LoadBalancer != nil {
			servers += len(svc.LoadBalancer.Servers)
		}
	}
	b.ReportMetric(float64(len(conf.HTTP.Routers)), "routers")
	b.ReportMetric(float64(servers), "servers")
}

// BenchmarkRenderOneIngressManyPaths renders one Ingress with a path to
// each of n Services (n being the size): an Ingress that holds a whole
// site. It is translated on one goroutine; the time per path (us/path)
// stays flat when nothing in an Ingress's translation is worse than linear
// in its paths.
func BenchmarkRenderOneIngressManyPaths(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		if services == 0 {
			b.Skip("needs the generated cluster")
		}
		var objs []any
		site := clustergen.Service(0, 0)[1].(*netv1.Ingress)
		template := site.Spec.Rules[0].HTTP.Paths[0]
		site.Spec.Rules[0].HTTP.Paths = nil
		for i := range services {
			for _, o := range clustergen.Service(i, benchEndpoints) {
				if _, ok := o.(*netv1.Ingress); !ok {
					objs = append(objs, o)
				}
			}
			path := template
			path.Path = fmt.Sprintf("/%s", clustergen.Name(i))
			path.Backend.Service = &netv1.IngressServiceBackend{Name: clustergen.Name(i), Port: template.Backend.Service.Port}
			site.Spec.Rules[0].HTTP.Paths = append(site.Spec.Rules[0].HTTP.Paths, path)
		}
		snap := testobjects.NewSnapshot(append(objs, site)...)
		opts := benchOptions()
		if res := Translate(snap, opts); len(res.Configuration.HTTP.Routers) != services {
			b.Fatalf("%d routers for %d paths", len(res.Configuration.HTTP.Routers), services)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			Translate(snap, opts)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(services)/1e3, "us/path")
	})
}

// BenchmarkRenderFullWarm renders the whole configuration again from
// synced caches with a Renderer that rendered them before (Render with no
// Changes): what a change of this proxy's zone costs. Every Ingress is
// translated and every router named again; the load balancers of Services
// whose objects are the same are taken from the previous render.
func BenchmarkRenderFullWarm(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		client := syncedClient(b, benchClientset(b, services), ClientOptions{})
		r := NewRenderer(benchOptions())
		r.Render(client.Snapshot(), nil)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			r.Render(client.Snapshot(), nil)
		}
		reportPerService(b, services)
	})
}

// countingObserver counts renders and sent configurations.
type countingObserver struct {
	renders, sent atomic.Int64
}

func (o *countingObserver) Event(string, bool)                     {}
func (o *countingObserver) Rendered(time.Time, time.Duration, int) { o.renders.Add(1) }
func (o *countingObserver) Sent()                                  { o.sent.Add(1) }

// runningProvider starts Provide on cs and returns the channel of
// configurations after the first one.
func runningProvider(b *testing.B, cs kubernetes.Interface, obs Observer) (<-chan dynamic.Message, func()) {
	b.Helper()
	p := benchOptions()
	p.SetClientset(cs)
	p.SetObserver(obs)
	if err := p.Init(); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan dynamic.Message, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Provide(ctx, out)
	}()
	select {
	case <-out:
	case <-time.After(2 * time.Minute):
		b.Fatal("no first configuration")
	}
	return out, func() { cancel(); <-done }
}

// BenchmarkRenderAfterSliceChange measures the provider's work after one
// endpoint of one slice changed: from the informer having delivered the
// update to the new configuration (an incremental render). The API update
// and its delivery are not timed.
func BenchmarkRenderAfterSliceChange(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		benchSliceChange(b, benchClientset(b, services))
	})
}

// BenchmarkRenderAfterSliceChangeWithProblems is the same on a cluster
// where one Ingress in ten names a Service that does not exist: the render
// reports those problems every time without formatting or logging them
// again.
func BenchmarkRenderAfterSliceChangeWithProblems(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		cs := benchClientset(b, services)
		for i := range max(services, 1000) / 10 {
			ing := clustergen.Service(services+i, 1)[1].(*netv1.Ingress)
			ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = fmt.Sprintf("missing-%d", i)
			if err := cs.(*fake.Clientset).Tracker().Add(ing); err != nil {
				b.Fatal(err)
			}
		}
		benchSliceChange(b, cs)
	})
}

func benchSliceChange(b *testing.B, cs kubernetes.Interface) {
	benchSliceChangeOf(b, cs, ClientOptions{Provider: benchOptions()}, func(res *Result) *discoveryv1.EndpointSlice { return benchSlice(b, cs, res) })
}

// benchSliceChangeOf is benchSliceChange with the client's options co
// (its Provider, and its Gateway API clientset for the Gateway provider)
// on the slice pick chooses, given the first configuration.
func benchSliceChangeOf(b *testing.B, cs kubernetes.Interface, co ClientOptions, pick func(*Result) *discoveryv1.EndpointSlice) {
	var target *discoveryv1.EndpointSlice
	benchRenderAfter(b, cs, co, func(prev *Result) func(i int) error {
		target = pick(prev)
		slices := cs.DiscoveryV1().EndpointSlices(target.Namespace)
		return func(i int) error {
			toggleAddress(target, i)
			_, err := slices.Update(context.Background(), target, metav1.UpdateOptions{})
			return err
		}
	})
}

// benchRenderAfter times, on the live path, the render after each change
// that change makes (prepare returns it, from the first render's result):
// from the informer having delivered the update to the new configuration.
// The API update and its delivery are not timed. Every change must reach
// the configuration, and no render but the first may be full.
func benchRenderAfter(b *testing.B, cs kubernetes.Interface, co ClientOptions, prepare func(*Result) func(i int) error) {
	var events atomic.Int64
	changes := &Changes{}
	co.OnChange, co.Notify = changes.Record, func(string, bool) { events.Add(1) }
	client := syncedClient(b, cs, co)
	r := NewRenderer(co.Provider)
	prev, _ := r.Render(client.Snapshot(), changes) // takes the initial adds
	change := prepare(prev)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		want := events.Load() + 1
		if err := change(i); err != nil {
			b.Fatal(err)
		}
		for events.Load() < want {
			time.Sleep(50 * time.Microsecond)
		}
		b.StartTimer()
		if _, changed := r.Render(client.Snapshot(), changes); !changed {
			b.Fatal("the change did not reach the configuration")
		}
	}
	b.StopTimer()
	if st := r.Stats(); st.Full != 1 {
		b.Fatalf("%d full renders, want only the first: %+v", st.Full, st)
	}
}

// BenchmarkRenderAfterSharedSliceChange is BenchmarkRenderAfterSliceChange
// for a Service that many Ingresses share: the cluster has one Ingress in
// ten more (each with a host of its own), all sending to the first
// Service, and one of that Service's slices changes. Its load balancer is
// built once and put in place of the old one; no Ingress that uses it is
// translated again (us/user stays flat as the users grow).
func BenchmarkRenderAfterSharedSliceChange(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		if services == 0 {
			b.Skip("needs the generated cluster")
		}
		cs := benchClientset(b, services)
		for i := range services / 10 {
			ing := clustergen.Service(services+i, 1)[1].(*netv1.Ingress)
			ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = clustergen.Name(0)
			if err := cs.(*fake.Clientset).Tracker().Add(ing); err != nil {
				b.Fatal(err)
			}
		}
		target, err := cs.DiscoveryV1().EndpointSlices(clustergen.Namespace).Get(context.Background(), clustergen.Name(0)+"-0", metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		benchSliceChangeOf(b, cs, ClientOptions{Provider: benchOptions()}, func(*Result) *discoveryv1.EndpointSlice { return target })
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(services/10+1)/1e3, "us/user")
	})
}

// benchSlice picks the EndpointSlice the change benchmarks update: the
// middle one, by namespace and name, of the slices whose Service a router of
// res sends to and that have a ready address.
func benchSlice(b *testing.B, cs kubernetes.Interface, res *Result) *discoveryv1.EndpointSlice {
	b.Helper()
	used := map[string]bool{}
	for _, rt := range res.Configuration.HTTP.Routers {
		if o := rt.Observability; o != nil && o.Metadata != nil && o.Metadata.Ingress != nil {
			used[o.Metadata.Ingress.Namespace+"/"+o.Metadata.Ingress.ServiceName] = true
		}
	}
	list, err := cs.DiscoveryV1().EndpointSlices("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var candidates []*discoveryv1.EndpointSlice
	for i := range list.Items {
		s := &list.Items[i]
		if !used[s.Namespace+"/"+s.Labels[discoveryv1.LabelServiceName]] || s.AddressType != discoveryv1.AddressTypeIPv4 ||
			len(s.Endpoints) == 0 || len(s.Endpoints[0].Addresses) == 0 ||
			(s.Endpoints[0].Conditions.Ready != nil && !*s.Endpoints[0].Conditions.Ready) {
			continue
		}
		candidates = append(candidates, s)
	}
	if len(candidates) == 0 {
		b.Fatal("no EndpointSlice with a ready first endpoint behind a router")
	}
	slices.SortFunc(candidates, func(x, y *discoveryv1.EndpointSlice) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	return candidates[len(candidates)/2]
}

// toggleAddress moves the slice's first (ready) endpoint to a documentation
// address and back: a server of its Service changes every time.
func toggleAddress(s *discoveryv1.EndpointSlice, i int) {
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	const key = "bench.sliceway.io/original-address"
	if _, ok := s.Annotations[key]; !ok {
		s.Annotations[key] = s.Endpoints[0].Addresses[0]
	}
	if i%2 == 0 {
		s.Endpoints[0].Addresses[0] = "198.51.100.7"
	} else {
		s.Endpoints[0].Addresses[0] = s.Annotations[key]
	}
}

// BenchmarkSliceChangeEndToEnd measures the same change end to end: from
// the API update (through the fake clientset) to the new configuration
// sent by Provide.
func BenchmarkSliceChangeEndToEnd(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		cs := benchClientset(b, services)
		out, stop := runningProvider(b, cs, &countingObserver{})
		defer stop()
		ctx := context.Background()
		target := benchSlice(b, cs, Translate(syncedClient(b, cs, ClientOptions{}).Snapshot(), benchOptions()))
		slices := cs.DiscoveryV1().EndpointSlices(target.Namespace)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			toggleAddress(target, i)
			if _, err := slices.Update(ctx, target, metav1.UpdateOptions{}); err != nil {
				b.Fatal(err)
			}
			<-out
		}
	})
}

// BenchmarkNoopUpdate sends resync-style updates (nothing the output reads
// changes); renders/op must read 0.
func BenchmarkNoopUpdate(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		cs := benchClientset(b, services)
		obs := &countingObserver{}
		_, stop := runningProvider(b, cs, obs)
		defer stop()
		ctx := context.Background()
		target := benchSlice(b, cs, Translate(syncedClient(b, cs, ClientOptions{}).Snapshot(), benchOptions()))
		slices := cs.DiscoveryV1().EndpointSlices(target.Namespace)
		if target.Annotations == nil {
			target.Annotations = map[string]string{}
		}
		before := obs.renders.Load()
		b.ReportAllocs()
		b.ResetTimer()
		i := 0
		for b.Loop() {
			i++
			target.Annotations["endpoints.kubernetes.io/last-change-trigger-time"] = fmt.Sprint(i)
			if _, err := slices.Update(ctx, target, metav1.UpdateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		time.Sleep(200 * time.Millisecond) // let the last events arrive before counting
		b.ReportMetric(float64(obs.renders.Load()-before)/float64(b.N), "renders/op")
	})
}

// BenchmarkHeapAfterSync reports the heap once the informer caches hold the
// cluster (with the provider's transforms): the heap in use after the sync
// less the heap in use before it (heap-MB, spans: what the process holds),
// the same for the bytes of live objects (live-MB) and for their number
// (kobjects, thousands: what every garbage collection marks), with the fake
// clientset's own copy counted in none. It also reports what a Renderer
// keeps between renders (its parts and the configuration it last rendered:
// renderer-MB). ns/op is the time to list and sync.
func BenchmarkHeapAfterSync(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		benchHeapAfterSync(b, func() (kubernetes.Interface, ClientOptions) {
			return benchClientset(b, services), ClientOptions{Provider: benchOptions()}
		})
	})
}

// benchHeapAfterSync is BenchmarkHeapAfterSync on the clientset and the
// client options (with the provider's options) that cluster makes anew
// for each round.
func benchHeapAfterSync(b *testing.B, cluster func() (kubernetes.Interface, ClientOptions)) {
	var heap, live, objects, kept float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cs, co := cluster()
		base := heapStats()
		client, err := NewClient(cs, co)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		b.StartTimer()
		client.Start(ctx)
		if err := client.WaitForSync(ctx, time.Minute); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		synced := heapStats()
		writeHeapProfile(b)
		heap += float64(synced.HeapInuse) - float64(base.HeapInuse)
		live += float64(synced.HeapAlloc) - float64(base.HeapAlloc)
		objects += float64(synced.HeapObjects) - float64(base.HeapObjects)
		r := NewRenderer(co.Provider)
		r.Render(client.Snapshot(), nil)
		kept += float64(heapStats().HeapInuse) - float64(synced.HeapInuse)
		runtime.KeepAlive(r)
		cancel()
		client.Shutdown()
	}
	b.ReportMetric(heap/float64(b.N)/(1<<20), "heap-MB")
	b.ReportMetric(live/float64(b.N)/(1<<20), "live-MB")
	// What the garbage collector marks in every cycle.
	b.ReportMetric(objects/float64(b.N)/1e3, "kobjects")
	b.ReportMetric(kept/float64(b.N)/(1<<20), "renderer-MB")
}

// writeHeapProfile writes the heap profile to the file
// SLICEWAY_BENCH_HEAP_PROFILE names, if any: where the bytes live once the
// informers synced (go tool pprof -sample_index=inuse_space); the fake
// clientset's own copy of the cluster is in it too, under its tracker.
func writeHeapProfile(b *testing.B) {
	path := os.Getenv("SLICEWAY_BENCH_HEAP_PROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// heapStats are the memory statistics after a collection.
func heapStats() runtime.MemStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}
