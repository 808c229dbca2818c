package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// gatewayTestSnapshot is the in-memory snapshot of the tests with Gateway
// API objects beside.
type gatewayTestSnapshot struct {
	*testobjects.Snapshot
	classes    []*gatewayv1.GatewayClass
	gateways   []*gatewayv1.Gateway
	routes     []*gatewayv1.HTTPRoute
	grpcs      []*gatewayv1.GRPCRoute
	grants     []*gatewayv1.ReferenceGrant
	namespaces map[string]*corev1.Namespace
}

func (s *gatewayTestSnapshot) GatewayClasses() []*gatewayv1.GatewayClass    { return s.classes }
func (s *gatewayTestSnapshot) Gateways() []*gatewayv1.Gateway               { return s.gateways }
func (s *gatewayTestSnapshot) HTTPRoutes() []*gatewayv1.HTTPRoute           { return s.routes }
func (s *gatewayTestSnapshot) GRPCRoutes() []*gatewayv1.GRPCRoute           { return s.grpcs }
func (s *gatewayTestSnapshot) ReferenceGrants() []*gatewayv1.ReferenceGrant { return s.grants }
func (s *gatewayTestSnapshot) Namespace(name string) *corev1.Namespace      { return s.namespaces[name] }

func newGatewayProvider(t testing.TB) *GatewayProvider {
	t.Helper()
	p := &GatewayProvider{}
	p.SetDefaults()
	p.IngressEndpoint = &EndpointIngress{IP: "192.0.2.10"}
	require.NoError(t, p.Init())
	return p
}

// A Gateway of ours with an HTTP and an HTTPS listener and an HTTPRoute
// attached to both render as Traefik serves them: a router per listener
// on its entry point (the HTTPS one with tls and the listener's
// certificate), the Service's load balancer from its EndpointSlices, and
// priorities that rank an exact path above a prefix. A route of another
// controller's Gateway, an Ingress, and a route attached to nothing of
// ours give nothing.
func TestGatewayProviderRendersHTTPRoutes(t *testing.T) {
	crt, key := testobjects.SelfSignedPEM(t)
	objs := append(testobjects.Backend("shop", "web", "10.1.0.1"),
		testobjects.TLSSecret("infra", "shop-cert", crt, key),
		testobjects.NewIngress("shop", "legacy", testobjects.WithPath("shop.example.com", "/", "web", 80, "")))
	snap := &gatewayTestSnapshot{Snapshot: testobjects.NewSnapshot(objs...)}
	snap.classes = []*gatewayv1.GatewayClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "sliceway"}, Spec: gatewayv1.GatewayClassSpec{ControllerName: DefaultGatewayControllerName}},
		{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Spec: gatewayv1.GatewayClassSpec{ControllerName: "example.com/other"}},
	}
	all := gatewayv1.NamespacesFromAll
	allowed := &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}}
	ns := gatewayv1.Namespace("infra")
	snap.gateways = []*gatewayv1.Gateway{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "sliceway", Listeners: []gatewayv1.Listener{
			{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: allowed},
			{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, AllowedRoutes: allowed,
				TLS: &gatewayv1.ListenerTLSConfig{CertificateRefs: []gatewayv1.SecretObjectReference{{Name: "shop-cert"}}}},
		}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "theirs"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "other", Listeners: []gatewayv1.Listener{
			{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: allowed},
		}}},
	}
	port := gatewayv1.PortNumber(80)
	ref := []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "web", Port: &port}}}}
	exact, prefix := gatewayv1.PathMatchExact, gatewayv1.PathMatchPathPrefix
	login, root := "/login", "/"
	route := func(name, gw string) *gatewayv1.HTTPRoute {
		return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: gatewayv1.ObjectName(gw), Namespace: &ns}}},
			Hostnames:       []gatewayv1.Hostname{"shop.example.com"},
			Rules: []gatewayv1.HTTPRouteRule{
				{Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: &prefix, Value: &root}}}, BackendRefs: ref},
				{Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: &exact, Value: &login}}}, BackendRefs: ref},
			},
		}}
	}
	snap.routes = []*gatewayv1.HTTPRoute{route("shop", "gw"), route("elsewhere", "theirs"), route("nowhere", "missing")}
	snap.grpcs = []*gatewayv1.GRPCRoute{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "rpc"}, Spec: gatewayv1.GRPCRouteSpec{
		CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw", Namespace: &ns}}},
		Hostnames:       []gatewayv1.Hostname{"rpc.example.com"},
		Rules:           []gatewayv1.GRPCRouteRule{{BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: ref[0].BackendRef}}}},
	}}}

	res, _ := NewRenderer(&newGatewayProvider(t).Provider).Render(snap, nil)
	require.Empty(t, res.Errors)
	require.Empty(t, res.Ingresses, "the Gateway provider serves no Ingress")
	h := res.Configuration.HTTP
	require.Len(t, h.Routers, 6, "two rules of the HTTPRoute and one of the GRPCRoute, on two listeners")
	require.Equal(t, "shop-web-80-h2c", h.Routers["grpcroute-shop-rpc-infra-gw-http-r0-m0"].Service)
	require.Equal(t, "h2c://10.1.0.1:8080", h.Services["shop-web-80-h2c"].LoadBalancer.Servers[0].URL)
	rootHTTP := h.Routers["httproute-shop-shop-infra-gw-http-r0-m0"]
	loginHTTP := h.Routers["httproute-shop-shop-infra-gw-http-r1-m0"]
	loginHTTPS := h.Routers["httproute-shop-shop-infra-gw-https-r1-m0"]
	require.NotNil(t, rootHTTP)
	require.NotNil(t, loginHTTP)
	require.NotNil(t, loginHTTPS)
	require.Equal(t, []string{"web"}, loginHTTP.EntryPoints)
	require.Equal(t, []string{"websecure"}, loginHTTPS.EntryPoints)
	require.Nil(t, loginHTTP.TLS)
	require.NotNil(t, loginHTTPS.TLS)
	require.Greater(t, loginHTTP.Priority, rootHTTP.Priority, "the exact path is tried first")
	require.Positive(t, rootHTTP.Priority)
	require.Equal(t, "shop-web-80", loginHTTP.Service)
	require.Equal(t, "http://10.1.0.1:8080", h.Services["shop-web-80"].LoadBalancer.Servers[0].URL)
	require.Len(t, res.Configuration.TLS.Certificates, 1, "the HTTPS listener's certificate")
}

// A listener whose certificate Secret holds no usable key pair (not PEM,
// as the conformance suite's malformed Secret) is refused, its
// ResolvedRefs false with reason InvalidCertificateRef, and nothing is
// served on it; the Gateway's other listener is served.
func TestGatewayListenerWithAMalformedCertificate(t *testing.T) {
	malformed := testobjects.TLSSecret("infra", "bad-cert", []byte("Hello world\n"), []byte("Hello world\n"))
	snap := &gatewayTestSnapshot{Snapshot: testobjects.NewSnapshot(append(testobjects.Backend("infra", "web", "10.1.0.1"), malformed)...)}
	snap.classes = []*gatewayv1.GatewayClass{{ObjectMeta: metav1.ObjectMeta{Name: "sliceway"}, Spec: gatewayv1.GatewayClassSpec{ControllerName: DefaultGatewayControllerName}}}
	snap.gateways = []*gatewayv1.Gateway{{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "sliceway", Listeners: []gatewayv1.Listener{
		{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType},
		{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType,
			TLS: &gatewayv1.ListenerTLSConfig{CertificateRefs: []gatewayv1.SecretObjectReference{{Name: "bad-cert"}}}},
	}}}}
	port := gatewayv1.PortNumber(80)
	snap.routes = []*gatewayv1.HTTPRoute{{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "web"}, Spec: gatewayv1.HTTPRouteSpec{
		CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw"}}},
		Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
			BackendObjectReference: gatewayv1.BackendObjectReference{Name: "web", Port: &port}}}}}},
	}}}

	res, _ := NewRenderer(&newGatewayProvider(t).Provider).Render(snap, nil)
	require.Len(t, res.Configuration.HTTP.Routers, 1, "the HTTP listener's router alone")
	require.Contains(t, res.Configuration.HTTP.Routers, "httproute-infra-web-infra-gw-http-r0-m0")
	if tls := res.Configuration.TLS; tls != nil {
		require.Empty(t, tls.Certificates)
	}
	require.Len(t, outcomeOf(res).gateways, 1)
	https := outcomeOf(res).gateways[0].Listeners[1]
	require.False(t, https.Programmed)
	cond := meta.FindStatusCondition(https.Conditions, string(gatewayv1.ListenerConditionResolvedRefs))
	require.NotNil(t, cond)
	require.Equal(t, metav1.ConditionFalse, cond.Status)
	require.Equal(t, string(gatewayv1.ListenerReasonInvalidCertificateRef), cond.Reason)
	require.Contains(t, cond.Message, "infra/bad-cert")
}
