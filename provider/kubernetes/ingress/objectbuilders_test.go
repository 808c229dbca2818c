package ingress

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Object builders.

type ingressOpt func(*netv1.Ingress)

func withClassName(name string) ingressOpt {
	return func(ing *netv1.Ingress) { ing.Spec.IngressClassName = &name }
}

func withAnnotation(key, value string) ingressOpt {
	return func(ing *netv1.Ingress) {
		if ing.Annotations == nil {
			ing.Annotations = map[string]string{}
		}
		ing.Annotations[key] = value
	}
}

func withCreated(sec int64) ingressOpt {
	return func(ing *netv1.Ingress) { ing.CreationTimestamp = metav1.Unix(sec, 0) }
}

func withTLS(secrets ...string) ingressOpt {
	return func(ing *netv1.Ingress) {
		for _, s := range secrets {
			ing.Spec.TLS = append(ing.Spec.TLS, netv1.IngressTLS{SecretName: s})
		}
	}
}

func withDefaultBackend(svc string, port int32) ingressOpt {
	return func(ing *netv1.Ingress) {
		ing.Spec.DefaultBackend = &netv1.IngressBackend{Service: &netv1.IngressServiceBackend{
			Name: svc, Port: netv1.ServiceBackendPort{Number: port},
		}}
	}
}

// withPath adds a Prefix path on host to the service port (a number, or a
// name when portName is set).
func withPath(host, path, svc string, port int32, portName string) ingressOpt {
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

func newIngress(ns, name string, opts ...ingressOpt) *netv1.Ingress {
	ing := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, o := range opts {
		o(ing)
	}
	return ing
}

func newClass(name, controller string, isDefault bool) *netv1.IngressClass {
	ic := &netv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: netv1.IngressClassSpec{Controller: controller}}
	if isDefault {
		ic.Annotations = map[string]string{AnnotationDefaultClass: "true"}
	}
	return ic
}

func newService(ns, name string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", Ports: ports},
	}
}

func svcPort(name string, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, Protocol: corev1.ProtocolTCP}
}

type endpointState int

const (
	ready endpointState = iota
	servingTerminating
	notReady
)

func endpoint(addr string, state endpointState) discoveryv1.Endpoint {
	t, f := true, false
	ep := discoveryv1.Endpoint{Addresses: []string{addr}}
	switch state {
	case ready:
		ep.Conditions = discoveryv1.EndpointConditions{Ready: &t, Serving: &t, Terminating: &f}
	case servingTerminating:
		ep.Conditions = discoveryv1.EndpointConditions{Ready: &f, Serving: &t, Terminating: &t}
	case notReady:
		ep.Conditions = discoveryv1.EndpointConditions{Ready: &f, Serving: &f, Terminating: &f}
	}
	return ep
}

func newSlice(ns, name, svc, portName string, port int32, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	proto := corev1.ProtocolTCP
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &proto}},
		Endpoints:   eps,
	}
}

// backend returns a Service "name" with an unnamed port 80 and one slice with
// one ready endpoint, so that paths to it get a router.
func backend(ns, name, ip string) []any {
	return []any{
		newService(ns, name, svcPort("", 80)),
		newSlice(ns, name+"-abc", name, "", 8080, endpoint(ip, ready)),
	}
}
