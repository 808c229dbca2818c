package k8s

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The Gateway API objects and the Namespaces the Gateway front end reads,
// at the door.
//
// A GatewayClass, Gateway, HTTPRoute, GRPCRoute, ReferenceGrant or
// BackendTLSPolicy is cached whole but for managedFields and kubectl's
// last-applied annotation: they are few, written by hand, and their status stays in
// the cache because the status writer merges its conditions into it.
// Their labels and annotations stay too, and count as changes: what the
// Gateway front end reads of them is not settled, and a reader added
// later must not find them dropped at the door.
//
// What counts as a change is the spec, the generation, the labels and
// the annotations (but kubectl's last-applied one). The status does not:
// sliceway writes it itself, and a render after each of its own writes
// would loop. Nor do resourceVersion, managedFields, finalizers and owner
// references.
//
// A Namespace is read for its labels only (the namespace selectors of a
// listener's allowedRoutes): it is cached as its name and labels, and
// only a change of its labels counts.

// gatewayMeta is the metadata of a Gateway API object of a kind the
// Gateway front end reads; nil for any other object.
func gatewayMeta(obj any) *metav1.ObjectMeta {
	switch o := obj.(type) {
	case *gatewayv1.GatewayClass:
		return &o.ObjectMeta
	case *gatewayv1.Gateway:
		return &o.ObjectMeta
	case *gatewayv1.HTTPRoute:
		return &o.ObjectMeta
	case *gatewayv1.GRPCRoute:
		return &o.ObjectMeta
	case *gatewayv1.ReferenceGrant:
		return &o.ObjectMeta
	case *gatewayv1.BackendTLSPolicy:
		return &o.ObjectMeta
	}
	return nil
}

// namespaceLabelsOnly is what the cache keeps of a Namespace: what names
// it and its labels.
func namespaceLabelsOnly(ns *corev1.Namespace) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta: ns.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:            ns.Name,
			UID:             ns.UID,
			ResourceVersion: ns.ResourceVersion,
			Labels:          ns.Labels,
		},
	}
}

// gatewayChanged is Changed for the Gateway API kinds: known says whether
// old is one of them; changed whether the update from old to new counts.
func gatewayChanged(old, new any) (changed, known bool) {
	switch o := old.(type) {
	case *gatewayv1.GatewayClass:
		n, ok := new.(*gatewayv1.GatewayClass)
		return !ok || gatewayObjectChanged(&o.ObjectMeta, &n.ObjectMeta, &o.Spec, &n.Spec), true
	case *gatewayv1.Gateway:
		n, ok := new.(*gatewayv1.Gateway)
		return !ok || gatewayObjectChanged(&o.ObjectMeta, &n.ObjectMeta, &o.Spec, &n.Spec), true
	case *gatewayv1.HTTPRoute:
		n, ok := new.(*gatewayv1.HTTPRoute)
		return !ok || gatewayObjectChanged(&o.ObjectMeta, &n.ObjectMeta, &o.Spec, &n.Spec), true
	case *gatewayv1.GRPCRoute:
		n, ok := new.(*gatewayv1.GRPCRoute)
		return !ok || gatewayObjectChanged(&o.ObjectMeta, &n.ObjectMeta, &o.Spec, &n.Spec), true
	case *gatewayv1.ReferenceGrant:
		n, ok := new.(*gatewayv1.ReferenceGrant)
		return !ok || gatewayObjectChanged(&o.ObjectMeta, &n.ObjectMeta, &o.Spec, &n.Spec), true
	case *gatewayv1.BackendTLSPolicy:
		n, ok := new.(*gatewayv1.BackendTLSPolicy)
		return !ok || gatewayObjectChanged(&o.ObjectMeta, &n.ObjectMeta, &o.Spec, &n.Spec), true
	case *corev1.Namespace:
		n, ok := new.(*corev1.Namespace)
		return !ok || !maps.Equal(o.Labels, n.Labels), true
	}
	return false, false
}

// gatewayObjectChanged compares what counts of a Gateway API object: its
// spec (by value: two decodes of the same object are equal), generation,
// labels and annotations but the last-applied one. Its status is left
// out on purpose.
func gatewayObjectChanged[S any](om, nm *metav1.ObjectMeta, ospec, nspec *S) bool {
	return om.Generation != nm.Generation ||
		!maps.Equal(om.Labels, nm.Labels) ||
		!keptEqual(om.Annotations, nm.Annotations, func(key string) bool { return key != LastAppliedAnnotation }) ||
		!equality.Semantic.DeepEqual(ospec, nspec)
}
