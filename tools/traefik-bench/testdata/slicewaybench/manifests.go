// Package slicewaybench is copied into a copy of Traefik's module by
// tools/traefik-bench/run, for the benchmarks it adds there: it is not
// part of sliceway's build.
package slicewaybench

import (
	"bytes"
	"os"
	goruntime "runtime"
	"testing"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	gatewayscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"
)

// Clientset serves the objects of the manifests file
// SLICEWAY_BENCH_MANIFESTS (written by sliceway's clustergen) through
// client-go's fake clientset, as sliceway's benchmarks serve the same
// file.
func Clientset(b *testing.B) *fake.Clientset {
	b.Helper()
	cs := fake.NewClientset()
	for _, obj := range Objects(b) {
		if err := cs.Tracker().Add(obj); err != nil {
			b.Fatal(err)
		}
	}
	return cs
}

// Objects are the objects of the manifests file SLICEWAY_BENCH_MANIFESTS,
// decoded with client-go's kinds and the Gateway API's.
func Objects(b *testing.B) []runtime.Object {
	b.Helper()
	path := os.Getenv("SLICEWAY_BENCH_MANIFESTS")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	kinds := runtime.NewScheme()
	if err := scheme.AddToScheme(kinds); err != nil {
		b.Fatal(err)
	}
	if err := gatewayscheme.AddToScheme(kinds); err != nil {
		b.Fatal(err)
	}
	decode := serializer.NewCodecFactory(kinds).UniversalDeserializer().Decode
	var objs []runtime.Object
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		if len(bytes.TrimSpace(bytes.TrimPrefix(doc, []byte("---")))) == 0 {
			continue
		}
		obj, _, err := decode(doc, nil, nil)
		if err != nil {
			b.Fatalf("%s: document %d: %v", path, i, err)
		}
		objs = append(objs, obj)
	}
	return objs
}

// Heap are the heap statistics after a collection: what the process
// holds, for the heap benchmarks' differences.
func Heap() goruntime.MemStats {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m
}

// Render times render, a provider building its whole configuration, and
// reports the routers and servers of what it built, to compare like with
// like against sliceway's renders of the same manifests.
func Render(b *testing.B, render func() *dynamic.Configuration) {
	b.Helper()
	conf := render()
	servers := 0
	for _, svc := range conf.HTTP.Services {
		if svc.LoadBalancer != nil {
			servers += len(svc.LoadBalancer.Servers)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		render()
	}
	b.ReportMetric(float64(len(conf.HTTP.Routers)), "routers")
	b.ReportMetric(float64(servers), "servers")
}
