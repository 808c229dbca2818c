package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestGrantAllows(t *testing.T) {
	// The reference of httproute-reference-grant: an HTTPRoute in the infra
	// namespace to the web-backend Service.
	from := ReferenceFrom{Group: GroupGateway, Kind: KindHTTPRoute, Namespace: infraNS}
	to := ReferenceTo{Group: "", Kind: KindService, Namespace: webNS, Name: "web-backend"}
	gw := "gateway.networking.k8s.io"

	tests := []struct {
		name  string
		grant *gatewayv1.ReferenceGrant
		allow bool
	}{
		{"the grant of the test", grant(webNS, gw, "HTTPRoute", infraNS, "", "Service", "web-backend"), true},
		{"name left out: every Service of the namespace", grant(webNS, gw, "HTTPRoute", infraNS, "", "Service", ""), true},
		// httproute-invalid-reference-grant: each grant wrong in one way.
		{"grant in the wrong namespace", grant(infraNS, gw, "HTTPRoute", infraNS, "", "Service", "web-backend"), false},
		{"wrong from group", grant(webNS, "not-the-group-youre-looking-for", "HTTPRoute", infraNS, "", "Service", "web-backend"), false},
		{"wrong from kind", grant(webNS, gw, "Gateway", infraNS, "", "Service", "web-backend"), false},
		{"wrong from namespace", grant(webNS, gw, "HTTPRoute", "not-the-namespace-youre-looking-for", "", "Service", "web-backend"), false},
		{"wrong to group", grant(webNS, gw, "HTTPRoute", infraNS, "not-the-group-youre-looking-for", "Service", "web-backend"), false},
		{"wrong to kind", grant(webNS, gw, "HTTPRoute", infraNS, "", "Secret", "web-backend"), false},
		{"wrong to name", grant(webNS, gw, "HTTPRoute", infraNS, "", "Service", "not-the-service-youre-looking-for"), false},
		{"no grant", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.allow, GrantAllows(tt.grant, from, to))
		})
	}
}

func TestGrantEntriesCombineWithOr(t *testing.T) {
	g := grant(webNS, "gateway.networking.k8s.io", "GRPCRoute", appNS, "", "Secret", "x")
	g.Spec.From = append(g.Spec.From, gatewayv1.ReferenceGrantFrom{Group: GroupGateway, Kind: KindHTTPRoute, Namespace: infraNS})
	name := gatewayv1.ObjectName("web-backend")
	g.Spec.To = append(g.Spec.To, gatewayv1.ReferenceGrantTo{Group: "", Kind: KindService, Name: &name})

	from := ReferenceFrom{Group: GroupGateway, Kind: KindHTTPRoute, Namespace: infraNS}
	require.True(t, GrantAllows(g, from, ReferenceTo{Kind: KindService, Namespace: webNS, Name: "web-backend"}))
	require.True(t, GrantAllows(g, from, ReferenceTo{Kind: KindSecret, Namespace: webNS, Name: "x"}),
		"any from entry with any to entry")
	require.False(t, GrantAllows(g, from, ReferenceTo{Kind: KindService, Namespace: webNS, Name: "other"}))
}

func TestGrantLookup(t *testing.T) {
	lookup := GrantLookup([]*gatewayv1.ReferenceGrant{
		nil,
		grant(webNS, "gateway.networking.k8s.io", "HTTPRoute", infraNS, "", "Service", ""),
		grant(appNS, "gateway.networking.k8s.io", "Gateway", infraNS, "", "Secret", "cert"),
	})
	route := ReferenceFrom{Group: GroupGateway, Kind: KindHTTPRoute, Namespace: infraNS}
	gateway := ReferenceFrom{Group: GroupGateway, Kind: KindGateway, Namespace: infraNS}
	require.True(t, lookup(route, ReferenceTo{Kind: KindService, Namespace: webNS, Name: "a"}))
	require.False(t, lookup(route, ReferenceTo{Kind: KindService, Namespace: appNS, Name: "a"}))
	require.True(t, lookup(gateway, ReferenceTo{Kind: KindSecret, Namespace: appNS, Name: "cert"}))
	require.False(t, lookup(gateway, ReferenceTo{Kind: KindSecret, Namespace: webNS, Name: "cert"}))
}

func TestReferencePermitted(t *testing.T) {
	same := ReferenceTo{Kind: KindService, Namespace: infraNS, Name: "a"}
	other := ReferenceTo{Kind: KindService, Namespace: webNS, Name: "a"}
	from := ReferenceFrom{Group: GroupGateway, Kind: KindHTTPRoute, Namespace: infraNS}
	require.True(t, Lookups{}.referencePermitted(from, same), "no grant needed within a namespace")
	require.False(t, Lookups{}.referencePermitted(from, other), "no lookup: nothing is granted")
	allowAll := Lookups{ReferencePermitted: func(ReferenceFrom, ReferenceTo) bool { return true }}
	require.True(t, allowAll.referencePermitted(from, other))
}
