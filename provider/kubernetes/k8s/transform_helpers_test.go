package k8s_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// fatMeta is metadata as a real API server returns it for an object applied
// with kubectl: managedFields, the last-applied annotation, and annotations
// and labels of other tools.
func fatMeta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: name, Namespace: namespace, UID: types.UID("uid-" + name), ResourceVersion: "42", Generation: 3,
		CreationTimestamp: metav1.Time{Time: time.Unix(1700000000, 0)},
		Labels:            map[string]string{"app": name},
		Annotations: map[string]string{
			k8s.LastAppliedAnnotation: `{"apiVersion":"v1","kind":"Whatever","metadata":{"name":"` + name + `"}}`,
			"example.com/owner":       "team-a",
		},
		ManagedFields: []metav1.ManagedFieldsEntry{{
			Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "v1", Time: &metav1.Time{Time: time.Unix(1700000000, 0)},
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{}}}`),
		}},
	}
}

// traefikReads is what the Traefik-style front end reads, as its informers
// trim and filter with it.
var traefikReads = new(ingress.Provider).Reads()

// transformed runs Transform on a deep copy, as an informer does on the
// object it decoded.
func transformed(t *testing.T, obj runtime.Object) any {
	t.Helper()
	out, err := traefikReads.Transform(obj.DeepCopyObject())
	require.NoError(t, err)
	return out
}
