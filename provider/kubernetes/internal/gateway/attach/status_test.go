package attach

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

var (
	earlier = metav1.NewTime(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	later   = metav1.NewTime(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
)

func TestClassStatus(t *testing.T) {
	c := ProcessClass(class(ourCtrl), ourCtrl)
	existing := gatewayv1.GatewayClassStatus{
		// The CRD's default condition before any controller looked.
		Conditions:        []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionUnknown, Reason: "Pending", Message: "Waiting for controller"}},
		SupportedFeatures: []gatewayv1.SupportedFeature{{Name: "HTTPRoute"}},
	}
	got := ClassStatus(existing, c, earlier)
	requireConditions(t, got.Conditions, 2, want{"Accepted", condTrue, "Accepted"})
	require.Equal(t, earlier, got.Conditions[0].LastTransitionTime)
	require.Equal(t, existing.SupportedFeatures, got.SupportedFeatures)
	require.Equal(t, metav1.ConditionUnknown, existing.Conditions[0].Status, "the existing status is not modified")

	again := ClassStatus(got, c, later)
	require.Equal(t, got, again, "nothing changed: the same status, the same times")
}

func TestGatewayStatus(t *testing.T) {
	gw := gateway("gw",
		listener("https", 443, gatewayv1.HTTPSProtocolType, certs(secretRef("", "Secret", "", "tls-validity-checks-certificate"))),
		listener("http", 80, gatewayv1.HTTPProtocolType))
	g := processed(t, gw, testOptions(), conformanceCluster().lookups())
	g.Listeners[1].AttachedRoutes = 2

	existing := gatewayv1.GatewayStatus{
		Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", Message: "old", ObservedGeneration: 1, LastTransitionTime: earlier}},
		Listeners: []gatewayv1.ListenerStatus{
			{Name: "removed", Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"}}},
			{Name: "http", Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", LastTransitionTime: earlier}}},
		},
	}
	got := GatewayStatus(existing, g, later)

	requireConditions(t, got.Conditions, gwGen, want{"Accepted", condTrue, "Accepted"}, want{"Programmed", condTrue, "Programmed"})
	accepted, _ := FindCondition(got.Conditions, "Accepted")
	require.Equal(t, earlier, accepted.LastTransitionTime, "unchanged status and reason keep their time")
	programmed, _ := FindCondition(got.Conditions, "Programmed")
	require.Equal(t, later, programmed.LastTransitionTime)

	require.Len(t, got.Listeners, 2, "listeners follow the spec; removed ones go")
	require.Equal(t, gatewayv1.SectionName("https"), got.Listeners[0].Name)
	require.Equal(t, gatewayv1.SectionName("http"), got.Listeners[1].Name)
	require.Equal(t, int32(2), got.Listeners[1].AttachedRoutes)
	httpAccepted, _ := FindCondition(got.Listeners[1].Conditions, "Accepted")
	require.Equal(t, earlier, httpAccepted.LastTransitionTime)
	require.Len(t, got.Listeners[1].Conditions, 4)
	require.Equal(t, []gatewayv1.RouteGroupKind{{Group: new(GroupGateway), Kind: KindHTTPRoute}, {Group: new(GroupGateway), Kind: KindGRPCRoute}},
		got.Listeners[1].SupportedKinds)
	require.Equal(t, "192.0.2.10", got.Addresses[0].Value)

	*got.Listeners[0].SupportedKinds[0].Group = "changed"
	require.Equal(t, GroupGateway, *g.Listeners[0].SupportedKinds[0].Group, "the status does not alias the computed Gateway")
}

func TestRouteStatus(t *testing.T) {
	_, lookup := processAll(t, conformanceGateways(), conformanceCluster().lookups())
	const other = gatewayv1.GatewayController("example.net/other")
	r := route(KindHTTPRoute, infraNS, "r", nil,
		parentRef("same-namespace", "", "", 0),
		parentRef("same-namespace", "", "", 81))
	att := AttachRoute(r, lookup, conformanceCluster().lookups())
	refs := CheckBackends(r, [][]gatewayv1.BackendRef{{backendRef("-", "", "", "infra-backend-v1", 8080, -1)}}, conformanceCluster().lookups())

	gwGroup, gwKind, ns := GroupGateway, KindGateway, gatewayv1.Namespace(infraNS)
	explicit := gatewayv1.ParentReference{Group: &gwGroup, Kind: &gwKind, Namespace: &ns, Name: "same-namespace"}
	existing := gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{
		{ParentRef: parentRef("stale-gateway", "", "", 0), ControllerName: ourCtrl,
			Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"}}},
		{ParentRef: explicit, ControllerName: ourCtrl, Conditions: []metav1.Condition{
			{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", LastTransitionTime: earlier, ObservedGeneration: 6},
			{Type: "PartiallyInvalid", Status: metav1.ConditionTrue, Reason: "UnsupportedValue", LastTransitionTime: earlier},
		}},
		{ParentRef: parentRef("same-namespace", "", "", 0), ControllerName: other,
			Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionFalse, Reason: "Theirs"}}},
	}}
	got := RouteStatus(existing, att, refs, ourCtrl, later)

	require.Len(t, got.Parents, 3)
	require.Equal(t, other, got.Parents[0].ControllerName, "another controller's entry is kept, first")
	require.Equal(t, existing.Parents[2], got.Parents[0])

	first := got.Parents[1]
	require.Equal(t, ourCtrl, first.ControllerName)
	require.Equal(t, explicit, first.ParentRef)
	requireConditions(t, first.Conditions, 7, want{"Accepted", condTrue, "Accepted"}, want{"ResolvedRefs", condTrue, "ResolvedRefs"})
	accepted, _ := FindCondition(first.Conditions, "Accepted")
	require.Equal(t, earlier, accepted.LastTransitionTime, "matched with the entry written with explicit defaults")
	_, partial := FindCondition(first.Conditions, "PartiallyInvalid")
	require.False(t, partial, "PartiallyInvalid goes when the route is whole again")

	// httproute-invalid-parentref-not-matching-listener-port: refused, yet
	// its references are resolved.
	second := got.Parents[2]
	require.Equal(t, int32(81), *second.ParentRef.Port)
	requireConditions(t, second.Conditions, 7, want{"Accepted", condFalse, "NoMatchingParent"}, want{"ResolvedRefs", condTrue, "ResolvedRefs"})
	for _, c := range second.Conditions {
		require.Equal(t, later, c.LastTransitionTime)
	}
}

func TestRouteStatusConditions(t *testing.T) {
	_, lookup := processAll(t, conformanceGateways(), conformanceCluster().lookups())
	r := route(KindHTTPRoute, infraNS, "r", nil, parentRef("same-namespace", "", "", 0))

	t.Run("unresolved backends on an accepted parent", func(t *testing.T) {
		// httproute-invalid-nonexistent-backendref: Accepted, and
		// ResolvedRefs False with BackendNotFound.
		att := AttachRoute(r, lookup, Lookups{})
		refs := CheckBackends(r, [][]gatewayv1.BackendRef{{backendRef("-", "", infraNS, "nonexistent", 8080, -1)}}, conformanceCluster().lookups())
		got := RouteStatus(gatewayv1.RouteStatus{}, att, refs, ourCtrl, later)
		requireConditions(t, got.Parents[0].Conditions, 7, want{"Accepted", condTrue, "Accepted"}, want{"ResolvedRefs", condFalse, "BackendNotFound"})
	})

	t.Run("dropped rules", func(t *testing.T) {
		att := AttachRoute(r, lookup, Lookups{})
		ApplyDroppedRules(&att, 2, []DroppedRule{{Index: 1, Message: "filter type Foo is not supported"}})
		got := RouteStatus(gatewayv1.RouteStatus{}, att, BackendCheck{}, ourCtrl, later)
		conds := got.Parents[0].Conditions
		requireConditions(t, conds, 7, want{"Accepted", condTrue, "Accepted"}, want{"PartiallyInvalid", condTrue, "UnsupportedValue"},
			want{"ResolvedRefs", condTrue, "ResolvedRefs"})
		var types []string
		for _, c := range conds {
			types = append(types, c.Type)
		}
		require.Equal(t, []string{"Accepted", "PartiallyInvalid", "ResolvedRefs"}, types)
	})

	t.Run("PartiallyInvalid is never written on a refused parent", func(t *testing.T) {
		att := AttachRoute(r, lookup, Lookups{})
		att.Parents[0].PartiallyInvalid = "Dropped Rule(s): spec.rules[0]: x"
		att.Parents[0].Accepted, att.Parents[0].Reason = false, gatewayv1.RouteReasonNotAllowedByListeners
		got := RouteStatus(gatewayv1.RouteStatus{}, att, BackendCheck{}, ourCtrl, later)
		_, found := FindCondition(got.Parents[0].Conditions, "PartiallyInvalid")
		require.False(t, found)
	})

	t.Run("no parents of ours: an empty list", func(t *testing.T) {
		got := RouteStatus(gatewayv1.RouteStatus{}, RouteAttachment{Route: r}, BackendCheck{}, ourCtrl, later)
		require.NotNil(t, got.Parents)
		require.Empty(t, got.Parents)
	})

	t.Run("at most 32 entries, other controllers' first", func(t *testing.T) {
		var existing gatewayv1.RouteStatus
		for i := range 30 {
			existing.Parents = append(existing.Parents, gatewayv1.RouteParentStatus{
				ParentRef: parentRef(fmt.Sprint("gw-", i), "", "", 0), ControllerName: "example.net/other"})
		}
		var refs []gatewayv1.ParentReference
		for i := range 5 {
			refs = append(refs, parentRef("same-namespace", "", "", int32(80+i)))
		}
		many := route(KindHTTPRoute, infraNS, "r", nil, refs...)
		got := RouteStatus(existing, AttachRoute(many, lookup, Lookups{}), BackendCheck{}, ourCtrl, later)
		require.Len(t, got.Parents, 32)
		require.Equal(t, ourCtrl, got.Parents[31].ControllerName)
		require.Equal(t, int32(81), *got.Parents[31].ParentRef.Port)
	})
}
