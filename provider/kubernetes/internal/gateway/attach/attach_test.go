package attach

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The Gateways of the conformance suite that routes attach to.
func conformanceGateways() []*gatewayv1.Gateway {
	return []*gatewayv1.Gateway{
		gateway("same-namespace", listener("http", 80, gatewayv1.HTTPProtocolType, from(gatewayv1.NamespacesFromSame))),
		gateway("all-namespaces", listener("http", 80, gatewayv1.HTTPProtocolType, from(gatewayv1.NamespacesFromAll))),
		gateway("backend-namespaces", listener("http", 80, gatewayv1.HTTPProtocolType,
			selector(&metav1.LabelSelector{MatchLabels: map[string]string{"gateway-conformance": "backend"}}))),
		gateway("httproute-hostname-intersection",
			listener("listener-1", 80, gatewayv1.HTTPProtocolType, from(gatewayv1.NamespacesFromSame), host("very.specific.com")),
			listener("listener-2", 80, gatewayv1.HTTPProtocolType, from(gatewayv1.NamespacesFromSame), host("*.wildcard.io")),
			listener("listener-3", 80, gatewayv1.HTTPProtocolType, from(gatewayv1.NamespacesFromSame), host("*.anotherwildcard.io"))),
		gateway("httproute-listener-port-matching",
			listener("listener-1", 80, gatewayv1.HTTPProtocolType, host("foo.com")),
			listener("listener-2", 8080, gatewayv1.HTTPProtocolType, host("foo.com")),
			listener("listener-3", 8080, gatewayv1.HTTPProtocolType, host("bar.com")),
			listener("listener-4", 8090, gatewayv1.HTTPProtocolType, host("foo.com")),
			listener("listener-5", 8090, gatewayv1.HTTPProtocolType, host("bar.com"))),
		gateway("httproute-listener-hostname-matching",
			listener("listener-1", 80, gatewayv1.HTTPProtocolType, host("bar.com")),
			listener("listener-2", 80, gatewayv1.HTTPProtocolType, host("foo.bar.com")),
			listener("listener-3", 80, gatewayv1.HTTPProtocolType, host("*.bar.com")),
			listener("listener-4", 80, gatewayv1.HTTPProtocolType, host("*.foo.com"))),
		gateway("gateway-with-one-not-matching-port-and-section-name-route",
			listener("http", 80, gatewayv1.HTTPProtocolType, kinds(KindHTTPRoute), from(gatewayv1.NamespacesFromAll))),
		gateway("http-only", listener("http", 80, gatewayv1.HTTPProtocolType, kinds(KindHTTPRoute), from(gatewayv1.NamespacesFromAll))),
		gateway("refuses-all", listener("http", 80, gatewayv1.HTTPProtocolType, from(gatewayv1.NamespacesFromNone))),
	}
}

// processAll processes gws and returns them with a lookup over them.
func processAll(t *testing.T, gws []*gatewayv1.Gateway, look Lookups) ([]Gateway, GatewayLookup) {
	t.Helper()
	out := make([]Gateway, 0, len(gws))
	for _, gw := range gws {
		out = append(out, processed(t, gw, testOptions(), look))
	}
	return out, func(namespace, name string) *Gateway {
		for i := range out {
			if out[i].Namespace == namespace && out[i].Name == name {
				return &out[i]
			}
		}
		return nil
	}
}

func parentRef(name, namespace, section string, port int32) gatewayv1.ParentReference {
	r := gatewayv1.ParentReference{Name: gatewayv1.ObjectName(name)}
	if namespace != "" {
		ns := gatewayv1.Namespace(namespace)
		r.Namespace = &ns
	}
	if section != "" {
		s := gatewayv1.SectionName(section)
		r.SectionName = &s
	}
	if port != 0 {
		r.Port = &port
	}
	return r
}

func route(kind gatewayv1.Kind, namespace, name string, hosts []string, refs ...gatewayv1.ParentReference) Route {
	return Route{Kind: kind, Namespace: namespace, Name: name, Generation: 7, Hostnames: hostnames(hosts...), ParentRefs: refs}
}

// attached is an expected listener attachment: listener name and hostnames.
type attached struct {
	listener string
	hosts    []string
}

func TestAttachRoute(t *testing.T) {
	tests := []struct {
		name      string
		route     Route
		accepted  bool
		reason    gatewayv1.RouteConditionReason
		listeners []attached
	}{
		{
			name:     "same namespace, no hostnames: every host",
			route:    route(KindHTTPRoute, infraNS, "r", nil, parentRef("same-namespace", "", "", 0)),
			accepted: true, reason: "Accepted", listeners: []attached{{"http", nil}},
		},
		{
			// httproute-invalid-cross-namespace-parent-ref.
			name:     "another namespace on a Same listener",
			route:    route(KindHTTPRoute, webNS, "invalid-cross-namespace-parent-ref", nil, parentRef("same-namespace", infraNS, "", 0)),
			accepted: false, reason: "NotAllowedByListeners",
		},
		{
			// httproute-cross-namespace.
			name:     "a namespace the selector picks",
			route:    route(KindHTTPRoute, webNS, "cross-namespace", nil, parentRef("backend-namespaces", infraNS, "", 0)),
			accepted: true, reason: "Accepted", listeners: []attached{{"http", nil}},
		},
		{
			name:     "a namespace the selector does not pick",
			route:    route(KindHTTPRoute, infraNS, "r", nil, parentRef("backend-namespaces", "", "", 0)),
			accepted: false, reason: "NotAllowedByListeners",
		},
		{
			name:     "From All",
			route:    route(KindGRPCRoute, appNS, "r", nil, parentRef("all-namespaces", infraNS, "", 0)),
			accepted: true, reason: "Accepted", listeners: []attached{{"http", nil}},
		},
		{
			name:     "From None admits nothing",
			route:    route(KindHTTPRoute, infraNS, "r", nil, parentRef("refuses-all", "", "", 0)),
			accepted: false, reason: "NotAllowedByListeners",
		},
		{
			name:     "a kind the listener does not allow",
			route:    route(KindGRPCRoute, infraNS, "r", nil, parentRef("http-only", "", "", 0)),
			accepted: false, reason: "NotAllowedByListeners",
		},
		{
			// httproute-invalid-parentref-not-matching-listener-port.
			name:     "a port no listener has",
			route:    route(KindHTTPRoute, infraNS, "r", nil, parentRef("same-namespace", infraNS, "", 81)),
			accepted: false, reason: "NoMatchingParent",
		},
		{
			// httproute-invalid-parentref-not-matching-section-name.
			name:     "a section name no listener has",
			route:    route(KindHTTPRoute, infraNS, "r", nil, parentRef("same-namespace", infraNS, "http1", 80)),
			accepted: false, reason: "NoMatchingParent",
		},
		{
			// httproute-invalid-parentref-section-name-not-matching-port.
			name: "a section name whose listener has another port",
			route: route(KindHTTPRoute, infraNS, "r", nil,
				parentRef("gateway-with-one-not-matching-port-and-section-name-route", infraNS, "http", 81)),
			accepted: false, reason: "NoMatchingParent",
		},
		{
			// httproute-listener-port-matching, backend-v2: a port picks
			// every listener on it.
			name:     "a port selects all its listeners",
			route:    route(KindHTTPRoute, infraNS, "backend-v2", nil, parentRef("httproute-listener-port-matching", infraNS, "", 8080)),
			accepted: true, reason: "Accepted", listeners: []attached{{"listener-2", []string{"foo.com"}}, {"listener-3", []string{"bar.com"}}},
		},
		{
			// backend-v3: port and section name together.
			name: "port and section name together",
			route: route(KindHTTPRoute, infraNS, "backend-v3", nil,
				parentRef("httproute-listener-port-matching", infraNS, "listener-4", 8090)),
			accepted: true, reason: "Accepted", listeners: []attached{{"listener-4", []string{"foo.com"}}},
		},
		{
			// httproute-listener-hostname-matching, backend-v1.
			name: "a section name picks one listener and takes its hostname",
			route: route(KindHTTPRoute, infraNS, "backend-v1", nil,
				parentRef("httproute-listener-hostname-matching", infraNS, "listener-1", 0)),
			accepted: true, reason: "Accepted", listeners: []attached{{"listener-1", []string{"bar.com"}}},
		},
		{
			// httproute-hostname-intersection.
			name: "hostnames pick listeners: precise",
			route: route(KindHTTPRoute, infraNS, "specific-host-matches-listener-specific-host",
				[]string{"non.matching.com", "*.nonmatchingwildcard.io", "very.specific.com"},
				parentRef("httproute-hostname-intersection", infraNS, "", 0)),
			accepted: true, reason: "Accepted", listeners: []attached{{"listener-1", []string{"very.specific.com"}}},
		},
		{
			name: "hostnames pick listeners: under a wildcard listener",
			route: route(KindHTTPRoute, infraNS, "specific-host-matches-listener-wildcard-host",
				[]string{"non.matching.com", "wildcard.io", "foo.wildcard.io", "bar.wildcard.io", "foo.bar.wildcard.io"},
				parentRef("httproute-hostname-intersection", infraNS, "", 0)),
			accepted: true, reason: "Accepted",
			listeners: []attached{{"listener-2", []string{"foo.wildcard.io", "bar.wildcard.io", "foo.bar.wildcard.io"}}},
		},
		{
			name: "hostnames pick listeners: a wildcard route over a precise listener",
			route: route(KindHTTPRoute, infraNS, "wildcard-host-matches-listener-specific-host",
				[]string{"non.matching.com", "*.specific.com"}, parentRef("httproute-hostname-intersection", infraNS, "", 0)),
			accepted: true, reason: "Accepted", listeners: []attached{{"listener-1", []string{"very.specific.com"}}},
		},
		{
			name: "hostnames pick listeners: equal wildcards",
			route: route(KindHTTPRoute, infraNS, "wildcard-host-matches-listener-wildcard-host",
				[]string{"*.anotherwildcard.io"}, parentRef("httproute-hostname-intersection", infraNS, "", 0)),
			accepted: true, reason: "Accepted", listeners: []attached{{"listener-3", []string{"*.anotherwildcard.io"}}},
		},
		{
			name: "no hostname meets any listener's",
			route: route(KindHTTPRoute, infraNS, "no-intersecting-hosts",
				[]string{"specific.but.wrong.com", "wildcard.io"}, parentRef("httproute-hostname-intersection", infraNS, "", 0)),
			accepted: false, reason: "NoMatchingListenerHostname",
		},
		{
			name: "a route from another namespace is refused before its hostnames are looked at",
			route: route(KindHTTPRoute, webNS, "r", []string{"wrong.com"},
				parentRef("httproute-hostname-intersection", infraNS, "", 0)),
			accepted: false, reason: "NotAllowedByListeners",
		},
	}
	_, lookup := processAll(t, conformanceGateways(), conformanceCluster().lookups())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			att := AttachRoute(tt.route, lookup, conformanceCluster().lookups())
			require.Len(t, att.Parents, 1)
			p := att.Parents[0]
			require.Equal(t, tt.accepted, p.Accepted)
			require.Equal(t, tt.reason, p.Reason)
			require.NotEmpty(t, p.Message)
			var got []attached
			for _, la := range p.Listeners {
				var hs []string
				for _, h := range la.Hostnames {
					hs = append(hs, string(h))
				}
				got = append(got, attached{string(la.Listener), hs})
				require.True(t, la.Programmed)
				require.NotEmpty(t, la.EntryPoint)
			}
			require.Equal(t, tt.listeners, got)
		})
	}
}

func TestAttachRouteParents(t *testing.T) {
	_, lookup := processAll(t, conformanceGateways(), conformanceCluster().lookups())
	serviceGroup, serviceKind := gatewayv1.Group(""), gatewayv1.Kind("Service")
	meshParent := gatewayv1.ParentReference{Group: &serviceGroup, Kind: &serviceKind, Name: "mesh-svc"}
	otherGroup := gatewayv1.Group("example.com")
	foreignGateway := gatewayv1.ParentReference{Group: &otherGroup, Name: "same-namespace"}

	// httproute-listener-hostname-matching, backend-v3: two parentRefs to
	// one Gateway, each picking a listener; and refs that are not ours.
	r := route(KindHTTPRoute, infraNS, "backend-v3", nil,
		meshParent,
		parentRef("httproute-listener-hostname-matching", infraNS, "listener-3", 0),
		parentRef("missing-gateway", "", "", 0),
		foreignGateway,
		parentRef("httproute-listener-hostname-matching", infraNS, "listener-4", 0))
	att := AttachRoute(r, lookup, Lookups{})
	require.Len(t, att.Parents, 2, "only parentRefs to our Gateways get an entry")

	require.Equal(t, 1, att.Parents[0].Index)
	require.Equal(t, 4, att.Parents[1].Index)
	require.Equal(t, gatewayv1.SectionName("listener-3"), att.Parents[0].Listeners[0].Listener)
	require.Equal(t, hostnames("*.bar.com"), att.Parents[0].Listeners[0].Hostnames)
	require.Equal(t, hostnames("*.foo.com"), att.Parents[1].Listeners[0].Hostnames)

	// The status parentRef has group, kind and namespace filled in, as the
	// conformance suite compares them.
	ref := att.Parents[0].ParentRef
	require.Equal(t, GroupGateway, *ref.Group)
	require.Equal(t, KindGateway, *ref.Kind)
	require.Equal(t, gatewayv1.Namespace(infraNS), *ref.Namespace)
	require.Equal(t, gatewayv1.SectionName("listener-3"), *ref.SectionName)
	require.Nil(t, ref.Port)
	require.Nil(t, r.ParentRefs[1].Group, "the route's own parentRefs are not modified")

	require.Empty(t, AttachRoute(r, nil, Lookups{}).Parents, "no Gateways at all")
}

func TestAttachRouteToRefusedListeners(t *testing.T) {
	// The API counts attachment whatever the listener's state; the
	// attachment says the listener is not served.
	gw := gateway("unresolved-gateway-with-one-attached-unresolved-route",
		listener("tls", 443, gatewayv1.HTTPSProtocolType, kinds(KindHTTPRoute),
			selector(&metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": infraNS}}),
			certs(secretRef("", "Secret", "", "does-not-exist")), tlsMode(gatewayv1.TLSModeTerminate)))
	// No namespace labels at all: the name label is still there, as the API
	// server sets it on every namespace.
	_, lookup := processAll(t, []*gatewayv1.Gateway{gw}, Lookups{})
	att := AttachRoute(route(KindHTTPRoute, infraNS, "http-route-4", nil,
		parentRef("unresolved-gateway-with-one-attached-unresolved-route", infraNS, "tls", 0)), lookup, Lookups{})
	require.True(t, att.Parents[0].Accepted)
	require.Len(t, att.Parents[0].Listeners, 1)
	require.False(t, att.Parents[0].Listeners[0].Programmed)
	require.Equal(t, "websecure", att.Parents[0].Listeners[0].EntryPoint)
}

func TestRouteViews(t *testing.T) {
	created := metav1.Now()
	meta := metav1.ObjectMeta{Namespace: infraNS, Name: "r", Generation: 4, CreationTimestamp: created}
	spec := gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parentRef("gw", "", "", 0)}}
	h := RouteFromHTTP(&gatewayv1.HTTPRoute{ObjectMeta: meta, Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: spec, Hostnames: hostnames("a.com")}})
	g := RouteFromGRPC(&gatewayv1.GRPCRoute{ObjectMeta: meta, Spec: gatewayv1.GRPCRouteSpec{CommonRouteSpec: spec, Hostnames: hostnames("b.com")}})
	require.Equal(t, Route{Kind: KindHTTPRoute, Namespace: infraNS, Name: "r", Generation: 4, CreationTimestamp: created,
		Hostnames: hostnames("a.com"), ParentRefs: spec.ParentRefs}, h)
	require.Equal(t, KindGRPCRoute, g.Kind)
	require.Equal(t, hostnames("b.com"), g.Hostnames)
	require.Equal(t, "GRPCRoute gateway-conformance-infra/r", g.String())
}

func TestRouteOrder(t *testing.T) {
	old := metav1.NewTime(metav1.Now().Add(-time.Hour))
	newer := metav1.Now()
	at := func(kind gatewayv1.Kind, ns, name string, ts metav1.Time) Route {
		return Route{Kind: kind, Namespace: ns, Name: name, CreationTimestamp: ts}
	}
	ordered := []Route{
		at(KindHTTPRoute, "z", "z", old),
		at(KindHTTPRoute, "a", "z", newer),
		at(KindHTTPRoute, "b", "a", newer),
		at(KindGRPCRoute, "b", "b", newer),
		at(KindHTTPRoute, "b", "b", newer),
	}
	for i := range ordered {
		for j := range ordered {
			require.Equalf(t, i < j, ordered[i].before(ordered[j]), "%v before %v", ordered[i], ordered[j])
		}
	}
}

func TestAttachRouteInvalidSelectorAdmitsNothing(t *testing.T) {
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}
	gws, lookup := processAll(t, []*gatewayv1.Gateway{gateway("gw", listener("http", 80, gatewayv1.HTTPProtocolType, selector(bad)))}, Lookups{})
	requireConditions(t, gws[0].Listeners[0].Conditions, gwGen, want{"Accepted", condFalse, "UnsupportedValue"})
	_, found := gws[0].Listener("nope")
	require.False(t, found)
	att := AttachRoute(route(KindHTTPRoute, infraNS, "r", nil, parentRef("gw", "", "", 0)), lookup, Lookups{})
	require.Equal(t, gatewayv1.RouteReasonNotAllowedByListeners, att.Parents[0].Reason)
}
