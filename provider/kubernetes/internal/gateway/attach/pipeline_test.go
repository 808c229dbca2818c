package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestPipelineObservedGenerationBump retells
// httproute-observed-generation-bump through every step: the route's spec
// changes, its conditions move to the new generation and, as nothing else
// changed, keep their transition times.
func TestPipelineObservedGenerationBump(t *testing.T) {
	look := conformanceCluster().lookups()
	gws, lookup := processAll(t, conformanceGateways()[:1], look)
	hr := &gatewayv1.HTTPRoute{}
	hr.Namespace, hr.Name, hr.Generation = infraNS, "observed-generation-bump", 1
	hr.Spec.ParentRefs = []gatewayv1.ParentReference{parentRef("same-namespace", "", "", 0)}
	hr.Spec.Rules = []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{
		{BackendRef: backendRef("-", "", "", "infra-backend-v1", 8080, -1)},
	}}}

	run := func(status gatewayv1.RouteStatus, now bool) gatewayv1.RouteStatus {
		r := RouteFromHTTP(hr)
		atts := []RouteAttachment{AttachRoute(r, lookup, look)}
		ApplyDroppedRules(&atts[0], len(hr.Spec.Rules), nil)
		ResolveKindConflicts(atts)
		CountAttachedRoutes(gws, atts)
		at := earlier
		if now {
			at = later
		}
		return RouteStatus(status, atts[0], CheckBackends(r, HTTPRouteBackendRefs(hr), look), ourCtrl, at)
	}

	first := run(gatewayv1.RouteStatus{}, false)
	requireConditions(t, first.Parents[0].Conditions, 1, want{"Accepted", condTrue, "Accepted"}, want{"ResolvedRefs", condTrue, "ResolvedRefs"})
	require.Equal(t, int32(1), gws[0].Listeners[0].AttachedRoutes)

	hr.Generation = 2
	hr.Spec.Rules[0].BackendRefs[0].Name = "infra-backend-v2"
	second := run(first, true)
	requireConditions(t, second.Parents[0].Conditions, 2, want{"Accepted", condTrue, "Accepted"}, want{"ResolvedRefs", condTrue, "ResolvedRefs"})
	for _, c := range second.Parents[0].Conditions {
		require.Equal(t, earlier, c.LastTransitionTime, c.Type)
	}
	gwStatus := GatewayStatus(gatewayv1.GatewayStatus{}, gws[0], later)
	require.Equal(t, int32(1), gwStatus.Listeners[0].AttachedRoutes)
}
