package attach

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestApplyDroppedRules(t *testing.T) {
	_, lookup := processAll(t, conformanceGateways(), Lookups{})
	r := route(KindHTTPRoute, infraNS, "r", nil,
		parentRef("same-namespace", "", "", 0),
		parentRef("same-namespace", "", "", 81)) // refused: NoMatchingParent

	tests := []struct {
		name      string
		ruleCount int
		dropped   []DroppedRule
		accepted  bool
		reason    gatewayv1.RouteConditionReason
		partial   string // prefix of the PartiallyInvalid message, "" for none
	}{
		{name: "nothing dropped", ruleCount: 2, accepted: true, reason: "Accepted"},
		{
			name: "some rules dropped: still accepted, PartiallyInvalid", ruleCount: 3,
			dropped:  []DroppedRule{{Index: 2, Message: "filter type Foo is not supported"}, {Index: 0, Reason: "IncompatibleFilters", Message: "x"}},
			accepted: true, reason: "Accepted", partial: "Dropped Rule(s): spec.rules[0]: x; spec.rules[2]: filter type Foo",
		},
		{
			name: "every rule dropped: not accepted", ruleCount: 2,
			dropped:  []DroppedRule{{Index: 1, Message: "b"}, {Index: 0, Message: "a"}, {Index: 0, Message: "again"}},
			accepted: false, reason: "UnsupportedValue",
		},
		{
			name: "indexes out of range are ignored", ruleCount: 1,
			dropped:  []DroppedRule{{Index: 1, Message: "no such rule"}, {Index: -1}},
			accepted: true, reason: "Accepted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			att := AttachRoute(r, lookup, Lookups{})
			ApplyDroppedRules(&att, tt.ruleCount, tt.dropped)
			p := att.Parents[0]
			require.Equal(t, tt.accepted, p.Accepted)
			require.Equal(t, tt.reason, p.Reason)
			require.True(t, strings.HasPrefix(p.PartiallyInvalid, tt.partial), p.PartiallyInvalid)
			require.Equal(t, tt.partial == "", p.PartiallyInvalid == "")
			if !tt.accepted {
				require.Empty(t, p.Listeners, "nothing is left to attach")
			}
			refused := att.Parents[1]
			require.False(t, refused.Accepted)
			require.Equal(t, gatewayv1.RouteReasonNoMatchingParent, refused.Reason, "a refused parent keeps its reason")
			require.Empty(t, refused.PartiallyInvalid, "PartiallyInvalid is never set on a refused parent")
		})
	}
}
