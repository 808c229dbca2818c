package attach

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The condition types this package writes on each kind of object. A type in
// one of these lists that the computed conditions no longer carry is removed
// on merge (PartiallyInvalid must disappear when the route is whole again);
// every other type belongs to someone else and is left where it is.
var (
	classConditionTypes    = []string{"Accepted"}
	gatewayConditionTypes  = []string{"Accepted", "Programmed", "ResolvedRefs"}
	listenerConditionTypes = []string{"Accepted", "Conflicted", "Programmed", "ResolvedRefs"}
	routeConditionTypes    = []string{"Accepted", "PartiallyInvalid", "ResolvedRefs"}
)

// maxMessageProblems caps how many problems one condition message lists, so a
// route with hundreds of broken backends still has a readable status.
const maxMessageProblems = 8

// newCondition builds a condition observed at generation. Its
// lastTransitionTime is left zero: MergeConditions sets it.
func newCondition[R ~string](condType string, ok bool, reason R, message string, generation int64) metav1.Condition {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             string(reason),
		Message:            message,
		ObservedGeneration: generation,
	}
}

// sortConditions orders conditions by type, so that what this package
// computes comes out the same way whatever order it was built in.
func sortConditions(conds []metav1.Condition) []metav1.Condition {
	sort.SliceStable(conds, func(i, j int) bool { return conds[i].Type < conds[j].Type })
	return conds
}

// MergeConditions merges computed conditions into existing ones and returns
// the new list; neither input is modified. For each computed condition:
//
//   - an existing condition of the same type observed at a newer generation
//     is kept as it is: this view of the object is older than whoever wrote
//     it, and a later pass will see the new generation (the API's rule);
//   - otherwise the computed one replaces it, keeping the existing
//     lastTransitionTime when status and reason are unchanged, and taking
//     now when either changed or the type is new.
//
// Existing conditions keep their positions; types in owned that were not
// computed are removed; types nobody here owns are kept untouched; new types
// follow the existing ones in the order given. So the result depends only on
// the inputs.
func MergeConditions(existing, computed []metav1.Condition, owned []string, now metav1.Time) []metav1.Condition {
	byType := make(map[string]metav1.Condition, len(computed))
	for _, c := range computed {
		byType[c.Type] = c
	}
	merged := make([]metav1.Condition, 0, len(existing)+len(computed))
	seen := make(map[string]bool, len(existing))
	for _, old := range existing {
		c, ok := byType[old.Type]
		switch {
		case seen[old.Type]:
			// A duplicate type breaks the list-map contract; keep the first.
			continue
		case !ok && contains(owned, old.Type):
			// Ours and no longer computed: it no longer holds.
		case !ok:
			merged = append(merged, old)
		case old.ObservedGeneration > c.ObservedGeneration:
			merged = append(merged, old)
		default:
			c.LastTransitionTime = now
			if old.Status == c.Status && old.Reason == c.Reason {
				c.LastTransitionTime = old.LastTransitionTime
			}
			merged = append(merged, c)
		}
		seen[old.Type] = true
	}
	for _, c := range computed {
		if seen[c.Type] {
			continue
		}
		c.LastTransitionTime = now
		merged = append(merged, c)
		seen[c.Type] = true
	}
	return merged
}

// FindCondition returns the condition of type t, if any.
func FindCondition(conds []metav1.Condition, t string) (metav1.Condition, bool) {
	for _, c := range conds {
		if c.Type == t {
			return c, true
		}
	}
	return metav1.Condition{}, false
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// problemList joins problems into one message, capped at maxMessageProblems.
func problemList(problems []string) string {
	if len(problems) <= maxMessageProblems {
		return strings.Join(problems, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(problems[:maxMessageProblems], "; "), len(problems)-maxMessageProblems)
}
