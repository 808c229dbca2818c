package testobjects

import (
	"fmt"
	"strings"

	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotation is the name of the provider's annotation key, such as
// router.middlewares, with its prefix.
func Annotation(key string) string { return traefikAnnotationPrefix + key }

// traefikAnnotationPrefix is spelt out here, not taken from the front end:
// the test objects say what a user writes.
const traefikAnnotationPrefix = "traefik.ingress.kubernetes.io/"

// ManyPaths is an Ingress of n Prefix paths on host to Service svc's port
// 80, with annotations.
func ManyPaths(ns, name, host, svc string, n int, annotations map[string]string) *netv1.Ingress {
	prefix := netv1.PathTypePrefix
	paths := make([]netv1.HTTPIngressPath, n)
	for i := range paths {
		paths[i] = netv1.HTTPIngressPath{Path: fmt.Sprintf("/section/%05d", i), PathType: &prefix,
			Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: svc, Port: netv1.ServiceBackendPort{Number: 80}}}}
	}
	return &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: host, IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: paths}}}}}}
}

// MiddlewareNames is a router.middlewares annotation of n names
// m00000@file, m00001@file, ...
func MiddlewareNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("m%05d@file", i)
	}
	return strings.Join(names, ",")
}
