package k8s_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTransformPacksAddresses(t *testing.T) {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "web-1", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.0.0.1", "10.0.0.22"}},
			{}, // no address: invalid, kept as it is for the selection to report
			{Addresses: []string{"10.0.0.3"}},
		},
	}
	out := transformed(t, s).(*discoveryv1.EndpointSlice)
	assert.Equal(t, s.Endpoints, out.Endpoints, "the same addresses")
	assert.Equal(t, s.Labels, out.Labels, "nothing to drop: the same labels")
	eps := out.Endpoints
	for i, ep := range eps {
		assert.Equal(t, len(ep.Addresses), cap(ep.Addresses), "endpoint %d: an append must not write over the next endpoint's", i)
	}
	// One array of strings, one text.
	next := func(p *string) *string { return (*string)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(""))) }
	assert.Same(t, next(&eps[0].Addresses[1]), &eps[2].Addresses[0])
	assert.Equal(t, unsafe.Add(unsafe.Pointer(unsafe.StringData(eps[0].Addresses[1])), len(eps[0].Addresses[1])), unsafe.Pointer(unsafe.StringData(eps[2].Addresses[0])))
	// A slice without endpoints comes through.
	empty := transformed(t, &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "web-2"}}).(*discoveryv1.EndpointSlice)
	assert.Empty(t, empty.Endpoints)
	assert.Nil(t, empty.Labels)
}

func TestTransformPacksRules(t *testing.T) {
	prefix, exact := netv1.PathTypePrefix, netv1.PathTypeExact
	path := func(p string, pt *netv1.PathType, svc string) netv1.HTTPIngressPath {
		return netv1.HTTPIngressPath{Path: p, PathType: pt, Backend: netv1.IngressBackend{
			Service: &netv1.IngressServiceBackend{Name: svc, Port: netv1.ServiceBackendPort{Name: "http"}}}}
	}
	ingress := func(rules ...netv1.IngressRule) *netv1.Ingress {
		return &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: netv1.IngressSpec{
			TLS:            []netv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "web-tls"}},
			DefaultBackend: &netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "fallback", Port: netv1.ServiceBackendPort{Number: 80}}},
			Rules:          rules,
		}}
	}
	rule := func(host string, paths ...netv1.HTTPIngressPath) netv1.IngressRule {
		return netv1.IngressRule{Host: host, IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: paths}}}
	}

	// One rule of one path: the same values, in one allocation.
	in := ingress(rule("shop.example.com", path("/cart", &prefix, "cart")))
	out := transformed(t, in).(*netv1.Ingress)
	require.Equal(t, in.Spec, out.Spec)
	r := &out.Spec.Rules[0]
	p := &r.HTTP.Paths[0]
	base := uintptr(unsafe.Pointer(r))
	for what, at := range map[string]unsafe.Pointer{"the rule's paths": unsafe.Pointer(r.HTTP), "the path": unsafe.Pointer(p),
		"its Service": unsafe.Pointer(p.Backend.Service), "its path type": unsafe.Pointer(p.PathType)} {
		assert.Less(t, uintptr(at)-base, uintptr(256), "%s: not beside the rule", what)
	}
	assert.Equal(t, 1, cap(out.Spec.Rules))
	assert.Equal(t, 1, cap(r.HTTP.Paths), "an append must not write over the block")

	// Other shapes are left as they are.
	for name, in := range map[string]*netv1.Ingress{
		"two paths":       ingress(rule("shop.example.com", path("/cart", &prefix, "cart"), path("/pay", &exact, "pay"))),
		"two rules":       ingress(rule("a.example.com", path("/", &prefix, "a")), rule("b.example.com", path("/", &prefix, "b"))),
		"no path type":    ingress(rule("shop.example.com", path("/cart", nil, "cart"))),
		"no http":         ingress(netv1.IngressRule{Host: "shop.example.com"}),
		"no rules":        ingress(),
		"a resource path": ingress(rule("shop.example.com", netv1.HTTPIngressPath{Path: "/", PathType: &prefix, Backend: netv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}}})),
	} {
		out := transformed(t, in).(*netv1.Ingress)
		assert.Equal(t, in.Spec, out.Spec, name)
	}
}
