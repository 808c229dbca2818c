package gateway

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
)

// A rule's RequestMirror filters put Traefik's mirroring service in
// front of the rule's service: the routers name it, it answers with the
// rule's service and copies its share of the requests to each mirror's
// load balancer. A mirror whose backend does not resolve is left out
// (the route's ResolvedRefs says why) and the rule is served without it.
func TestHTTPRouteMirrors(t *testing.T) {
	w := newWorld(t)
	port := gatewayv1.PortNumber(8080)
	mirror := func(name string, percent int32) gatewayv1.HTTPRouteFilter {
		return gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterRequestMirror, RequestMirror: &gatewayv1.HTTPRequestMirrorFilter{
			BackendRef: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(name), Port: &port}, Percent: &percent}}
	}
	header := gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier,
		RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "X-Shop", Value: "cart"}}}}
	route := shopRoute(
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/a"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			Filters: []gatewayv1.HTTPRouteFilter{header, mirror("api", 20)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/b"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			Filters: []gatewayv1.HTTPRouteFilter{mirror("gone", 100)}},
	)
	p, dropped := w.translate(t, route)
	require.Empty(t, p.Errs)
	require.Empty(t, dropped)
	services := partServices(p)
	serviceOf := routerServices(p)
	require.Equal(t, "httproute-shop-cart-r0-mirror", serviceOf["httproute-shop-cart-infra-gw-http-r0-m0"])
	require.Equal(t, "httproute-shop-cart-r0-mirror", serviceOf["httproute-shop-cart-infra-gw-https-r0-m0"])
	require.Equal(t, &dynamic.Mirroring{Service: "shop-web-8080", Mirrors: []dynamic.MirrorService{{Name: "shop-api-8080", Percent: 20}}},
		services["httproute-shop-cart-r0-mirror"].Mirroring)
	require.NotNil(t, services["shop-web-8080"], "the mirrored service is the part's")
	require.NotNil(t, services["shop-api-8080"], "and so is the mirror's")
	require.Equal(t, "shop-web-8080", serviceOf["httproute-shop-cart-infra-gw-http-r1-m0"], "no usable mirror: the rule's service as it is")

	bc := attach.CheckBackends(attach.RouteFromHTTP(route), attach.HTTPRouteBackendRefs(route), w.look)
	bc.CheckMirrors(attach.RouteFromHTTP(route), attach.HTTPRouteMirrorRefs(route), w.look)
	require.False(t, bc.ResolvedRefs)
	require.Equal(t, gatewayv1.RouteReasonBackendNotFound, bc.Reason)
	require.Equal(t, "spec.rules[1].filters[0].requestMirror.backendRef: Service shop/gone not found", bc.Message)
}
