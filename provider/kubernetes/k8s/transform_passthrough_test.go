package k8s_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

func TestTransformPassesOtherObjectsThrough(t *testing.T) {
	slice := &discoveryv1.EndpointSlice{ObjectMeta: fatMeta("web-1", "shop")}
	for _, tc := range []struct {
		name string
		obj  any
	}{
		{"tombstone", cache.DeletedFinalStateUnknown{Key: "shop/web-1", Obj: slice.DeepCopy()}},
		{"tombstone of a Node", cache.DeletedFinalStateUnknown{Key: "node-a", Obj: &corev1.Node{ObjectMeta: fatMeta("node-a", "")}}},
		{"unknown kind", &corev1.Pod{ObjectMeta: fatMeta("c", "shop"), Spec: corev1.PodSpec{NodeName: "n"}}},
		{"nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := any(tc.obj)
			if o, ok := tc.obj.(runtime.Object); ok {
				in = o.DeepCopyObject()
			}
			out, err := traefikReads.Transform(in)
			require.NoError(t, err)
			assert.Equal(t, tc.obj, out)
		})
	}
}
