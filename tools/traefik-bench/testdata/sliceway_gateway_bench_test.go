package gateway

// This file is copied into a copy of Traefik's module, next to its
// Kubernetes Gateway provider (package gateway), by tools/traefik-bench/run:
// it is not part of sliceway's build.

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/slicewaybench"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	gatev1 "sigs.k8s.io/gateway-api/apis/v1"
	gatefake "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/fake"

	k8stesting "k8s.io/client-go/testing"
)

// slicewayClientsets serve the manifests of SLICEWAY_BENCH_MANIFESTS
// (clustergen -gateway) as a settled cluster: the Gateway API objects
// through gateway-api's fake clientset, the others through client-go's.
// The GatewayClasses are made Traefik's (its controllerName), which is
// all the two benchmarks' clusters differ in. Each Gateway API object
// carries the status Traefik's provider writes (taken from a render on a
// throwaway copy of the cluster): its renders write every status that
// differs, and the fake's watchers cannot take ten thousand updates at
// once, where a real cluster would settle.
func slicewayClientsets(b *testing.B) (*kubefake.Clientset, *gatefake.Clientset) {
	b.Helper()
	objs := slicewaybench.Objects(b)
	for _, obj := range objs {
		if c, ok := obj.(*gatev1.GatewayClass); ok {
			c.Spec.ControllerName = controllerName
		}
	}
	kube, gw := slicewayFakes(b, objs)
	statuses := map[string]k8sruntime.Object{}
	gw.PrependReactor("update", "*", func(action k8stesting.Action) (bool, k8sruntime.Object, error) {
		if action.GetSubresource() != "status" {
			return false, nil, nil
		}
		obj := action.(k8stesting.UpdateAction).GetObject()
		m := obj.(metav1.Object)
		statuses[action.GetResource().Resource+"/"+m.GetNamespace()+"/"+m.GetName()] = obj
		return true, obj, nil
	})
	client := newClientImpl(kube, gw)
	stop := make(chan struct{})
	if _, err := client.WatchAll(nil, stop); err != nil {
		b.Fatal(err)
	}
	slicewayProvider(client).loadConfigurationFromGateways(context.Background())
	close(stop)
	for i, obj := range objs {
		switch o := obj.(type) {
		case *gatev1.GatewayClass:
			if s, ok := statuses["gatewayclasses//"+o.Name]; ok {
				objs[i] = s
			}
		case *gatev1.Gateway:
			if s, ok := statuses["gateways/"+o.Namespace+"/"+o.Name]; ok {
				objs[i] = s
			}
		case *gatev1.HTTPRoute:
			if s, ok := statuses["httproutes/"+o.Namespace+"/"+o.Name]; ok {
				objs[i] = s
			}
		}
	}
	return slicewayFakes(b, objs)
}

// slicewayFakes are the fake clientsets holding objs.
func slicewayFakes(b *testing.B, objs []k8sruntime.Object) (*kubefake.Clientset, *gatefake.Clientset) {
	b.Helper()
	kube, gw := kubefake.NewClientset(), gatefake.NewSimpleClientset()
	ctx := context.Background()
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *gatev1.GatewayClass:
			_, err = gw.GatewayV1().GatewayClasses().Create(ctx, o.DeepCopy(), metav1.CreateOptions{})
		case *gatev1.Gateway:
			// The tracker's Add would guess the resource "gatewaies".
			_, err = gw.GatewayV1().Gateways(o.Namespace).Create(ctx, o.DeepCopy(), metav1.CreateOptions{})
		case *gatev1.HTTPRoute:
			_, err = gw.GatewayV1().HTTPRoutes(o.Namespace).Create(ctx, o.DeepCopy(), metav1.CreateOptions{})
		default:
			err = kube.Tracker().Add(obj.DeepCopyObject())
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	return kube, gw
}

// slicewayProvider is Traefik's Gateway provider on client, with an entry
// point on the Gateway's port.
func slicewayProvider(client *clientWrapper) *Provider {
	return &Provider{EntryPoints: map[string]Entrypoint{"web": {Address: ":80"}}, client: client}
}

// settledRender is p's render once it writes no status (through gw):
// loadConfigurationFromGateways writes the status of every object whose
// status differs, so only then does a render cost what it costs on each
// event of a settled cluster. On slicewayClientsets' cluster, that is at
// once.
func settledRender(b *testing.B, p *Provider, gw *gatefake.Clientset) func() *dynamic.Configuration {
	b.Helper()
	ctx := context.Background()
	render := func() *dynamic.Configuration { return p.loadConfigurationFromGateways(ctx) }
	for try := 0; ; try++ {
		writes := len(gw.Actions())
		render()
		if len(gw.Actions()) == writes {
			return render
		}
		if try == 100 {
			b.Fatalf("Traefik's provider still writes statuses after %d renders", try+1)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// BenchmarkSlicewayGatewayCluster times Traefik's Gateway provider
// building the whole configuration from synced informer caches
// (loadConfigurationFromGateways, what its Provide loop runs on every
// event), as sliceway's BenchmarkGatewayRenderFull does with the same
// manifests.
func BenchmarkSlicewayGatewayCluster(b *testing.B) {
	kube, gw := slicewayClientsets(b)
	client := newClientImpl(kube, gw)
	stop := make(chan struct{})
	defer close(stop)
	// WatchAll returns once the informer caches are synced.
	if _, err := client.WatchAll(nil, stop); err != nil {
		b.Fatal(err)
	}
	slicewaybench.Render(b, settledRender(b, slicewayProvider(client), gw))
}

// BenchmarkSlicewayGatewayHeap reports the heap Traefik's Gateway provider
// holds once its informers synced the manifests, as sliceway's
// BenchmarkGatewayHeapAfterSync does (the fake clientsets' own copies
// counted in neither), and as renderer-MB the configuration it keeps
// between renders (lastConfiguration), measured once the statuses its
// renders write have settled. ns/op is the time to list and sync.
func BenchmarkSlicewayGatewayHeap(b *testing.B) {
	var heap, live, objects, kept float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		kube, gw := slicewayClientsets(b)
		base := slicewaybench.Heap()
		client := newClientImpl(kube, gw)
		stop := make(chan struct{})
		b.StartTimer()
		if _, err := client.WatchAll(nil, stop); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		synced := slicewaybench.Heap()
		heap += float64(synced.HeapInuse) - float64(base.HeapInuse)
		live += float64(synced.HeapAlloc) - float64(base.HeapAlloc)
		objects += float64(synced.HeapObjects) - float64(base.HeapObjects)
		conf := settledRender(b, slicewayProvider(client), gw)()
		with := slicewaybench.Heap()
		runtime.KeepAlive(conf)
		without := slicewaybench.Heap()
		kept += float64(with.HeapInuse) - float64(without.HeapInuse)
		close(stop)
	}
	n := float64(b.N)
	b.ReportMetric(heap/n/(1<<20), "heap-MB")
	b.ReportMetric(live/n/(1<<20), "live-MB")
	b.ReportMetric(objects/n/1e3, "kobjects")
	b.ReportMetric(kept/n/(1<<20), "renderer-MB")
}
