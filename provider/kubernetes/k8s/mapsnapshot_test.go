package k8s_test

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// mapSnapshot is an in-memory ingress.Snapshot over a list of objects.
type mapSnapshot []any

var _ ingress.Snapshot = mapSnapshot(nil)

func (s mapSnapshot) Ingresses() (out []*netv1.Ingress) {
	for _, o := range s {
		if v, ok := o.(*netv1.Ingress); ok {
			out = append(out, v)
		}
	}
	return out
}

func (s mapSnapshot) IngressClasses() (out []*netv1.IngressClass) {
	for _, o := range s {
		if v, ok := o.(*netv1.IngressClass); ok {
			out = append(out, v)
		}
	}
	return out
}

func (s mapSnapshot) Service(namespace, name string) *corev1.Service {
	for _, o := range s {
		if v, ok := o.(*corev1.Service); ok && v.Namespace == namespace && v.Name == name {
			return v
		}
	}
	return nil
}

func (s mapSnapshot) EndpointSlices(namespace, service string) (out []*discoveryv1.EndpointSlice) {
	for _, o := range s {
		if v, ok := o.(*discoveryv1.EndpointSlice); ok && v.Namespace == namespace && v.Labels[discoveryv1.LabelServiceName] == service {
			out = append(out, v)
		}
	}
	return out
}

func (s mapSnapshot) Secret(namespace, name string) *corev1.Secret {
	for _, o := range s {
		if v, ok := o.(*corev1.Secret); ok && v.Namespace == namespace && v.Name == name {
			return v
		}
	}
	return nil
}

func (s mapSnapshot) Nodes() (out []*corev1.Node) {
	for _, o := range s {
		if v, ok := o.(*corev1.Node); ok {
			out = append(out, v)
		}
	}
	return out
}
