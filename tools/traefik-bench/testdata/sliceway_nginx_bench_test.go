package ingressnginx

// This file is copied into a copy of Traefik's module, next to its
// ingress-nginx provider (package ingressnginx), by tools/traefik-bench/run:
// it is not part of sliceway's build.

import (
	"context"
	"testing"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/slicewaybench"
)

// BenchmarkSlicewayNGINXCluster times Traefik's ingress-nginx provider
// building the whole configuration from synced informer caches
// (loadConfiguration, what its Provide loop runs on every event), for the
// objects in the manifests file SLICEWAY_BENCH_MANIFESTS (written by
// sliceway's clustergen -nginx) served by client-go's fake clientset, as
// sliceway's BenchmarkNGINXRenderFull does with the same file. Its
// defaults, no status to publish.
func BenchmarkSlicewayNGINXCluster(b *testing.B) {
	cs := slicewaybench.Clientset(b)

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
	slicewaybench.Render(b, func() *dynamic.Configuration { return p.loadConfiguration(ctx) })
}
