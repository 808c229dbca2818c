package ingress

import (
	"context"
	"fmt"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// gatewayBenchObjects are the Gateway API objects of the generated
// cluster (clustergen) of services Services: a GatewayClass of ours, one
// Gateway with an HTTP listener, and for each Service an HTTPRoute of its
// own host to its port 80.
func gatewayBenchObjects(services int) []k8sruntime.Object {
	objs := []k8sruntime.Object{
		&gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "sliceway"},
			Spec: gatewayv1.GatewayClassSpec{ControllerName: DefaultGatewayControllerName}},
		&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: clustergen.Namespace, Name: "edge"},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: "sliceway",
				Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}}}},
	}
	port := gatewayv1.PortNumber(80)
	prefix, root := gatewayv1.PathMatchPathPrefix, "/"
	for i := range services {
		name := clustergen.Name(i)
		objs = append(objs, &gatewayv1.HTTPRoute{
			ObjectMeta: metav1.ObjectMeta{Namespace: clustergen.Namespace, Name: name, CreationTimestamp: clustergen.Created(i)},
			Spec: gatewayv1.HTTPRouteSpec{
				CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge"}}},
				Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(fmt.Sprintf("%s.example.com", name))},
				Rules: []gatewayv1.HTTPRouteRule{{
					Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: &prefix, Value: &root}}},
					BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
						BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(name), Port: &port}}}},
				}},
			},
		})
	}
	return objs
}

// gatewayBenchSnapshot is the generated cluster with gatewayBenchObjects,
// in memory.
func gatewayBenchSnapshot(services int) *gatewayTestSnapshot {
	var objs []any
	for _, o := range clustergen.Cluster(services, benchEndpoints) {
		objs = append(objs, o)
	}
	snap := &gatewayTestSnapshot{Snapshot: testobjects.NewSnapshot(objs...)}
	for _, o := range gatewayBenchObjects(services) {
		switch o := o.(type) {
		case *gatewayv1.GatewayClass:
			snap.classes = append(snap.classes, o)
		case *gatewayv1.Gateway:
			snap.gateways = append(snap.gateways, o)
		case *gatewayv1.HTTPRoute:
			snap.routes = append(snap.routes, o)
		}
	}
	return snap
}

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
		cs := benchClientset(b, services)
		gw := newGatewayFake(b, gatewayBenchObjects(services)...)
		benchSliceChangeOf(b, cs, ClientOptions{Provider: &newGatewayProvider(b).Provider, Gateway: gw}, func(*Result) *discoveryv1.EndpointSlice {
			s, err := cs.DiscoveryV1().EndpointSlices(clustergen.Namespace).Get(context.Background(), clustergen.Name(services/2)+"-0", metav1.GetOptions{})
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
}

// BenchmarkGatewayRenderFull renders the Gateway front end's whole
// configuration with a new renderer: the first render.
func BenchmarkGatewayRenderFull(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		snap := gatewayBenchSnapshot(services)
		var res *Result
		b.ReportAllocs()
		for b.Loop() {
			res, _ = NewRenderer(&newGatewayProvider(b).Provider).Render(snap, nil)
		}
		if len(res.Errors) > 0 || len(res.Configuration.HTTP.Routers) != services {
			b.Fatalf("%d routers, %d errors (%v)", len(res.Configuration.HTTP.Routers), len(res.Errors), res.Errors)
		}
		reportSize(b, res.Configuration)
	})
}

// BenchmarkGatewayRenderAgain renders again with the renderer of the
// last render, as the live path does after a change it takes in full:
// one of a Gateway API object, a Service or a Secret.
func BenchmarkGatewayRenderAgain(b *testing.B) {
	forEachSize(b, func(b *testing.B, services int) {
		snap := gatewayBenchSnapshot(services)
		r := NewRenderer(&newGatewayProvider(b).Provider)
		res, _ := r.Render(snap, nil)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			res, _ = r.Render(snap, nil)
		}
		reportSize(b, res.Configuration)
	})
}
