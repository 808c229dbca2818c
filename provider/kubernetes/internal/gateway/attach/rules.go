package attach

import (
	"fmt"
	"sort"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// DroppedRule is a rule of a route that translation cannot implement, such
// as one with a filter type or match this controller does not support.
type DroppedRule struct {
	// Index is the rule's position in spec.rules.
	Index int
	// Reason is UnsupportedValue, IncompatibleFilters or another route
	// reason; empty means UnsupportedValue.
	Reason  gatewayv1.RouteConditionReason
	Message string
}

// ApplyDroppedRules records what translation dropped of a route's ruleCount
// rules on its accepted parents, following the API's "drop rules" approach:
//
//   - when every rule is dropped nothing of the route is implemented, so
//     each parent becomes Accepted=False with the first dropped rule's
//     reason, and loses its listeners;
//   - when some are, each accepted parent gets a PartiallyInvalid condition
//     whose message starts with "Dropped Rule", as the API requires, and
//     stays accepted.
//
// Parents that were not accepted are left alone: PartiallyInvalid must not
// be set on them. Run it before ResolveKindConflicts and
// CountAttachedRoutes, which only count accepted parents.
func ApplyDroppedRules(att *RouteAttachment, ruleCount int, dropped []DroppedRule) {
	rules := make([]DroppedRule, 0, len(dropped))
	seen := map[int]bool{}
	for _, d := range dropped {
		if d.Index < 0 || d.Index >= ruleCount || seen[d.Index] {
			continue
		}
		seen[d.Index] = true
		if d.Reason == "" {
			d.Reason = gatewayv1.RouteReasonUnsupportedValue
		}
		rules = append(rules, d)
	}
	if len(rules) == 0 {
		return
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].Index < rules[j].Index })
	msgs := make([]string, len(rules))
	for i, d := range rules {
		msgs[i] = fmt.Sprintf("spec.rules[%d]: %s", d.Index, d.Message)
	}
	for i := range att.Parents {
		p := &att.Parents[i]
		if !p.Accepted {
			continue
		}
		if len(rules) == ruleCount {
			*p = p.refuse(rules[0].Reason, "no rule can be implemented: "+problemList(msgs))
			continue
		}
		p.PartiallyInvalid = "Dropped Rule(s): " + problemList(msgs)
		p.partialReason = rules[0].Reason
	}
}
