// Package testobjects builds the Kubernetes objects the tests of the
// Ingress provider and of its translation feed them: Ingresses and their
// options, IngressClasses, Services, EndpointSlices, annotation names and
// certificates. Tests only.
package testobjects

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// IngressOption changes an Ingress NewIngress builds.
type IngressOption func(*netv1.Ingress)

// WithClassName sets spec.ingressClassName.
func WithClassName(name string) IngressOption {
	return func(ing *netv1.Ingress) { ing.Spec.IngressClassName = &name }
}

// WithAnnotation sets an annotation.
func WithAnnotation(key, value string) IngressOption {
	return func(ing *netv1.Ingress) {
		if ing.Annotations == nil {
			ing.Annotations = map[string]string{}
		}
		ing.Annotations[key] = value
	}
}

// WithCreated sets the creation time, in seconds.
func WithCreated(sec int64) IngressOption {
	return func(ing *netv1.Ingress) { ing.CreationTimestamp = metav1.Unix(sec, 0) }
}

// WithTLS adds a spec.tls entry for each Secret.
func WithTLS(secrets ...string) IngressOption {
	return func(ing *netv1.Ingress) {
		for _, s := range secrets {
			ing.Spec.TLS = append(ing.Spec.TLS, netv1.IngressTLS{SecretName: s})
		}
	}
}

// WithDefaultBackend sets spec.defaultBackend to the service port.
func WithDefaultBackend(svc string, port int32) IngressOption {
	return func(ing *netv1.Ingress) {
		ing.Spec.DefaultBackend = &netv1.IngressBackend{Service: &netv1.IngressServiceBackend{
			Name: svc, Port: netv1.ServiceBackendPort{Number: port},
		}}
	}
}

// WithPath adds a Prefix path on host to the service port (a number, or a
// name when portName is set).
func WithPath(host, path, svc string, port int32, portName string) IngressOption {
	return func(ing *netv1.Ingress) {
		pt := netv1.PathTypePrefix
		ing.Spec.Rules = append(ing.Spec.Rules, netv1.IngressRule{
			Host: host,
			IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
				Path: path, PathType: &pt,
				Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{
					Name: svc, Port: netv1.ServiceBackendPort{Number: port, Name: portName},
				}},
			}}}},
		})
	}
}

// NewIngress is an Ingress with the options.
func NewIngress(ns, name string, opts ...IngressOption) *netv1.Ingress {
	ing := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, o := range opts {
		o(ing)
	}
	return ing
}

// NewClass is an IngressClass of the controller, the default one or not.
func NewClass(name, controller string, isDefault bool) *netv1.IngressClass {
	ic := &netv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: netv1.IngressClassSpec{Controller: controller}}
	if isDefault {
		ic.Annotations = map[string]string{k8s.DefaultClassAnnotation: "true"}
	}
	return ic
}

// NewService is a ClusterIP Service with the ports.
func NewService(ns, name string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", Ports: ports},
	}
}

// ServicePort is a TCP Service port.
func ServicePort(name string, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, Protocol: corev1.ProtocolTCP}
}

// EndpointState is the conditions of an endpoint.
type EndpointState int

const (
	Ready              EndpointState = iota // ready and serving
	ServingTerminating                      // serving, terminating
	NotReady                                // neither

)

// Endpoint is an endpoint of one address in the state.
func Endpoint(addr string, state EndpointState) discoveryv1.Endpoint {
	t, f := true, false
	ep := discoveryv1.Endpoint{Addresses: []string{addr}}
	switch state {
	case Ready:
		ep.Conditions = discoveryv1.EndpointConditions{Ready: &t, Serving: &t, Terminating: &f}
	case ServingTerminating:
		ep.Conditions = discoveryv1.EndpointConditions{Ready: &f, Serving: &t, Terminating: &t}
	case NotReady:
		ep.Conditions = discoveryv1.EndpointConditions{Ready: &f, Serving: &f, Terminating: &f}
	}
	return ep
}

// NewSlice is an IPv4 EndpointSlice of Service svc with one port.
func NewSlice(ns, name, svc, portName string, port int32, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	proto := corev1.ProtocolTCP
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &proto}},
		Endpoints:   eps,
	}
}

// Backend returns a Service "name" with an unnamed port 80 and one slice with
// one ready endpoint, so that paths to it get a router.
func Backend(ns, name, ip string) []any {
	return []any{
		NewService(ns, name, ServicePort("", 80)),
		NewSlice(ns, name+"-abc", name, "", 8080, Endpoint(ip, Ready)),
	}
}
