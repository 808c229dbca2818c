package ingress

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// The Gateway front end's benchmarks run on the generated cluster of a
// Gateway API user (clustergen.Cluster and clustergen.Gateway: one
// HTTPRoute per Service), or on the manifests SLICEWAY_BENCH_MANIFESTS
// names (clustergen's -gateway output), through the provider's informers.

// The generated GatewayClass is of the provider's default controllerName,
// which clustergen cannot import.
func TestGeneratedGatewayClassIsOurs(t *testing.T) {
	class := clustergen.Gateway(0)[0].(*gatewayv1.GatewayClass)
	require.Equal(t, DefaultGatewayControllerName, string(class.Spec.ControllerName))
}

// gatewayBenchClientsets serve the cluster of the Gateway benchmarks.
func gatewayBenchClientsets(b *testing.B, services int) (kubernetes.Interface, gatewayclient.Interface) {
	b.Helper()
	if path := os.Getenv("SLICEWAY_BENCH_MANIFESTS"); path != "" {
		objs, problems := manifests.Read([]string{path}, manifests.WantedKinds(true))
		for _, p := range problems {
			if !p.Warning {
				b.Fatalf("SLICEWAY_BENCH_MANIFESTS: %v", p)
			}
		}
		c := manifests.NewCluster()
		if _, problems := c.Apply(objs); len(problems) > 0 {
			b.Fatalf("SLICEWAY_BENCH_MANIFESTS: %v", problems[0])
		}
		return c.Clientset(), c.GatewayClientset()
	}
	return benchClientsetOf(b, clustergen.WithoutIngresses(clustergen.Cluster(services, benchEndpoints))),
		newGatewayFake(b, clustergen.Gateway(services)...)
}

// gatewayBenchClient is a synced client of the Gateway provider on the
// benchmarks' cluster, with that provider's options.
func gatewayBenchClient(b *testing.B, services int) (*Client, *Provider) {
	cs, gw := gatewayBenchClientsets(b, services)
	opts := &newGatewayProvider(b).Provider
	return syncedClient(b, cs, ClientOptions{Provider: opts, Gateway: gw}), opts
}

// BenchmarkGatewayRenderFull renders the Gateway front end's whole
// configuration with a new renderer: the first render.
func BenchmarkGatewayRenderFull(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		client, opts := gatewayBenchClient(b, services)
		snap := client.Snapshot()
		var res *Result
		b.ReportAllocs()
		for b.Loop() {
			res, _ = NewRenderer(opts).Render(snap, nil)
		}
		if routes := len(snap.(GatewaySnapshot).HTTPRoutes()); len(res.Errors) > 0 || len(res.Configuration.HTTP.Routers) != routes {
			b.Fatalf("%d routers for %d routes, %d errors (%v)", len(res.Configuration.HTTP.Routers), routes, len(res.Errors), res.Errors)
		}
		reportSize(b, res.Configuration)
	})
}

// BenchmarkGatewayRenderFullWarm renders again with the renderer of the
// last render, as the live path does after a change it takes in full:
// one of a Gateway API object, a Service or a Secret.
func BenchmarkGatewayRenderFullWarm(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		client, opts := gatewayBenchClient(b, services)
		snap := client.Snapshot()
		r := NewRenderer(opts)
		res, _ := r.Render(snap, nil)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			res, _ = r.Render(snap, nil)
		}
		reportSize(b, res.Configuration)
	})
}

// BenchmarkGatewayRenderAfterListenerChange renders again after a
// listener of the one Gateway every route names came or went: a full
// render in which no route's part can be taken again (the Gateway's
// processing changed), the worst a change of a Gateway costs.
func BenchmarkGatewayRenderAfterListenerChange(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		client, opts := gatewayBenchClient(b, services)
		snap := client.Snapshot().(gatewayListerSnapshot)
		edge := snap.Gateways()[0]
		wider := edge.DeepCopy()
		wider.Spec.Listeners = append(wider.Spec.Listeners, gatewayv1.Listener{Name: "alt", Port: 80,
			Protocol: gatewayv1.HTTPProtocolType, Hostname: new(gatewayv1.Hostname("alt.example.com"))})
		r := NewRenderer(opts)
		r.Render(snap, nil)
		changes := &Changes{}
		b.ReportAllocs()
		b.ResetTimer()
		var res *Result
		for i := 0; b.Loop(); i++ {
			gw := edge
			if i%2 == 0 {
				gw = wider
			}
			changes.Record("Gateway", nil, gw)
			res, _ = r.Render(gatewaysReplaced{snap, []*gatewayv1.Gateway{gw}}, changes)
		}
		reportSize(b, res.Configuration)
	})
}

// gatewaysReplaced is a snapshot whose Gateways are gws.
type gatewaysReplaced struct {
	gatewayListerSnapshot
	gws []*gatewayv1.Gateway
}

func (s gatewaysReplaced) Gateways() []*gatewayv1.Gateway { return s.gws }

// BenchmarkGatewayRenderAfterSliceChange measures the Gateway provider's
// work after one endpoint of one slice changed, on the live path: from the
// informer having delivered the update to the new configuration. The load
// balancer of that Service is rebuilt and put in place; no route is
// translated again. The API update and its delivery are not timed.
func BenchmarkGatewayRenderAfterSliceChange(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		if services == 0 {
			b.Skip("needs the generated cluster")
		}
		cs, gw := gatewayBenchClientsets(b, services)
		benchSliceChangeOf(b, cs, ClientOptions{Provider: &newGatewayProvider(b).Provider, Gateway: gw}, func(*Result) *discoveryv1.EndpointSlice {
			s, err := cs.DiscoveryV1().EndpointSlices(clustergen.Namespace).Get(context.Background(), clustergen.Name(services/2)+"-0", metav1.GetOptions{})
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
}

// BenchmarkGatewayRenderAfterRouteChange measures the Gateway provider's
// work after one HTTPRoute changed, on the live path, as
// BenchmarkGatewayRenderAfterSliceChange does: that route is translated
// again and every router ranked again. With change=filter a header
// filter comes and goes: no other router moves. With change=path the
// route's path match turns longer and back, which takes its router past
// the half of the others ranked before it: their priorities move by one,
// and they are placed again (the most a route change moves).
func BenchmarkGatewayRenderAfterRouteChange(b *testing.B) {
	changes := []struct {
		name   string
		toggle func(rule *gatewayv1.HTTPRouteRule, on bool)
	}{
		{"filter", func(rule *gatewayv1.HTTPRouteRule, on bool) {
			rule.Filters = nil
			if on {
				rule.Filters = []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier,
					RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "X-Bench", Value: "on"}}}}}
			}
		}},
		{"path", func(rule *gatewayv1.HTTPRouteRule, on bool) {
			value := "/"
			if on {
				value = "/v1"
			}
			rule.Matches[0].Path.Value = &value
		}},
	}
	for _, change := range changes {
		b.Run("change="+change.name, func(b *testing.B) {
			forEachSize(b, func(b *testing.B, services int) {
				if services == 0 {
					b.Skip("needs the generated cluster")
				}
				benchRouteChange(b, services, change.toggle)
			})
		})
	}
}

// benchRouteChange renders after each toggle of the rule of the route in
// the middle of the Gateway benchmarks' cluster.
func benchRouteChange(b *testing.B, services int, toggle func(rule *gatewayv1.HTTPRouteRule, on bool)) {
	cs, gw := gatewayBenchClientsets(b, services)
	routes := gw.GatewayV1().HTTPRoutes(clustergen.Namespace)
	ctx := context.Background()
	route, err := routes.Get(ctx, clustergen.Name(services/2), metav1.GetOptions{})
	require.NoError(b, err)
	benchRenderAfter(b, cs, ClientOptions{Provider: &newGatewayProvider(b).Provider, Gateway: gw}, func(*Result) func(i int) error {
		return func(i int) (err error) {
			toggle(&route.Spec.Rules[0], i%2 == 0)
			route, err = routes.Update(ctx, route, metav1.UpdateOptions{})
			return err
		}
	})
}

// BenchmarkGatewayHeapAfterSync is BenchmarkHeapAfterSync for the Gateway
// provider: its informers (the Gateway API's beside the others) on the
// Gateway benchmarks' cluster; renderer-MB is what its render state and
// last configuration keep.
func BenchmarkGatewayHeapAfterSync(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		benchHeapAfterSync(b, func() (kubernetes.Interface, ClientOptions) {
			cs, gw := gatewayBenchClientsets(b, services)
			return cs, ClientOptions{Provider: &newGatewayProvider(b).Provider, Gateway: gw}
		})
	})
}
