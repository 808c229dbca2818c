package gateway

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
	"github.com/sliceway/sliceway/rule"
)

func grpcBackend(name string, weight int32) gatewayv1.GRPCBackendRef {
	return gatewayv1.GRPCBackendRef{BackendRef: backend(name, weight).BackendRef}
}

// A GRPCRoute's routers match its services and methods as request paths,
// and send to its backends over h2c: a service derived from each load
// balancer, which every gRPC route of that backend shares.
func TestGRPCRouteParts(t *testing.T) {
	w := newWorld(t)
	ns := gatewayv1.Namespace("infra")
	service, method := "grpc.health.v1.Health", "Check"
	route := &gatewayv1.GRPCRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "health"},
		Spec: gatewayv1.GRPCRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw", Namespace: &ns, SectionName: new(gatewayv1.SectionName("http"))}}},
			Hostnames:       []gatewayv1.Hostname{"grpc.example.com"},
			Rules: []gatewayv1.GRPCRouteRule{
				{Matches: []gatewayv1.GRPCRouteMatch{{Method: &gatewayv1.GRPCMethodMatch{Service: &service, Method: &method}}},
					BackendRefs: []gatewayv1.GRPCBackendRef{grpcBackend("web", 1)}},
				{BackendRefs: []gatewayv1.GRPCBackendRef{grpcBackend("web", 1), grpcBackend("api", 1)}},
			},
		},
	}
	view := attach.RouteFromGRPC(route)
	att := attach.AttachRoute(view, w.env().Gateway, w.look)
	bc := attach.CheckBackends(view, attach.GRPCRouteBackendRefs(route), w.look)
	bc.CheckMirrors(view, attach.GRPCRouteMirrorRefs(route), w.look)
	var p translate.Part
	require.Empty(t, GRPCRoute(w.env(), &p, route, &att, &bc))
	require.Empty(t, p.Errs)
	require.Equal(t, "GRPCRoute", p.Kind)
	require.Len(t, p.Routers, 2, "the http listener only (sectionName)")

	check := p.Routers[0].Config
	require.Equal(t, "shop-web-8080-h2c", check.Service)
	call := func(path string) bool {
		return rule.MustParse(check.Rule).MatchRequest(rule.NewRequest(httptest.NewRequest("POST", "http://grpc.example.com"+path, nil)))
	}
	require.True(t, call("/grpc.health.v1.Health/Check"))
	require.False(t, call("/grpc.health.v1.Health/Watch"))

	services := map[string]translate.NamedService{}
	for _, ns := range p.Services {
		services[ns.Name] = ns
	}
	h2c := services["shop-web-8080-h2c"]
	require.NotNil(t, h2c.Derive, "it follows its load balancer")
	require.Equal(t, "h2c://10.1.0.1:8080", h2c.Service.LoadBalancer.Servers[0].URL)
	require.Equal(t, "http://10.1.0.1:8080", h2c.Base.LoadBalancer.Servers[0].URL, "the load balancer is left as it is")
	weighted := services["grpcroute-shop-health-r1"].Service.Weighted.Services
	require.Equal(t, []string{"shop-web-8080-h2c", "shop-api-8080-h2c"}, []string{weighted[0].Name, weighted[1].Name})
}
