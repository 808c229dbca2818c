package ingress

import (
	"os"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/sliceway/sliceway/internal/clustergen"
)

// The ingress-nginx provider's renders on the generated cluster with the
// annotations of ingress-nginx users on every Ingress
// (clustergen.WithNGINXAnnotations), beside the Traefik-style provider's
// BenchmarkRenderFull, BenchmarkRenderFullWarm and
// BenchmarkRenderAfterSliceChange on the same cluster without them.

func nginxBenchOptions(b *testing.B) *Provider {
	b.Helper()
	np := &NGINXProvider{}
	np.SetDefaults()
	if err := np.Init(); err != nil {
		b.Fatal(err)
	}
	return &np.Provider
}

// nginxBenchClientset serves the annotated cluster of services, or with
// SLICEWAY_BENCH_MANIFESTS that file (tools/traefik-bench writes it with
// clustergen -nginx, for Traefik's ingress-nginx provider too).
func nginxBenchClientset(b *testing.B, services int) kubernetes.Interface {
	b.Helper()
	if os.Getenv("SLICEWAY_BENCH_MANIFESTS") != "" {
		return benchClientset(b, services)
	}
	return benchClientsetOf(b, clustergen.WithNGINXAnnotations(clustergen.Cluster(services, benchEndpoints)))
}

// BenchmarkNGINXRenderFull is a full translation of the annotated cluster.
func BenchmarkNGINXRenderFull(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		res := benchTranslate(b, nginxBenchClientset(b, services), nginxBenchOptions(b), services)
		if len(res.Errors) > 0 {
			b.Fatal(res.Errors[0])
		}
		if len(res.Configuration.HTTP.Middlewares) < services {
			b.Fatalf("%d middlewares for %d annotated Ingresses", len(res.Configuration.HTTP.Middlewares), services)
		}
		reportSize(b, res.Configuration)
	})
}

// BenchmarkNGINXRenderFullWarm is a full render by a Renderer that
// rendered the same caches before, as BenchmarkRenderFullWarm.
func BenchmarkNGINXRenderFullWarm(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		opts := nginxBenchOptions(b)
		client := syncedClient(b, nginxBenchClientset(b, services), ClientOptions{Provider: opts})
		r := NewRenderer(opts)
		r.Render(client.Snapshot(), nil)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			r.Render(client.Snapshot(), nil)
		}
		reportPerService(b, services)
	})
}

// BenchmarkNGINXRenderAfterSliceChange is the incremental render after
// one endpoint of one slice changed, as BenchmarkRenderAfterSliceChange:
// the load balancer is rebuilt in place and the services derived from it
// (a sticky cookie, an https scheme) are derived again.
func BenchmarkNGINXRenderAfterSliceChange(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		if services == 0 {
			b.Skip("needs the generated cluster")
		}
		cs := nginxBenchClientset(b, services)
		benchSliceChangeOf(b, cs, ClientOptions{Provider: nginxBenchOptions(b)}, func(res *Result) *discoveryv1.EndpointSlice { return benchSlice(b, cs, res) })
	})
}
