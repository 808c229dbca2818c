package ingress

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// gatewayBenchSnapshot is the generated cluster (clustergen) with, for
// each Service, an HTTPRoute of its own host to its port 80, attached to
// one Gateway of ours with an HTTP listener.
func gatewayBenchSnapshot(services int) *gatewayTestSnapshot {
	var objs []any
	for _, o := range clustergen.Cluster(services, benchEndpoints) {
		objs = append(objs, o)
	}
	snap := &gatewayTestSnapshot{Snapshot: testobjects.NewSnapshot(objs...)}
	snap.classes = []*gatewayv1.GatewayClass{{ObjectMeta: metav1.ObjectMeta{Name: "sliceway"},
		Spec: gatewayv1.GatewayClassSpec{ControllerName: DefaultGatewayControllerName}}}
	snap.gateways = []*gatewayv1.Gateway{{ObjectMeta: metav1.ObjectMeta{Namespace: clustergen.Namespace, Name: "edge"},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "sliceway",
			Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}}}}}
	port := gatewayv1.PortNumber(80)
	prefix, root := gatewayv1.PathMatchPathPrefix, "/"
	for i := range services {
		name := clustergen.Name(i)
		snap.routes = append(snap.routes, &gatewayv1.HTTPRoute{
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
	return snap
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
// last render, as the live path does after each change: what any change
// of a Gateway API object, a Service or an EndpointSlice costs the
// Gateway front end today (its renders are full ones).
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
