package ingress

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	ptypes "github.com/traefik/paerser/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// The Gateway provider, run as a proxy runs it (Provide), watches the
// Gateway API objects and sends their configuration: an HTTPRoute attached
// to our Gateway routes to its Service's endpoints, and an edit of the
// route's spec is rendered again. It writes their status: the class
// accepted, the Gateway accepted and programmed at its address with one
// route attached to its listener, the route accepted by its parent with
// its references resolved.
func TestGatewayProviderProvides(t *testing.T) {
	core := []k8sruntime.Object{}
	crt, key := testobjects.SelfSignedPEM(t)
	for _, o := range append(testobjects.Backend("shop", "web", "10.1.0.1"), gatewayTestNamespaces()[0], testobjects.TLSSecret("shop", "edge-cert", crt, key)) {
		core = append(core, o.(k8sruntime.Object))
	}
	cs := fake.NewClientset(core...)
	port := gatewayv1.PortNumber(80)
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", ResourceVersion: "1", Generation: 1},
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge"}}},
			Hostnames:       []gatewayv1.Hostname{"web.example"},
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: "web", Port: &port}}}}}},
		}}
	gw := newGatewayFake(t,
		&gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "sliceway", ResourceVersion: "1"},
			Spec: gatewayv1.GatewayClassSpec{ControllerName: DefaultGatewayControllerName}},
		&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "edge", ResourceVersion: "1"},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: "sliceway",
				Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType},
					{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType,
						TLS: &gatewayv1.ListenerTLSConfig{CertificateRefs: []gatewayv1.SecretObjectReference{{Name: "edge-cert"}}}}}}},
		route)

	gp := &GatewayProvider{}
	gp.SetDefaults()
	gp.SyncTimeout = ptypes.Duration(5 * time.Second)
	gp.LeaderElection.Disabled = true
	gp.IngressEndpoint = &EndpointIngress{IP: "192.0.2.50"}
	gp.SetGatewayClientset(gw)
	lp := runLive(t, cs, &gp.Provider, GatewayProviderName, gp.Init, gp.Provide)

	const router = "httproute-shop-web-shop-edge-http-r0-m0"
	conf, _ := lp.nextUntil("the route's router", func(c *dynamic.Configuration) bool { return c.HTTP.Routers[router] != nil })
	require.Equal(t, []string{"web"}, conf.HTTP.Routers[router].EntryPoints)
	require.Equal(t, "http://10.1.0.1:8080", conf.HTTP.Services["shop-web-80"].LoadBalancer.Servers[0].URL)
	// The listener's certificate Secret keeps its data in the cache, as
	// an Ingress's does: the HTTPS listener is served with it.
	if c := conf; c.HTTP.Routers["httproute-shop-web-shop-edge-https-r0-m0"] == nil || c.TLS == nil || len(c.TLS.Certificates) != 1 {
		conf, _ = lp.nextUntil("the HTTPS listener's router and certificate", func(c *dynamic.Configuration) bool {
			return c.HTTP.Routers["httproute-shop-web-shop-edge-https-r0-m0"] != nil && c.TLS != nil && len(c.TLS.Certificates) == 1
		})
	}
	require.NotNil(t, conf.HTTP.Routers["httproute-shop-web-shop-edge-https-r0-m0"].TLS)

	condition := func(conds []metav1.Condition, t string) metav1.ConditionStatus {
		for _, c := range conds {
			if c.Type == t {
				return c.Status
			}
		}
		return ""
	}
	require.Eventually(t, func() bool {
		r, err := gw.GatewayV1().HTTPRoutes("shop").Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil || len(r.Status.Parents) != 1 {
			return false
		}
		p := r.Status.Parents[0]
		return p.ControllerName == DefaultGatewayControllerName && condition(p.Conditions, "Accepted") == metav1.ConditionTrue &&
			condition(p.Conditions, "ResolvedRefs") == metav1.ConditionTrue
	}, 10*time.Second, 20*time.Millisecond, "the route's status")
	g, err := gw.GatewayV1().Gateways("shop").Get(context.Background(), "edge", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, metav1.ConditionTrue, condition(g.Status.Conditions, "Accepted"))
	require.Equal(t, metav1.ConditionTrue, condition(g.Status.Conditions, "Programmed"))
	require.Equal(t, "192.0.2.50", g.Status.Addresses[0].Value)
	require.Len(t, g.Status.Listeners, 2)
	require.Equal(t, int32(1), g.Status.Listeners[0].AttachedRoutes)
	require.Equal(t, int32(1), g.Status.Listeners[1].AttachedRoutes)
	class, err := gw.GatewayV1().GatewayClasses().Get(context.Background(), "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, metav1.ConditionTrue, condition(class.Status.Conditions, "Accepted"))

	edited := route.DeepCopy()
	edited.Spec.Hostnames = []gatewayv1.Hostname{"www.example"}
	edited.ResourceVersion, edited.Generation = "2", 2
	_, err = gw.GatewayV1().HTTPRoutes("shop").Update(context.Background(), edited, metav1.UpdateOptions{})
	require.NoError(t, err)
	lp.nextUntil("the edited hostname", func(c *dynamic.Configuration) bool {
		rt := c.HTTP.Routers[router]
		return rt != nil && rt.Rule == `Host("www.example") && PathPrefix("/")`
	})
}
