package ingressnginx

// This file is copied into a copy of Traefik's module, next to its
// ingress-nginx provider (package ingressnginx), by tools/traefik-bench/run:
// it is not part of sliceway's build.

import (
	"bytes"
	"context"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
)

// BenchmarkSlicewayNGINXCluster times Traefik's ingress-nginx provider
// building the whole configuration from synced informer caches
// (loadConfiguration, what its Provide loop runs on every event), for the
// objects in the manifests file SLICEWAY_BENCH_MANIFESTS (written by
// sliceway's clustergen -nginx) served by client-go's fake clientset, as
// sliceway's BenchmarkNGINXRenderFull does with the same file. Its
// defaults, no status to publish.
func BenchmarkSlicewayNGINXCluster(b *testing.B) {
	path := os.Getenv("SLICEWAY_BENCH_MANIFESTS")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	cs := fake.NewClientset()
	decode := scheme.Codecs.UniversalDeserializer().Decode
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		if len(bytes.TrimSpace(bytes.TrimPrefix(doc, []byte("---")))) == 0 {
			continue
		}
		obj, _, err := decode(doc, nil, nil)
		if err != nil {
			b.Fatalf("%s: document %d: %v", path, i, err)
		}
		if err := cs.Tracker().Add(obj.(runtime.Object)); err != nil {
			b.Fatalf("%s: document %d: %v", path, i, err)
		}
	}

	p := &Provider{}
	p.SetDefaults()
	if err := p.validateConfiguration(); err != nil {
		b.Fatal(err)
	}
	p.k8sClient = newClient(cs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// WatchAll returns once the informer caches are synced.
	if _, err := p.k8sClient.WatchAll(ctx, "", ""); err != nil {
		b.Fatal(err)
	}
	conf := p.loadConfiguration(ctx)
	servers := 0
	for _, svc := range conf.HTTP.Services {
		if svc.LoadBalancer != nil {
			servers += len(svc.LoadBalancer.Servers)
		}
	}

	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p.loadConfiguration(ctx)
	}
	b.ReportMetric(float64(len(conf.HTTP.Routers)), "routers")
	b.ReportMetric(float64(servers), "servers")
}
