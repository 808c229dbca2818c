package ingress

// This file is copied into a copy of Traefik's module, next to its
// Kubernetes Ingress provider (package ingress), by tools/traefik-bench/run:
// it is not part of sliceway's build.

import (
	"context"
	"testing"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/slicewaybench"
)

// BenchmarkSlicewayCluster times Traefik's provider building the whole
// configuration from synced informer caches (loadConfigurationFromIngresses,
// what its Provide loop runs on every event), for the objects in the
// manifests file SLICEWAY_BENCH_MANIFESTS (written by sliceway's clustergen)
// served by client-go's fake clientset, as sliceway's BenchmarkRenderFull
// does with the same file.
func BenchmarkSlicewayCluster(b *testing.B) {
	cs := slicewaybench.Clientset(b)

	client := newClientImpl(cs)
	stop := make(chan struct{})
	defer close(stop)
	// WatchAll returns once the informer caches are synced.
	if _, err := client.WatchAll(nil, stop); err != nil {
		b.Fatal(err)
	}
	p := &Provider{}
	ctx := context.Background()
	slicewaybench.Render(b, func() *dynamic.Configuration { return p.loadConfigurationFromIngresses(ctx, client) })
}
