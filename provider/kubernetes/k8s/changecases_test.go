package k8s

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// commonIgnored are the metadata-only updates every kind receives from the
// API server and from kubectl, none of which can change the output.
func commonIgnored(meta func(runtime.Object) *metav1.ObjectMeta) []struct {
	name   string
	mutate func(runtime.Object)
} {
	return []struct {
		name   string
		mutate func(runtime.Object)
	}{
		{"resourceVersion only", func(o runtime.Object) { meta(o).ResourceVersion = "999" }},
		{"managedFields", func(o runtime.Object) {
			meta(o).ManagedFields = []metav1.ManagedFieldsEntry{{
				Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate,
				APIVersion: "v1", Time: &metav1.Time{Time: time.Unix(1700000000, 0)},
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`),
			}}
		}},
		{"last-applied annotation", func(o runtime.Object) {
			setAnnotation(meta(o), LastAppliedAnnotation, `{"apiVersion":"v1","kind":"Whatever"}`)
		}},
		{"annotation of another tool", func(o runtime.Object) {
			setAnnotation(meta(o), "meta.helm.sh/release-name", "shop")
		}},
		{"leader-election annotation", func(o runtime.Object) {
			setAnnotation(meta(o), "control-plane.alpha.kubernetes.io/leader", `{"holderIdentity":"x"}`)
		}},
		{"generation", func(o runtime.Object) { meta(o).Generation++ }},
		{"finalizers and owner references", func(o runtime.Object) {
			meta(o).Finalizers = append(meta(o).Finalizers, "example.com/keep")
			meta(o).OwnerReferences = append(meta(o).OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u"})
		}},
	}
}

func setAnnotation(m *metav1.ObjectMeta, k, v string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[k] = v
}

type changeCase[T runtime.Object] struct {
	name   string
	mutate func(T)
	want   bool
}

// runChangeCases checks testKeep.Changed(base, mutated) and, since an update can go
// either way, testKeep.Changed(mutated, base).
func runChangeCases[T runtime.Object](t *testing.T, base func() T, cases []changeCase[T]) {
	t.Helper()
	// The base compares equal to an identical, independently built copy.
	require.False(t, testKeep.Changed(base(), base()), "two builds of the same object")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old, updated := base(), base()
			tc.mutate(updated)
			assert.Equal(t, tc.want, testKeep.Changed(old, updated), "old -> new")
			assert.Equal(t, tc.want, testKeep.Changed(updated, old), "new -> old")
		})
	}
}

// withCommon adds the metadata-only updates, all of which must not count.
func withCommon[T runtime.Object](cases []changeCase[T], meta func(T) *metav1.ObjectMeta) []changeCase[T] {
	for _, c := range commonIgnored(func(o runtime.Object) *metav1.ObjectMeta { return meta(o.(T)) }) {
		mutate := c.mutate
		cases = append(cases, changeCase[T]{name: c.name, mutate: func(o T) { mutate(o) }, want: false})
	}
	return cases
}
