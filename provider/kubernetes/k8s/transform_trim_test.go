package k8s_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

func TestTransformTrimsMetadataOfEveryKind(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  runtime.Object
		// keepsLabels is true for Ingresses, whose labels the label
		// selector is checked against; the labels that other kinds keep
		// (of slices and Nodes) are not in fatMeta.
		keepsLabels bool
	}{
		{"Service", &corev1.Service{ObjectMeta: fatMeta("web", "shop")}, false},
		{"Ingress", &netv1.Ingress{ObjectMeta: fatMeta("web", "shop")}, true},
		{"IngressClass", &netv1.IngressClass{ObjectMeta: fatMeta("sliceway", "")}, false},
		{"Secret", &corev1.Secret{ObjectMeta: fatMeta("web-tls", "shop")}, false},
		{"EndpointSlice", &discoveryv1.EndpointSlice{ObjectMeta: fatMeta("web-1", "shop")}, false},
		{"Node", &corev1.Node{ObjectMeta: fatMeta("node-a", "")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := transformed(t, tc.obj)
			m, ok := out.(metav1.Object)
			require.True(t, ok, "%T", out)
			assert.Empty(t, m.GetManagedFields())
			// Neither kubectl's nor another tool's annotation is read.
			assert.Empty(t, m.GetAnnotations())
			if tc.keepsLabels {
				assert.Equal(t, map[string]string{"app": m.GetName()}, m.GetLabels())
			} else {
				assert.Empty(t, m.GetLabels())
			}
			// What identifies the object is kept.
			orig := tc.obj.(metav1.Object)
			assert.Equal(t, orig.GetName(), m.GetName())
			assert.Equal(t, orig.GetNamespace(), m.GetNamespace())
			assert.Equal(t, orig.GetUID(), m.GetUID())
			assert.Equal(t, orig.GetResourceVersion(), m.GetResourceVersion())
		})
	}
}

// TestTransformKeepsTheAnnotationsTranslationReads: the class annotations
// the transform keeps for every front end are named by the same constants
// that translation reads them by.
func TestTransformKeepsTheAnnotationsTranslationReads(t *testing.T) {
	assert.Equal(t, ingress.AnnotationIngressClass, k8s.IngressClassAnnotation)
	assert.Equal(t, ingress.AnnotationDefaultClass, k8s.DefaultClassAnnotation)
}

func TestTransformKeepsWhatTranslationReads(t *testing.T) {
	t.Run("EndpointSlice", func(t *testing.T) {
		s := &discoveryv1.EndpointSlice{
			ObjectMeta:  fatMeta("web-1", "shop"),
			AddressType: discoveryv1.AddressTypeIPv4,
			Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(8080))}},
			Endpoints: []discoveryv1.Endpoint{{
				Addresses:  []string{"10.0.0.1"},
				Conditions: discoveryv1.EndpointConditions{Ready: new(true), Serving: new(true), Terminating: new(false)},
				NodeName:   new("node-a"), Zone: new("zone-a"), Hostname: new("web-0"),
				TargetRef:          &corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-0", UID: "uid-0"},
				DeprecatedTopology: map[string]string{"topology.kubernetes.io/zone": "zone-a"},
				Hints:              &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "zone-a"}}},
			}, {
				Addresses:  []string{"10.0.0.2"},
				Conditions: discoveryv1.EndpointConditions{Ready: new(false), Serving: new(true)},
			}},
		}
		s.Labels[discoveryv1.LabelServiceName] = "web"
		s.Labels[discoveryv1.LabelManagedBy] = "endpointslice-controller.k8s.io"
		s.Annotations["endpoints.kubernetes.io/last-change-trigger-time"] = "2026-01-01T00:00:00Z"
		s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "web", UID: "uid-web", Controller: new(true)}}
		out := transformed(t, s).(*discoveryv1.EndpointSlice)
		want := s.DeepCopy()
		want.ManagedFields, want.Annotations, want.OwnerReferences = nil, nil, nil
		// Of the labels (the Service's, copied by the controller), the two read.
		delete(want.Labels, "app")
		// What no translation reads goes; the conditions keep their values.
		ep := &want.Endpoints[0]
		ep.NodeName, ep.Zone, ep.Hostname, ep.TargetRef, ep.DeprecatedTopology = nil, nil, nil, nil, nil
		assert.Equal(t, want, out)
		// Conditions of the same value share one pointer.
		assert.Same(t, out.Endpoints[0].Conditions.Serving, out.Endpoints[1].Conditions.Serving)
		assert.Same(t, out.Endpoints[0].Conditions.Ready, out.Endpoints[0].Conditions.Serving)
		assert.Same(t, out.Endpoints[0].Conditions.Terminating, out.Endpoints[1].Conditions.Ready)
		assert.Nil(t, out.Endpoints[1].Conditions.Terminating)
	})
	t.Run("Service", func(t *testing.T) {
		svc := &corev1.Service{
			ObjectMeta: fatMeta("web", "shop"),
			Spec: corev1.ServiceSpec{
				Type:      corev1.ServiceTypeLoadBalancer,
				ClusterIP: "10.96.0.1", ClusterIPs: []string{"10.96.0.1", "fd00::1"},
				IPFamilies:               []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol},
				IPFamilyPolicy:           new(corev1.IPFamilyPolicyPreferDualStack),
				Ports:                    []corev1.ServicePort{{Name: "http", Port: 80, NodePort: 30080, TargetPort: intstr.FromString("web")}},
				PublishNotReadyAddresses: true,
				Selector:                 map[string]string{"app": "web"},
				SessionAffinity:          corev1.ServiceAffinityClientIP,
				SessionAffinityConfig:    &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: new(int32(60))}},
				ExternalTrafficPolicy:    corev1.ServiceExternalTrafficPolicyLocal,
				HealthCheckNodePort:      31000,
				InternalTrafficPolicy:    new(corev1.ServiceInternalTrafficPolicyCluster),
				LoadBalancerSourceRanges: []string{"192.0.2.0/24"},
			},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{Hostname: "lb.example"}}}},
		}
		svc.Annotations["traefik.ingress.kubernetes.io/service.serversscheme"] = "https"
		out := transformed(t, svc).(*corev1.Service)
		want := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{
				Name: "web", Namespace: "shop", UID: "uid-web", ResourceVersion: "42", Generation: 3,
				CreationTimestamp: svc.CreationTimestamp,
				Annotations:       map[string]string{"traefik.ingress.kubernetes.io/service.serversscheme": "https"},
			},
			Spec: corev1.ServiceSpec{
				Type:                     corev1.ServiceTypeLoadBalancer,
				ClusterIP:                "10.96.0.1",
				IPFamilies:               []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol},
				Ports:                    []corev1.ServicePort{{Name: "http", Port: 80, NodePort: 30080, TargetPort: intstr.FromString("web")}},
				PublishNotReadyAddresses: true,
			},
			Status: svc.Status,
		}
		assert.Equal(t, want, out)
	})
	t.Run("ExternalName Service", func(t *testing.T) {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "ext", Namespace: "shop"},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "api.example.com", Ports: []corev1.ServicePort{{Port: 443}}},
		}
		assert.Equal(t, svc, transformed(t, svc))
	})
	t.Run("Ingress", func(t *testing.T) {
		ing := &netv1.Ingress{
			ObjectMeta: fatMeta("web", "shop"),
			Spec:       netv1.IngressSpec{IngressClassName: new("sliceway"), Rules: []netv1.IngressRule{{Host: "web.example"}}},
		}
		ing.Annotations[k8s.IngressClassAnnotation] = "traefik"
		ing.Annotations["traefik.ingress.kubernetes.io/router.entrypoints"] = "websecure"
		ing.Annotations["cert-manager.io/cluster-issuer"] = "letsencrypt"
		out := transformed(t, ing).(*netv1.Ingress)
		want := ing.DeepCopy()
		want.ManagedFields = nil
		want.Annotations = map[string]string{
			k8s.IngressClassAnnotation:                         "traefik",
			"traefik.ingress.kubernetes.io/router.entrypoints": "websecure",
		}
		assert.Equal(t, want, out)
	})
	t.Run("IngressClass", func(t *testing.T) {
		ic := &netv1.IngressClass{
			ObjectMeta: fatMeta("sliceway", ""),
			Spec:       netv1.IngressClassSpec{Controller: ingress.ControllerName},
		}
		ic.Annotations[k8s.DefaultClassAnnotation] = "true"
		out := transformed(t, ic).(*netv1.IngressClass)
		assert.Equal(t, map[string]string{k8s.DefaultClassAnnotation: "true"}, out.Annotations)
		assert.Equal(t, ic.Spec, out.Spec)
	})
	t.Run("IngressClass without annotations", func(t *testing.T) {
		ic := &netv1.IngressClass{
			ObjectMeta: metav1.ObjectMeta{Name: "sliceway"},
			Spec:       netv1.IngressClassSpec{Controller: ingress.ControllerName},
		}
		out := transformed(t, ic).(*netv1.IngressClass)
		assert.Equal(t, ic, out)
	})
}
