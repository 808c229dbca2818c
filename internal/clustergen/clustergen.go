// Package clustergen generates synthetic clusters for benchmarks: S
// services, each with one Ingress (one host, one Prefix path), a Service
// with a named port, and E endpoints spread over two EndpointSlices, one in
// ten serving-terminating and one in twenty not serving; one service in five
// also has a third slice repeating an address of the first. The objects of
// a service are created at one time, and services in an order unrelated to
// their names, as in a cluster that grew over time.
package clustergen

import (
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// Namespace holds every generated object.
const Namespace = "bench"

// Cluster builds the objects of a cluster with services services and
// endpoints endpoints per service.
func Cluster(services, endpoints int) []runtime.Object {
	endpoints = min(endpoints, MaxEndpoints)
	objs := make([]runtime.Object, 0, services*4+1)
	objs = append(objs, &netv1.IngressClass{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IngressClass"},
		ObjectMeta: metav1.ObjectMeta{Name: "sliceway", Annotations: map[string]string{
			"ingressclass.kubernetes.io/is-default-class": "true",
		}},
		Spec: netv1.IngressClassSpec{Controller: "traefik.io/ingress-controller"},
	})
	for i := range services {
		objs = append(objs, Service(i, endpoints)...)
	}
	return objs
}

// Name is the name of the Service, Ingress and slice prefix of service i.
func Name(i int) string { return fmt.Sprintf("svc-%05d", i) }

// Created is the creation time of the objects of service i: a second each,
// distinct for up to 100,003 services and scattered over them, so that the
// order of age is not the order of names (which informers list in).
func Created(i int) metav1.Time {
	return metav1.Unix(1_700_000_000+int64(i*7919%100003), 0)
}

// Service builds the Ingress, Service and slices of service i.
func Service(i, endpoints int) []runtime.Object {
	name := Name(i)
	prefix := netv1.PathTypePrefix
	portName := "http"
	objs := []runtime.Object{
		&corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, CreationTimestamp: Created(i)},
			Spec: corev1.ServiceSpec{
				ClusterIP:  fmt.Sprintf("10.96.%d.%d", i/250, i%250+1),
				IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
				Selector:   map[string]string{"app": name},
				Ports: []corev1.ServicePort{{
					Name: portName, Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080),
				}},
			},
		},
		&netv1.Ingress{
			TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
			ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, CreationTimestamp: Created(i)},
			Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{
				Host: name + ".bench.example",
				IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
					Path: "/", PathType: &prefix,
					Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{
						Name: name, Port: netv1.ServiceBackendPort{Name: portName},
					}},
				}}}},
			}}},
		},
	}
	half := (endpoints + 1) / 2
	objs = append(objs, Slice(i, 0, 0, half), Slice(i, 1, half, endpoints))
	if i%5 == 0 && endpoints > 0 {
		objs = append(objs, Slice(i, 2, 0, 1))
	}
	return objs
}

// Slice builds slice number n of service i, holding endpoints [from, to).
func Slice(i, n, from, to int) *discoveryv1.EndpointSlice {
	name := Name(i)
	portName := "http"
	port := int32(8080)
	tcp := corev1.ProtocolTCP
	s := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: fmt.Sprintf("%s-%d", name, n), CreationTimestamp: Created(i), Labels: map[string]string{
			discoveryv1.LabelServiceName: name,
			discoveryv1.LabelManagedBy:   "endpointslice-controller.k8s.io",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &tcp}},
	}
	for e := from; e < to; e++ {
		s.Endpoints = append(s.Endpoints, Endpoint(i, e))
	}
	return s
}

// Endpoint is endpoint e of service i: one in ten serving-terminating, one
// in twenty not serving, the rest ready.
func Endpoint(i, e int) discoveryv1.Endpoint {
	ready, serving, terminating := true, true, false
	switch {
	case e%10 == 9:
		ready, terminating = false, true
	case e%20 == 4:
		ready, serving = false, false
	}
	node := fmt.Sprintf("node-%d", e%3)
	zone := fmt.Sprintf("zone-%d", e%3)
	return discoveryv1.Endpoint{
		Addresses:  []string{Address(i, e)},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		NodeName:   &node,
		Zone:       &zone,
	}
}

// MaxEndpoints is the most endpoints a generated service can have.
const MaxEndpoints = 64

// Address is the IP of endpoint e of service i: unique in 10.0.0.0/8 for up
// to 262,144 services of MaxEndpoints endpoints.
func Address(i, e int) string {
	idx := i*MaxEndpoints + e
	return fmt.Sprintf("10.%d.%d.%d", (idx>>16)&255, (idx>>8)&255, idx&255)
}

// ToIPv6 turns the objects of a generated cluster into those of an
// IPv6-only one, in place: each slice's addresses become IPv6 addresses
// (canonical, as the API server returns them, and as unique as the IPv4
// ones) and each Service's family and cluster IP IPv6. It returns objs.
func ToIPv6(objs []runtime.Object) []runtime.Object {
	for _, o := range objs {
		switch o := o.(type) {
		case *discoveryv1.EndpointSlice:
			o.AddressType = discoveryv1.AddressTypeIPv6
			for i := range o.Endpoints {
				for j, a := range o.Endpoints[i].Addresses {
					o.Endpoints[i].Addresses[j] = ipv6(a, "fd00:10")
				}
			}
		case *corev1.Service:
			o.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol}
			o.Spec.ClusterIP = ipv6(o.Spec.ClusterIP, "fd00:96")
		}
	}
	return objs
}

// ipv6 maps the IPv4 address a.b.c.d to prefix:(b+1):(c+1)::(d+1), in hex.
func ipv6(v4, prefix string) string {
	var a, b, c, d int
	if _, err := fmt.Sscanf(v4, "%d.%d.%d.%d", &a, &b, &c, &d); err != nil {
		panic(fmt.Sprintf("clustergen: %q: %v", v4, err))
	}
	return fmt.Sprintf("%s:%x:%x::%x", prefix, b+1, c+1, d+1)
}

// Write writes the objects as multi-document YAML, as kubectl takes them.
func Write(w io.Writer, objs []runtime.Object) error {
	for _, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "---\n%s", data); err != nil {
			return err
		}
	}
	return nil
}
