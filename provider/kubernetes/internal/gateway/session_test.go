package gateway

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
)

// A rule's sessionPersistence keeps sessions with Traefik's sticky
// cookies on services of the rule's own (the load balancers other rules
// share are left as they are): one backend's load balancer by the cookie;
// a weighted service by the cookie, each member by one of its own. A
// Permanent cookie lives absoluteTimeout; what Traefik cannot do (the
// Header type, a Session cookie the gateway would end) leaves the rule out.
func TestHTTPRouteSessionPersistence(t *testing.T) {
	w := newWorld(t)
	permanent := gatewayv1.PermanentCookieLifetimeType
	session := gatewayv1.SessionCookieLifetimeType
	route := shopRoute(
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/one"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			SessionPersistence: &gatewayv1.SessionPersistence{SessionName: new("cart")}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/two"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 3), backend("api", 1)},
			SessionPersistence: &gatewayv1.SessionPersistence{AbsoluteTimeout: new(gatewayv1.Duration("1h30m")),
				CookieConfig: &gatewayv1.CookieConfig{LifetimeType: &permanent}}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/plain"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/ends"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			SessionPersistence: &gatewayv1.SessionPersistence{AbsoluteTimeout: new(gatewayv1.Duration("10m")),
				CookieConfig: &gatewayv1.CookieConfig{LifetimeType: &session}}},
	)
	p, dropped := w.translate(t, route)
	require.Empty(t, p.Errs)
	require.Equal(t, []attach.DroppedRule{{Index: 3, Reason: gatewayv1.RouteReasonUnsupportedValue,
		Message: "spec.rules[3].sessionPersistence.absoluteTimeout: a Session cookie whose session the gateway ends after a time is not served: Traefik cannot end it (use lifetimeType Permanent)"}}, dropped)
	services, serviceOf := partServices(p), routerServices(p)
	root := "/"

	one := services[serviceOf["httproute-shop-cart-infra-gw-http-r0-m0"]]
	require.Equal(t, "httproute-shop-cart-r0-b0", serviceOf["httproute-shop-cart-infra-gw-http-r0-m0"], "a service of the rule's own")
	require.Equal(t, &dynamic.Sticky{Cookie: &dynamic.Cookie{Name: "cart", HTTPOnly: true, Path: &root}}, one.LoadBalancer.Sticky)
	require.Equal(t, "shop-web-8080", serviceOf["httproute-shop-cart-infra-gw-http-r2-m0"], "a rule without sessionPersistence")
	for _, r := range p.Routers {
		if r.Config.Service == "shop-web-8080" {
			require.Equal(t, r.Service.LoadBalancer.Servers, one.LoadBalancer.Servers, "the rule's own service has the servers")
			require.Nil(t, r.Service.LoadBalancer.Sticky, "the shared load balancer keeps no session")
		}
	}

	two := services[serviceOf["httproute-shop-cart-infra-gw-http-r1-m0"]]
	cookie := two.Weighted.Sticky.Cookie
	require.Regexp(t, `^_sw_[0-9a-f]{16}$`, cookie.Name, "a name of its own, which says nothing of the route")
	require.Equal(t, &dynamic.Cookie{Name: cookie.Name, HTTPOnly: true, Path: &root, MaxAge: 5400}, cookie)
	require.Len(t, two.Weighted.Services, 2)
	for i, m := range two.Weighted.Services {
		member := services[m.Name].LoadBalancer.Sticky.Cookie
		require.Equal(t, &dynamic.Cookie{Name: cookie.Name + "-" + string(rune('0'+i)), HTTPOnly: true, Path: &root, MaxAge: 5400}, member)
	}
}
