package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// attachAll runs the attachment steps over routes and counts.
func attachAll(gws []Gateway, lookup GatewayLookup, look Lookups, routes ...Route) []RouteAttachment {
	atts := make([]RouteAttachment, len(routes))
	for i, r := range routes {
		atts[i] = AttachRoute(r, lookup, look)
	}
	ResolveKindConflicts(atts)
	CountAttachedRoutes(gws, atts)
	return atts
}

func attachedCounts(g Gateway) map[string]int32 {
	out := map[string]int32{}
	for _, l := range g.Listeners {
		out[string(l.Name)] = l.AttachedRoutes
	}
	return out
}

func TestCountAttachedRoutes(t *testing.T) {
	infraOnly := selector(&metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": infraNS}})
	gws, lookup := processAll(t, []*gatewayv1.Gateway{
		// gateway-with-attached-routes.
		gateway("gateway-with-one-attached-route", listener("http", 80, gatewayv1.HTTPProtocolType, kinds(KindHTTPRoute), infraOnly)),
		gateway("gateway-with-two-attached-routes",
			listener("http", 80, gatewayv1.HTTPProtocolType, host("foo.example.com"), kinds(KindHTTPRoute), infraOnly)),
		gateway("unresolved-gateway-with-one-attached-unresolved-route",
			listener("tls", 443, gatewayv1.HTTPSProtocolType, kinds(KindHTTPRoute), infraOnly, certs(secretRef("", "Secret", "", "does-not-exist")))),
		// gateway-with-attached-routes-with-port-8080.
		gateway("gateway-with-two-listeners-and-one-attached-route",
			listener("http-unattached", 8080, gatewayv1.HTTPProtocolType, kinds(KindHTTPRoute), from(gatewayv1.NamespacesFromAll)),
			listener("http", 80, gatewayv1.HTTPProtocolType, kinds(KindHTTPRoute), from(gatewayv1.NamespacesFromAll))),
		// httproute-hostname-intersection.
		conformanceGateways()[3],
	}, conformanceCluster().lookups())

	isect := func(name string, hosts ...string) Route {
		return route(KindHTTPRoute, infraNS, name, hosts, parentRef("httproute-hostname-intersection", infraNS, "", 0))
	}
	atts := attachAll(gws, lookup, conformanceCluster().lookups(),
		route(KindHTTPRoute, infraNS, "http-route-1", nil, parentRef("gateway-with-one-attached-route", infraNS, "", 0)),
		route(KindHTTPRoute, infraNS, "http-route-2", nil, parentRef("gateway-with-two-attached-routes", infraNS, "", 0)),
		route(KindHTTPRoute, infraNS, "http-route-3", nil, parentRef("gateway-with-two-attached-routes", infraNS, "", 0)),
		route(KindHTTPRoute, infraNS, "http-route-not-accepted", []string{"not-accepted.test.com"},
			parentRef("gateway-with-two-attached-routes", infraNS, "", 0)),
		route(KindHTTPRoute, infraNS, "http-route-4", nil,
			parentRef("unresolved-gateway-with-one-attached-unresolved-route", infraNS, "tls", 0)),
		route(KindHTTPRoute, infraNS, "http-route-4-port-8080", nil,
			parentRef("gateway-with-two-listeners-and-one-attached-route", infraNS, "http", 0)),
		isect("specific-host-matches-listener-specific-host", "non.matching.com", "*.nonmatchingwildcard.io", "very.specific.com"),
		isect("specific-host-matches-listener-wildcard-host", "non.matching.com", "wildcard.io", "foo.wildcard.io"),
		isect("wildcard-host-matches-listener-specific-host", "non.matching.com", "*.specific.com"),
		isect("wildcard-host-matches-listener-wildcard-host", "*.anotherwildcard.io"),
		isect("no-intersecting-hosts", "specific.but.wrong.com", "wildcard.io"),
		// One route reaching one listener through two parentRefs counts once.
		route(KindHTTPRoute, infraNS, "twice", nil,
			parentRef("gateway-with-one-attached-route", infraNS, "", 0),
			parentRef("gateway-with-one-attached-route", infraNS, "http", 0)),
	)
	require.Equal(t, gatewayv1.RouteReasonNoMatchingListenerHostname, atts[3].Parents[0].Reason)

	counts := []map[string]int32{
		{"http": 2},
		{"http": 2},
		{"tls": 1}, // counted although the listener is not programmed
		{"http-unattached": 0, "http": 1},
		{"listener-1": 2, "listener-2": 1, "listener-3": 1},
	}
	for i, g := range gws {
		require.Equalf(t, counts[i], attachedCounts(g), "Gateway %s", g.Name)
	}
	tls := mustListener(t, &gws[2], "tls")
	require.False(t, tls.Programmed)
	requireConditions(t, tls.Conditions, gwGen, want{"ResolvedRefs", condFalse, "InvalidCertificateRef"}, want{"Programmed", condFalse, "Invalid"})
}

func TestCountAttachedRoutesRecounts(t *testing.T) {
	gws, lookup := processAll(t, []*gatewayv1.Gateway{conformanceGateways()[0]}, Lookups{})
	r := route(KindHTTPRoute, infraNS, "r", nil, parentRef("same-namespace", "", "", 0))
	attachAll(gws, lookup, Lookups{}, r)
	require.Equal(t, int32(1), gws[0].Listeners[0].AttachedRoutes)
	attachAll(gws, lookup, Lookups{})
	require.Equal(t, int32(0), gws[0].Listeners[0].AttachedRoutes, "a count is set, not added to")
}

// RecountAttachedRoutes after a change gives what counting all routes
// gives, and leaves the Gateways it was given as they were.
func TestRecountAttachedRoutes(t *testing.T) {
	gws, lookup := processAll(t, conformanceGateways(), Lookups{})
	all := parentRef("all-namespaces", infraNS, "", 0)
	one := route(KindHTTPRoute, infraNS, "one", nil, all, parentRef("same-namespace", "", "", 0))
	two := route(KindHTTPRoute, infraNS, "two", nil, all, all) // two parentRefs to one listener count once
	before := attachAll(gws, lookup, Lookups{}, one, two)
	was := attachedCounts(gws[1])
	require.Equal(t, map[string]int32{"http": 2}, was)

	moved := route(KindHTTPRoute, infraNS, "two", nil, parentRef("same-namespace", "", "", 0))
	after := AttachRoute(moved, lookup, Lookups{})
	got := RecountAttachedRoutes(gws, []*RouteAttachment{&before[1]}, []*RouteAttachment{&after})
	require.Equal(t, was, attachedCounts(gws[1]), "the Gateways given are not modified")

	want, _ := processAll(t, conformanceGateways(), Lookups{})
	attachAll(want, lookup, Lookups{}, one, moved)
	for i := range want {
		require.Equalf(t, attachedCounts(want[i]), attachedCounts(got[i]), "Gateway %s", want[i].Name)
	}
	require.Same(t, &gws[0], &RecountAttachedRoutes(gws, nil, nil)[0], "no change, no copy")
}

func TestCountAttachedRoutesSkipsRefusedParents(t *testing.T) {
	// Only accepted parents count, even if a caller's attachment still
	// lists listeners on a refused one.
	gws, _ := processAll(t, []*gatewayv1.Gateway{conformanceGateways()[0]}, Lookups{})
	att := RouteAttachment{Route: route(KindHTTPRoute, infraNS, "r", nil), Parents: []ParentAttachment{{
		GatewayNamespace: infraNS, GatewayName: "same-namespace", Accepted: false,
		Listeners: []ListenerAttachment{{Listener: "http"}},
	}}}
	CountAttachedRoutes(gws, []RouteAttachment{att})
	require.Equal(t, int32(0), gws[0].Listeners[0].AttachedRoutes)
	att.Parents[0].Accepted = true
	CountAttachedRoutes(gws, []RouteAttachment{att})
	require.Equal(t, int32(1), gws[0].Listeners[0].AttachedRoutes)
}
