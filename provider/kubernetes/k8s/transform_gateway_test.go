package k8s_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// TestTransformGatewayKinds: a Gateway API object enters the cache
// without managedFields and kubectl's last-applied annotation, and with
// everything else: spec, status (the status writer merges into it),
// labels and the other annotations.
func TestTransformGatewayKinds(t *testing.T) {
	parent := gatewayv1.RouteParentStatus{
		ParentRef:      gatewayv1.ParentReference{Name: "edge"},
		ControllerName: "sliceway.io/gateway-controller",
		Conditions:     []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"}},
	}
	for _, tc := range []struct {
		name string
		obj  runtime.Object
	}{
		{"GatewayClass", &gatewayv1.GatewayClass{
			ObjectMeta: fatMeta("sliceway", ""),
			Spec:       gatewayv1.GatewayClassSpec{ControllerName: "sliceway.io/gateway-controller"},
			Status:     gatewayv1.GatewayClassStatus{Conditions: parent.Conditions},
		}},
		{"Gateway", &gatewayv1.Gateway{
			ObjectMeta: fatMeta("edge", "infra"),
			Spec:       gatewayv1.GatewaySpec{GatewayClassName: "sliceway", Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}}},
			Status:     gatewayv1.GatewayStatus{Listeners: []gatewayv1.ListenerStatus{{Name: "http", AttachedRoutes: 1}}},
		}},
		{"HTTPRoute", &gatewayv1.HTTPRoute{
			ObjectMeta: fatMeta("web", "shop"),
			Spec:       gatewayv1.HTTPRouteSpec{Hostnames: []gatewayv1.Hostname{"web.example"}},
			Status:     gatewayv1.HTTPRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{parent}}},
		}},
		{"GRPCRoute", &gatewayv1.GRPCRoute{
			ObjectMeta: fatMeta("greeter", "shop"),
			Spec:       gatewayv1.GRPCRouteSpec{Hostnames: []gatewayv1.Hostname{"grpc.example"}},
			Status:     gatewayv1.GRPCRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{parent}}},
		}},
		{"ReferenceGrant", &gatewayv1.ReferenceGrant{
			ObjectMeta: fatMeta("from-shop", "backends"),
			Spec: gatewayv1.ReferenceGrantSpec{
				From: []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Namespace: "shop"}},
				To:   []gatewayv1.ReferenceGrantTo{{Kind: "Service"}},
			},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.obj.DeepCopyObject()
			m := want.(metav1.Object)
			m.SetManagedFields(nil)
			annotations := m.GetAnnotations()
			delete(annotations, k8s.LastAppliedAnnotation)
			require.NotEmpty(t, annotations, "another tool's annotation stays")
			require.NotEmpty(t, m.GetLabels())
			assert.Equal(t, want, transformed(t, tc.obj))
		})
	}
}

// TestTransformNamespace: a Namespace is kept as its name and labels,
// which allowedRoutes selectors match.
func TestTransformNamespace(t *testing.T) {
	ns := &corev1.Namespace{
		ObjectMeta: fatMeta("shop", ""),
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
	want := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "shop", UID: ns.UID, ResourceVersion: ns.ResourceVersion, Labels: map[string]string{"app": "shop"},
	}}
	assert.Equal(t, want, transformed(t, ns))
}
