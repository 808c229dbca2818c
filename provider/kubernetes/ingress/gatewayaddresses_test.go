package ingress

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// With entry points at two addresses, each Gateway is given one: the
// one its spec.addresses ask for, else the one its status gives, else
// the address with fewer Gateways, in the order they were created. Its
// routes are served on that address's entry points alone, and its
// status.addresses say which; two Gateways' routes for the same path
// thus stay apart.
func TestGatewaysOnAddressesOfTheirOwn(t *testing.T) {
	p := &GatewayProvider{}
	p.SetDefaults()
	p.EntryPoints = map[string]*GatewayEntryPoint{
		"web-a": {Port: 80, Protocol: "HTTP", Address: "192.0.2.1"},
		"web-b": {Port: 80, Protocol: "HTTP", Address: "192.0.2.2"},
	}
	require.NoError(t, p.Init())

	snap := &gatewayTestSnapshot{Snapshot: testobjects.NewSnapshot(append(testobjects.Backend("infra", "one", "10.1.0.1"),
		testobjects.Backend("infra", "two", "10.1.0.2")...)...)}
	snap.classes = []*gatewayv1.GatewayClass{{ObjectMeta: metav1.ObjectMeta{Name: "sliceway"}, Spec: gatewayv1.GatewayClassSpec{ControllerName: DefaultGatewayControllerName}}}
	created := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	gw := func(name string, age int) *gatewayv1.Gateway {
		return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: name, CreationTimestamp: metav1.NewTime(created.Add(time.Duration(age) * time.Minute))},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: "sliceway", Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}}}}
	}
	first, second, asks, kept := gw("first", 0), gw("second", 1), gw("asks", 2), gw("kept", 3)
	asks.Spec.Addresses = []gatewayv1.GatewaySpecAddress{{Value: "192.0.2.1"}}
	kept.Status.Addresses = []gatewayv1.GatewayStatusAddress{{Value: "192.0.2.2"}}
	snap.gateways = []*gatewayv1.Gateway{second, kept, first, asks}
	port := gatewayv1.PortNumber(80)
	route := func(name, gateway, svc string) *gatewayv1.HTTPRoute {
		return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: name}, Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: gatewayv1.ObjectName(gateway)}}},
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(svc), Port: &port}}}}}},
		}}
	}
	snap.routes = []*gatewayv1.HTTPRoute{route("to-first", "first", "one"), route("to-second", "second", "two")}

	res, _ := NewRenderer(&p.Provider).Render(snap, nil)
	require.Empty(t, res.Errors)
	routers := res.Configuration.HTTP.Routers
	require.Equal(t, []string{"web-a"}, routers["httproute-infra-to-first-infra-first-http-r0-m0"].EntryPoints)
	require.Equal(t, []string{"web-b"}, routers["httproute-infra-to-second-infra-second-http-r0-m0"].EntryPoints)
	addresses := map[string]string{}
	for _, g := range outcomeOf(res).gateways {
		require.Len(t, g.Addresses, 1, g.Name)
		require.Equal(t, gatewayv1.IPAddressType, *g.Addresses[0].Type)
		addresses[g.Name] = g.Addresses[0].Value
	}
	// kept (status) and asks (spec) are placed first: one on each address;
	// then first, the older, takes the first address, second the other.
	require.Equal(t, map[string]string{"asks": "192.0.2.1", "kept": "192.0.2.2", "first": "192.0.2.1", "second": "192.0.2.2"}, addresses)
}

// An address on some entry points and not on others is refused: which
// Gateways the others would serve is not said.
func TestGatewayEntryPointAddressesAllOrNone(t *testing.T) {
	p := &GatewayProvider{}
	p.SetDefaults()
	p.EntryPoints["web"].Address = "192.0.2.1"
	require.ErrorContains(t, p.Validate(), "an address is set on some entry points and not on others")
	p.EntryPoints["websecure"].Address = "not-an-ip"
	require.ErrorContains(t, p.Validate(), `entryPoints.websecure.address: "not-an-ip": want an IP address`)
	p.EntryPoints["websecure"].Address = "192.0.2.1"
	require.NoError(t, p.Validate())
}
