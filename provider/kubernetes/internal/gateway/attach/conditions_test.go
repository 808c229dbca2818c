package attach

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMergeConditions(t *testing.T) {
	then := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	cond := func(typ string, status metav1.ConditionStatus, reason string, gen int64, at metav1.Time) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: "m", ObservedGeneration: gen, LastTransitionTime: at}
	}
	owned := []string{"Accepted", "PartiallyInvalid", "ResolvedRefs"}

	tests := []struct {
		name     string
		existing []metav1.Condition
		computed []metav1.Condition
		want     []metav1.Condition
	}{
		{
			name:     "new conditions take now",
			computed: []metav1.Condition{cond("Accepted", condTrue, "Accepted", 2, metav1.Time{})},
			want:     []metav1.Condition{cond("Accepted", condTrue, "Accepted", 2, now)},
		},
		{
			name:     "unchanged status and reason keep their time, take the new generation",
			existing: []metav1.Condition{cond("Accepted", condTrue, "Accepted", 1, then)},
			computed: []metav1.Condition{cond("Accepted", condTrue, "Accepted", 2, metav1.Time{})},
			want:     []metav1.Condition{cond("Accepted", condTrue, "Accepted", 2, then)},
		},
		{
			name:     "a new reason is a transition",
			existing: []metav1.Condition{cond("Accepted", condFalse, "NoMatchingParent", 1, then)},
			computed: []metav1.Condition{cond("Accepted", condFalse, "NotAllowedByListeners", 2, metav1.Time{})},
			want:     []metav1.Condition{cond("Accepted", condFalse, "NotAllowedByListeners", 2, now)},
		},
		{
			name:     "a new status is a transition",
			existing: []metav1.Condition{cond("Accepted", condFalse, "Accepted", 2, then)},
			computed: []metav1.Condition{cond("Accepted", condTrue, "Accepted", 2, metav1.Time{})},
			want:     []metav1.Condition{cond("Accepted", condTrue, "Accepted", 2, now)},
		},
		{
			name:     "a condition observed at a newer generation is not overwritten",
			existing: []metav1.Condition{cond("Accepted", condFalse, "NoMatchingParent", 5, then)},
			computed: []metav1.Condition{cond("Accepted", condTrue, "Accepted", 4, metav1.Time{})},
			want:     []metav1.Condition{cond("Accepted", condFalse, "NoMatchingParent", 5, then)},
		},
		{
			name: "others' conditions stay where they are, ours no longer computed go, new ones follow",
			existing: []metav1.Condition{
				cond("example.com/Audited", condTrue, "Audited", 1, then),
				cond("PartiallyInvalid", condTrue, "UnsupportedValue", 1, then),
				cond("Accepted", condTrue, "Accepted", 1, then),
			},
			computed: []metav1.Condition{
				cond("Accepted", condTrue, "Accepted", 2, metav1.Time{}),
				cond("ResolvedRefs", condTrue, "ResolvedRefs", 2, metav1.Time{}),
			},
			want: []metav1.Condition{
				cond("example.com/Audited", condTrue, "Audited", 1, then),
				cond("Accepted", condTrue, "Accepted", 2, then),
				cond("ResolvedRefs", condTrue, "ResolvedRefs", 2, now),
			},
		},
		{
			name:     "a duplicated type is merged once",
			existing: []metav1.Condition{cond("Accepted", condTrue, "Accepted", 1, then), cond("Accepted", condFalse, "X", 1, then)},
			computed: []metav1.Condition{cond("Accepted", condTrue, "Accepted", 2, metav1.Time{})},
			want:     []metav1.Condition{cond("Accepted", condTrue, "Accepted", 2, then)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fmt.Sprint(tt.existing, tt.computed)
			got := MergeConditions(tt.existing, tt.computed, owned, now)
			require.Equal(t, tt.want, got)
			require.Equal(t, before, fmt.Sprint(tt.existing, tt.computed), "inputs are not modified")
			// Merging the result again changes nothing.
			require.Equal(t, got, MergeConditions(got, tt.computed, owned, now))
		})
	}
}

func TestProblemListIsCapped(t *testing.T) {
	var many []string
	for i := range 10 {
		many = append(many, fmt.Sprint("p", i))
	}
	require.Equal(t, "p0; p1; p2; p3; p4; p5; p6; p7; and 2 more", problemList(many))
	require.Equal(t, "a; b", problemList([]string{"a", "b"}))
}
