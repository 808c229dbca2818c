package integration_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

const rbacGatewayManifest = "../docs/manifests/rbac-gateway.yaml"

// The Gateway API provider on a real API server, with the Gateway API
// CRDs and what rbac.yaml and rbac-gateway.yaml grant and nothing more:
// an HTTPRoute attached to a Gateway of its class is served from its
// Service's EndpointSlice, the leader writes the status of the class, the
// Gateway and the route, an edit of the route is rendered again, and the
// token can read the routes and write their status but not change them.
func TestGatewayProviderOnTheAPIServer(t *testing.T) {
	cp := startControlPlane(t)
	installGatewayAPI(t, cp, standardChannel)
	applyFile(t, cp, rbacManifest)
	applyFile(t, cp, rbacGatewayManifest)
	require.NoError(t, cp.CreateNamespace(ctx, "shop"))
	createService(t, cp, "shop", "web", "")
	_, err := cp.Client().DiscoveryV1().EndpointSlices("shop").Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "shop", Name: "web-1", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(8080)), Protocol: new(corev1.ProtocolTCP)}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.40"}, Conditions: discoveryv1.EndpointConditions{Ready: new(true)}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	admin, err := gatewayclient.NewForConfig(cp.AdminConfig())
	require.NoError(t, err)
	// The CRDs were just created: their kinds come within seconds.
	require.Eventually(t, func() bool {
		_, err := admin.GatewayV1().GatewayClasses().Create(ctx, &gatewayv1.GatewayClass{
			ObjectMeta: metav1.ObjectMeta{Name: "sliceway"},
			Spec:       gatewayv1.GatewayClassSpec{ControllerName: ingress.DefaultGatewayControllerName},
		}, metav1.CreateOptions{})
		return err == nil
	}, time.Minute, 200*time.Millisecond)
	_, err = admin.GatewayV1().Gateways("shop").Create(ctx, &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "edge"},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "sliceway",
			Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	port := gatewayv1.PortNumber(80)
	_, err = admin.GatewayV1().HTTPRoutes("shop").Create(ctx, &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "shop"},
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge"}}},
			Hostnames:       []gatewayv1.Hostname{"shop.example.com"},
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: "web", Port: &port}}}}}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	gp := &ingress.GatewayProvider{}
	gp.SetDefaults()
	gp.Endpoint = cp.URL
	gp.Token = saToken(t, cp, "sliceway", "sliceway")
	gp.CertAuthFilePath = cp.CAFile
	gp.IngressEndpoint = &ingress.EndpointIngress{IP: "192.0.2.41"}
	gp.LeaderElection.LeaseNamespace = "sliceway"
	gp.LeaderElection.LeaseDuration = pduration(4 * time.Second)
	gp.LeaderElection.RenewDeadline = pduration(3 * time.Second)
	gp.LeaderElection.RetryPeriod = pduration(500 * time.Millisecond)
	run := runProviderOf(t, &gp.Provider, gp.Init, gp.Provide)
	const router = "httproute-shop-shop-shop-edge-http-r0-m0"
	cfg := run.waitFor(t, "the route's router", time.Minute, func(c *dynamic.Configuration) bool { return c.HTTP.Routers[router] != nil })
	require.Equal(t, `Host("shop.example.com") && PathPrefix("/")`, cfg.HTTP.Routers[router].Rule)
	require.Equal(t, "http://192.0.2.40:8080", cfg.HTTP.Services["shop-web-80"].LoadBalancer.Servers[0].URL)

	accepted := func(conds []metav1.Condition) bool {
		return meta.IsStatusConditionTrue(conds, "Accepted")
	}
	eventually(t, "the route's status", time.Minute, func() bool {
		r, err := admin.GatewayV1().HTTPRoutes("shop").Get(ctx, "shop", metav1.GetOptions{})
		return err == nil && len(r.Status.Parents) == 1 && accepted(r.Status.Parents[0].Conditions) &&
			meta.IsStatusConditionTrue(r.Status.Parents[0].Conditions, "ResolvedRefs")
	})
	g, err := admin.GatewayV1().Gateways("shop").Get(ctx, "edge", metav1.GetOptions{})
	require.NoError(t, err)
	require.True(t, accepted(g.Status.Conditions))
	require.True(t, meta.IsStatusConditionTrue(g.Status.Conditions, "Programmed"))
	require.Equal(t, int32(1), g.Status.Listeners[0].AttachedRoutes)
	class, err := admin.GatewayV1().GatewayClasses().Get(ctx, "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	require.True(t, accepted(class.Status.Conditions))

	route, err := admin.GatewayV1().HTTPRoutes("shop").Get(ctx, "shop", metav1.GetOptions{})
	require.NoError(t, err)
	route.Spec.Hostnames = []gatewayv1.Hostname{"www.example.com"}
	_, err = admin.GatewayV1().HTTPRoutes("shop").Update(ctx, route, metav1.UpdateOptions{})
	require.NoError(t, err)
	run.waitFor(t, "the edited hostname", time.Minute, func(c *dynamic.Configuration) bool {
		r := c.HTTP.Routers[router]
		return r != nil && r.Rule == `Host("www.example.com") && PathPrefix("/")`
	})

	sa, err := gatewayclient.NewForConfig(&rest.Config{Host: cp.URL, BearerToken: gp.Token, TLSClientConfig: rest.TLSClientConfig{CAFile: cp.CAFile}})
	require.NoError(t, err)
	_, err = sa.GatewayV1().HTTPRoutes("shop").Get(ctx, "shop", metav1.GetOptions{})
	require.NoError(t, err, "the token reads routes")
	require.True(t, apierrors.IsForbidden(sa.GatewayV1().HTTPRoutes("shop").Delete(ctx, "shop", metav1.DeleteOptions{})), "nor changes them")
}
