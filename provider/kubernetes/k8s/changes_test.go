package k8s

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"
)

// Each table below starts from a fresh object of one kind, applies an update
// and says whether Changed must report it. The updates that must count cover
// every field translation (or the status writer) reads; the ones that must
// not are what a real cluster sends all the time without changing the output.

// commonIgnored are the metadata-only updates every kind receives from the
// API server and from kubectl, none of which can change the output.
func commonIgnored(meta func(runtime.Object) *metav1.ObjectMeta) []struct {
	name   string
	mutate func(runtime.Object)
} {
	return []struct {
		name   string
		mutate func(runtime.Object)
	}{
		{"resourceVersion only", func(o runtime.Object) { meta(o).ResourceVersion = "999" }},
		{"managedFields", func(o runtime.Object) {
			meta(o).ManagedFields = []metav1.ManagedFieldsEntry{{
				Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate,
				APIVersion: "v1", Time: &metav1.Time{Time: time.Unix(1700000000, 0)},
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`),
			}}
		}},
		{"last-applied annotation", func(o runtime.Object) {
			setAnnotation(meta(o), LastAppliedAnnotation, `{"apiVersion":"v1","kind":"Whatever"}`)
		}},
		{"annotation of another tool", func(o runtime.Object) {
			setAnnotation(meta(o), "meta.helm.sh/release-name", "shop")
		}},
		{"leader-election annotation", func(o runtime.Object) {
			setAnnotation(meta(o), "control-plane.alpha.kubernetes.io/leader", `{"holderIdentity":"x"}`)
		}},
		{"generation", func(o runtime.Object) { meta(o).Generation++ }},
		{"finalizers and owner references", func(o runtime.Object) {
			meta(o).Finalizers = append(meta(o).Finalizers, "example.com/keep")
			meta(o).OwnerReferences = append(meta(o).OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u"})
		}},
	}
}

func setAnnotation(m *metav1.ObjectMeta, k, v string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[k] = v
}

type changeCase[T runtime.Object] struct {
	name   string
	mutate func(T)
	want   bool
}

// runChangeCases checks Changed(base, mutated) and, since an update can go
// either way, Changed(mutated, base).
func runChangeCases[T runtime.Object](t *testing.T, base func() T, cases []changeCase[T]) {
	t.Helper()
	// The base compares equal to an identical, independently built copy.
	require.False(t, Changed(base(), base()), "two builds of the same object")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old, updated := base(), base()
			tc.mutate(updated)
			assert.Equal(t, tc.want, Changed(old, updated), "old -> new")
			assert.Equal(t, tc.want, Changed(updated, old), "new -> old")
		})
	}
}

// withCommon adds the metadata-only updates, all of which must not count.
func withCommon[T runtime.Object](cases []changeCase[T], meta func(T) *metav1.ObjectMeta) []changeCase[T] {
	for _, c := range commonIgnored(func(o runtime.Object) *metav1.ObjectMeta { return meta(o.(T)) }) {
		mutate := c.mutate
		cases = append(cases, changeCase[T]{name: c.name, mutate: func(o T) { mutate(o) }, want: false})
	}
	return cases
}

// testSlice builds a slice with every pointer field set, from fresh
// pointers each time: two calls give equal values behind distinct pointers.
func testSlice() *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-abc12", Namespace: "shop", ResourceVersion: "10", UID: "uid-slice", Generation: 1,
			Labels: map[string]string{
				discoveryv1.LabelServiceName: "web",
				ManagedByLabel:               "endpointslice-controller.k8s.io",
				"app":                        "web",
			},
			Annotations: map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": "2026-01-01T00:00:00Z"},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{
			Name: new("http"), Port: new(int32(8080)), Protocol: new(corev1.ProtocolTCP), AppProtocol: new("http"),
		}},
		Endpoints: []discoveryv1.Endpoint{
			{
				Addresses:  []string{"10.0.0.1"},
				Conditions: discoveryv1.EndpointConditions{Ready: new(true), Serving: new(true), Terminating: new(false)},
				Hostname:   new("web-0"),
				NodeName:   new("node-a"),
				Zone:       new("zone-a"),
				Hints:      &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "zone-a"}}},
				TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-0", UID: "uid-pod-0"},
			},
			{
				Addresses:  []string{"10.0.0.2"},
				Conditions: discoveryv1.EndpointConditions{Ready: new(false), Serving: new(true), Terminating: new(true)},
				NodeName:   new("node-b"),
				Zone:       new("zone-b"),
			},
		},
	}
}

func TestChangedEndpointSlice(t *testing.T) {
	type S = *discoveryv1.EndpointSlice
	cases := []changeCase[S]{
		{"address type", func(s S) { s.AddressType = discoveryv1.AddressTypeIPv6 }, true},
		{"port number", func(s S) { s.Ports[0].Port = new(int32(9090)) }, true},
		{"port name", func(s S) { s.Ports[0].Name = new("web") }, true},
		{"port name removed", func(s S) { s.Ports[0].Name = nil }, true},
		{"port protocol", func(s S) { s.Ports[0].Protocol = new(corev1.ProtocolUDP) }, true},
		{"port app protocol", func(s S) { s.Ports[0].AppProtocol = new("kubernetes.io/h2c") }, true},
		{"port added", func(s S) {
			s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: new("metrics"), Port: new(int32(9100))})
		}, true},
		{"ports removed", func(s S) { s.Ports = nil }, true},
		{"endpoint address", func(s S) { s.Endpoints[0].Addresses = []string{"10.0.0.9"} }, true},
		{"endpoint added", func(s S) {
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.0.3"}})
		}, true},
		{"endpoint removed", func(s S) { s.Endpoints = s.Endpoints[:1] }, true},
		{"endpoints reordered", func(s S) { s.Endpoints[0], s.Endpoints[1] = s.Endpoints[1], s.Endpoints[0] }, true},
		{"ready", func(s S) { s.Endpoints[0].Conditions.Ready = new(false) }, true},
		{"ready unset", func(s S) { s.Endpoints[0].Conditions.Ready = nil }, true},
		{"serving", func(s S) { s.Endpoints[1].Conditions.Serving = new(false) }, true},
		{"terminating", func(s S) { s.Endpoints[1].Conditions.Terminating = new(false) }, true},
		{"zone hint", func(s S) { s.Endpoints[0].Hints.ForZones[0].Name = "zone-b" }, true},
		{"hints removed", func(s S) { s.Endpoints[0].Hints = nil }, true},
		{"node hint", func(s S) {
			s.Endpoints[0].Hints.ForNodes = []discoveryv1.ForNode{{Name: "node-a"}}
		}, true},
		{"zone", func(s S) { s.Endpoints[0].Zone = new("zone-c") }, true},
		{"zone removed", func(s S) { s.Endpoints[1].Zone = nil }, true},
		{"node name", func(s S) { s.Endpoints[0].NodeName = new("node-c") }, true},
		{"service-name label", func(s S) { s.Labels[discoveryv1.LabelServiceName] = "api" }, true},
		{"service-name label removed", func(s S) { delete(s.Labels, discoveryv1.LabelServiceName) }, true},
		{"managed-by label", func(s S) { s.Labels[ManagedByLabel] = "my-controller" }, true},
		{"managed-by label removed", func(s S) { delete(s.Labels, ManagedByLabel) }, true},

		{"last-change-trigger-time annotation", func(s S) {
			s.Annotations["endpoints.kubernetes.io/last-change-trigger-time"] = "2026-01-01T00:00:05Z"
		}, false},
		{"annotations removed", func(s S) { s.Annotations = nil }, false},
		{"unrelated label", func(s S) { s.Labels["app"] = "web-v2" }, false},
		{"label added", func(s S) { s.Labels["pod-template-hash"] = "abc" }, false},
		// Two decodes of the same slice: equal values behind new pointers.
		{"same values behind new pointers", func(s S) {
			fresh := testSlice()
			s.Ports = fresh.Ports
			s.Endpoints = fresh.Endpoints
		}, false},
	}
	runChangeCases(t, testSlice, withCommon(cases, func(s S) *metav1.ObjectMeta { return &s.ObjectMeta }))
}

// TestChangedComparesValuesNotPointers builds the same slice twice, field by
// field, and checks that no pointer is shared, so that the comparison can
// only succeed on values.
func TestChangedComparesValuesNotPointers(t *testing.T) {
	a, b := testSlice(), testSlice()
	require.NotSame(t, a.Ports[0].Port, b.Ports[0].Port)
	require.NotSame(t, a.Ports[0].Name, b.Ports[0].Name)
	require.NotSame(t, a.Endpoints[0].Conditions.Ready, b.Endpoints[0].Conditions.Ready)
	require.NotSame(t, a.Endpoints[0].Zone, b.Endpoints[0].Zone)
	require.NotSame(t, a.Endpoints[0].NodeName, b.Endpoints[0].NodeName)
	assert.False(t, Changed(a, b), "independently built copies")

	// Deep copies, as an informer holds, have distinct pointers too.
	c, d := a.DeepCopy(), a.DeepCopy()
	require.NotSame(t, c.Ports[0].Port, d.Ports[0].Port)
	d.ResourceVersion = "11"
	assert.False(t, Changed(c, d), "deep copies")

	// No endpoints is no endpoints, whether the list is nil or empty.
	e, f := testSlice(), testSlice()
	e.Endpoints, f.Endpoints = nil, []discoveryv1.Endpoint{}
	assert.False(t, Changed(e, f), "nil and empty endpoints")

	// And a value change behind a pointer is seen.
	*d.Ports[0].Port = 8081
	assert.True(t, Changed(c, d), "a value behind a pointer changed")
}

func testService() *corev1.Service {
	return &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "shop", ResourceVersion: "20", UID: "uid-svc",
			Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{
				"traefik.ingress.kubernetes.io/service.serversscheme": "http",
				"prometheus.io/scrape":                                "true",
			},
		},
		Spec: corev1.ServiceSpec{
			Type:       corev1.ServiceTypeClusterIP,
			ClusterIP:  "10.96.0.10",
			ClusterIPs: []string{"10.96.0.10"},
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Selector:   map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{
				Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080),
			}},
		},
	}
}

func TestChangedService(t *testing.T) {
	type S = *corev1.Service
	cases := []changeCase[S]{
		{"port number", func(s S) { s.Spec.Ports[0].Port = 8080 }, true},
		{"port name", func(s S) { s.Spec.Ports[0].Name = "web" }, true},
		{"target port", func(s S) { s.Spec.Ports[0].TargetPort = intstr.FromString("http") }, true},
		{"node port", func(s S) { s.Spec.Ports[0].NodePort = 30080 }, true},
		{"port added", func(s S) { s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443}) }, true},
		{"type", func(s S) { s.Spec.Type = corev1.ServiceTypeNodePort }, true},
		{"external name", func(s S) {
			s.Spec.Type = corev1.ServiceTypeExternalName
			s.Spec.ExternalName = "web.example.com"
		}, true},
		{"cluster IP", func(s S) { s.Spec.ClusterIP = "10.96.0.11" }, true},
		{"selector", func(s S) { s.Spec.Selector["tier"] = "front" }, true},
		{"traefik annotation changed", func(s S) {
			s.Annotations["traefik.ingress.kubernetes.io/service.serversscheme"] = "https"
		}, true},
		{"traefik annotation added", func(s S) {
			s.Annotations["traefik.ingress.kubernetes.io/service.nativelb"] = "true"
		}, true},
		{"traefik annotation removed", func(s S) {
			delete(s.Annotations, "traefik.ingress.kubernetes.io/service.serversscheme")
		}, true},
		{"all annotations removed", func(s S) { s.Annotations = nil }, true},
		{"load-balancer status", func(s S) {
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}
		}, true},

		{"annotation of another tool changed", func(s S) { s.Annotations["prometheus.io/scrape"] = "false" }, false},
		{"annotation of another tool removed", func(s S) { delete(s.Annotations, "prometheus.io/scrape") }, false},
		{"cloud annotation", func(s S) {
			s.Annotations["service.beta.kubernetes.io/aws-load-balancer-type"] = "nlb"
		}, false},
		{"annotation that only looks like ours", func(s S) {
			s.Annotations["ingress.kubernetes.io/service.serversscheme"] = "https"
		}, false},
		{"labels", func(s S) { s.Labels["version"] = "2" }, false},
		{"status conditions", func(s S) {
			s.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "OK"}}
		}, false},
	}
	runChangeCases(t, testService, withCommon(cases, func(s S) *metav1.ObjectMeta { return &s.ObjectMeta }))
}

func testIngress() *netv1.Ingress {
	return &netv1.Ingress{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "shop", ResourceVersion: "30", UID: "uid-ing",
			Annotations: map[string]string{
				IngressClassAnnotation:                             "traefik",
				"traefik.ingress.kubernetes.io/router.entrypoints": "websecure",
				"traefik.ingress.kubernetes.io/router.middlewares": "shop-auth@kubernetescrd",
				"cert-manager.io/cluster-issuer":                   "letsencrypt",
				"nginx.ingress.kubernetes.io/proxy-body-size":      "8m",
				"kubectl.kubernetes.io/restartedAt":                "2026-01-01T00:00:00Z",
			},
		},
		Spec: netv1.IngressSpec{
			IngressClassName: new("sliceway"),
			TLS:              []netv1.IngressTLS{{Hosts: []string{"web.example"}, SecretName: "web-tls"}},
			Rules: []netv1.IngressRule{{
				Host: "web.example",
				IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
					Path: "/", PathType: new(netv1.PathTypePrefix),
					Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "web", Port: netv1.ServiceBackendPort{Name: "http"}}},
				}}}},
			}},
		},
	}
}

func TestChangedIngress(t *testing.T) {
	type I = *netv1.Ingress
	path := func(i I) *netv1.HTTPIngressPath { return &i.Spec.Rules[0].HTTP.Paths[0] }
	cases := []changeCase[I]{
		{"host", func(i I) { i.Spec.Rules[0].Host = "www.example" }, true},
		{"path", func(i I) { path(i).Path = "/app" }, true},
		{"path type", func(i I) { path(i).PathType = new(netv1.PathTypeExact) }, true},
		{"backend service", func(i I) { path(i).Backend.Service.Name = "api" }, true},
		{"backend port", func(i I) { path(i).Backend.Service.Port = netv1.ServiceBackendPort{Number: 80} }, true},
		{"rule added", func(i I) { i.Spec.Rules = append(i.Spec.Rules, netv1.IngressRule{Host: "api.example"}) }, true},
		{"tls secret", func(i I) { i.Spec.TLS[0].SecretName = "other-tls" }, true},
		{"tls removed", func(i I) { i.Spec.TLS = nil }, true},
		{"class name", func(i I) { i.Spec.IngressClassName = new("nginx") }, true},
		{"class name removed", func(i I) { i.Spec.IngressClassName = nil }, true},
		{"default backend", func(i I) {
			i.Spec.DefaultBackend = &netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "fallback", Port: netv1.ServiceBackendPort{Number: 80}}}
		}, true},
		{"class annotation", func(i I) { i.Annotations[IngressClassAnnotation] = "nginx" }, true},
		{"class annotation removed", func(i I) { delete(i.Annotations, IngressClassAnnotation) }, true},
		{"traefik annotation changed", func(i I) {
			i.Annotations["traefik.ingress.kubernetes.io/router.entrypoints"] = "web"
		}, true},
		{"traefik annotation added", func(i I) {
			i.Annotations["traefik.ingress.kubernetes.io/router.tls.options"] = "modern"
		}, true},
		{"traefik annotation removed", func(i I) {
			delete(i.Annotations, "traefik.ingress.kubernetes.io/router.middlewares")
		}, true},
		{"load-balancer status", func(i I) {
			i.Status.LoadBalancer.Ingress = []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}}
		}, true},

		{"annotation of another controller", func(i I) {
			i.Annotations["nginx.ingress.kubernetes.io/proxy-body-size"] = "16m"
		}, false},
		{"cert-manager annotation removed", func(i I) { delete(i.Annotations, "cert-manager.io/cluster-issuer") }, false},
		{"restartedAt annotation", func(i I) {
			i.Annotations["kubectl.kubernetes.io/restartedAt"] = "2026-01-02T00:00:00Z"
		}, false},
		{"annotation that only looks like ours", func(i I) {
			i.Annotations["ingress.kubernetes.io/router.entrypoints"] = "web"
		}, false},
		{"same spec behind new pointers", func(i I) { i.Spec = testIngress().Spec }, false},
	}
	runChangeCases(t, testIngress, withCommon(cases, func(i I) *metav1.ObjectMeta { return &i.ObjectMeta }))
}

func testIngressClass() *netv1.IngressClass {
	return &netv1.IngressClass{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "IngressClass"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "sliceway", ResourceVersion: "40", UID: "uid-class",
			Labels:      map[string]string{"app.kubernetes.io/name": "sliceway"},
			Annotations: map[string]string{DefaultClassAnnotation: "true"},
		},
		Spec: netv1.IngressClassSpec{Controller: "traefik.io/ingress-controller"},
	}
}

func TestChangedIngressClass(t *testing.T) {
	type C = *netv1.IngressClass
	cases := []changeCase[C]{
		{"controller", func(c C) { c.Spec.Controller = "k8s.io/ingress-nginx" }, true},
		{"is-default-class annotation", func(c C) { c.Annotations[DefaultClassAnnotation] = "false" }, true},
		{"is-default-class annotation removed", func(c C) { delete(c.Annotations, DefaultClassAnnotation) }, true},

		{"labels", func(c C) { c.Labels["app.kubernetes.io/version"] = "2" }, false},
		{"parameters", func(c C) {
			c.Spec.Parameters = &netv1.IngressClassParametersReference{Kind: "IngressParameters", Name: "p"}
		}, false},
	}
	runChangeCases(t, testIngressClass, withCommon(cases, func(c C) *metav1.ObjectMeta { return &c.ObjectMeta }))
}

func testSecret() *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-tls", Namespace: "shop", ResourceVersion: "50", UID: "uid-secret",
			Labels: map[string]string{"controller.cert-manager.io/fao": "true"},
		},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
			corev1.TLSPrivateKeyKey: []byte("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n"),
		},
	}
}

func TestChangedSecret(t *testing.T) {
	type S = *corev1.Secret
	cases := []changeCase[S]{
		{"type", func(s S) { s.Type = corev1.SecretTypeOpaque }, true},
		{"certificate", func(s S) {
			s.Data[corev1.TLSCertKey] = []byte("-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n")
		}, true},
		{"key", func(s S) { s.Data[corev1.TLSPrivateKeyKey] = nil }, true},
		{"key removed", func(s S) { delete(s.Data, corev1.TLSPrivateKeyKey) }, true},
		{"data added", func(s S) { s.Data["ca.crt"] = []byte("ca") }, true},
		{"data removed", func(s S) { s.Data = nil }, true},

		{"labels", func(s S) { s.Labels["controller.cert-manager.io/fao"] = "false" }, false},
		{"cert-manager annotation", func(s S) {
			setAnnotation(&s.ObjectMeta, "cert-manager.io/certificate-name", "web")
		}, false},
		{"same data in new slices", func(s S) { s.Data = testSecret().Data }, false},
	}
	runChangeCases(t, testSecret, withCommon(cases, func(s S) *metav1.ObjectMeta { return &s.ObjectMeta }))
}

func testNode() *corev1.Node {
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "node-a", ResourceVersion: "60", UID: "uid-node",
			Labels: map[string]string{
				ZoneLabel:              "zone-a",
				RegionLabel:            "region-1",
				corev1.LabelHostname:   "node-a",
				"kubernetes.io/os":     "linux",
				"node-role.example/db": "",
			},
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
		},
		Spec: corev1.NodeSpec{PodCIDR: "10.244.1.0/24"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "192.168.0.1"},
				{Type: corev1.NodeHostName, Address: "node-a"},
			},
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: metav1.Time{Time: time.Unix(1700000000, 0)},
			}},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Images:      []corev1.ContainerImage{{Names: []string{"nginx:1"}, SizeBytes: 1000}},
		},
	}
}

func TestChangedNode(t *testing.T) {
	type N = *corev1.Node
	cases := []changeCase[N]{
		{"internal IP", func(n N) { n.Status.Addresses[0].Address = "192.168.0.2" }, true},
		{"address type", func(n N) { n.Status.Addresses[0].Type = corev1.NodeExternalIP }, true},
		{"address added", func(n N) {
			n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "fd00::1"})
		}, true},
		{"addresses removed", func(n N) { n.Status.Addresses = nil }, true},
		{"zone label", func(n N) { n.Labels[ZoneLabel] = "zone-b" }, true},
		{"zone label removed", func(n N) { delete(n.Labels, ZoneLabel) }, true},
		{"region label", func(n N) { n.Labels[RegionLabel] = "region-2" }, true},

		{"heartbeat", func(n N) {
			n.Status.Conditions[0].LastHeartbeatTime = metav1.Time{Time: time.Unix(1700000010, 0)}
		}, false},
		{"condition", func(n N) {
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse})
		}, false},
		{"images", func(n N) {
			n.Status.Images = append(n.Status.Images, corev1.ContainerImage{Names: []string{"redis:7"}, SizeBytes: 2000})
		}, false},
		{"allocatable", func(n N) { n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("1500m") }, false},
		{"capacity", func(n N) { n.Status.Capacity[corev1.ResourceMemory] = resource.MustParse("4Gi") }, false},
		{"volumes in use", func(n N) { n.Status.VolumesInUse = []corev1.UniqueVolumeName{"kubernetes.io/csi/x"} }, false},
		{"unrelated label", func(n N) { n.Labels["kubernetes.io/os"] = "windows" }, false},
		{"spec", func(n N) { n.Spec.Unschedulable = true }, false},
		{"node annotation", func(n N) { n.Annotations["node.alpha.kubernetes.io/ttl"] = "30" }, false},
	}
	runChangeCases(t, testNode, withCommon(cases, func(n N) *metav1.ObjectMeta { return &n.ObjectMeta }))
}

func TestChangedMismatchedAndUnknownKinds(t *testing.T) {
	objects := map[string]runtime.Object{
		"EndpointSlice": testSlice(),
		"Service":       testService(),
		"Ingress":       testIngress(),
		"IngressClass":  testIngressClass(),
		"Secret":        testSecret(),
		"Node":          testNode(),
	}
	for oldKind, o := range objects {
		for newKind, n := range objects {
			if oldKind == newKind {
				continue
			}
			assert.True(t, Changed(o, n), "%s -> %s", oldKind, newKind)
		}
	}

	configMap := func() *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "shop", ResourceVersion: "1"}}
	}
	for _, tc := range []struct {
		name     string
		old, new any
	}{
		{"unknown kind, identical", configMap(), configMap()},
		{"unknown kind -> known kind", configMap(), testSlice()},
		{"known kind -> unknown kind", testSlice(), configMap()},
		{"tombstone", cache.DeletedFinalStateUnknown{Key: "shop/web", Obj: testSlice()}, cache.DeletedFinalStateUnknown{Key: "shop/web", Obj: testSlice()}},
		{"slice -> nil", testSlice(), nil},
		{"nil", nil, nil},
		{"not an object", "a", "a"},
		{"values, not pointers", *testSlice(), *testSlice()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.True(t, Changed(tc.old, tc.new))
		})
	}
}

type notification struct {
	kind    string
	changed bool
}

func recordNotify() (*[]notification, Notify) {
	var got []notification
	return &got, func(kind string, changed bool) { got = append(got, notification{kind, changed}) }
}

func TestEventHandler(t *testing.T) {
	withRV := func(s *discoveryv1.EndpointSlice, rv string) *discoveryv1.EndpointSlice {
		s.ResourceVersion = rv
		return s
	}
	moved := func(rv string) *discoveryv1.EndpointSlice {
		s := withRV(testSlice(), rv)
		s.Endpoints[0].Addresses = []string{"10.0.0.9"}
		return s
	}
	annotated := func(rv string) *discoveryv1.EndpointSlice {
		s := withRV(testSlice(), rv)
		s.Annotations["endpoints.kubernetes.io/last-change-trigger-time"] = "later"
		return s
	}
	resync := testSlice()

	for _, tc := range []struct {
		name  string
		event func(cache.ResourceEventHandler)
		want  notification
	}{
		{"add", func(h cache.ResourceEventHandler) { h.OnAdd(testSlice(), false) }, notification{"EndpointSlice", true}},
		{"initial add", func(h cache.ResourceEventHandler) { h.OnAdd(testSlice(), true) }, notification{"EndpointSlice", true}},
		{"delete", func(h cache.ResourceEventHandler) { h.OnDelete(testSlice()) }, notification{"EndpointSlice", true}},
		{"delete of a tombstone", func(h cache.ResourceEventHandler) {
			h.OnDelete(cache.DeletedFinalStateUnknown{Key: "shop/web-abc12", Obj: testSlice()})
		}, notification{"EndpointSlice", true}},
		{"resync: the same object", func(h cache.ResourceEventHandler) { h.OnUpdate(resync, resync) }, notification{"EndpointSlice", false}},
		// The same resourceVersion is a resync: it is dropped without looking
		// further, so even objects Changed would report (a different
		// address, or even a different kind) give false.
		{"same resourceVersion, different content", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), "10"), moved("10"))
		}, notification{"EndpointSlice", false}},
		{"same resourceVersion, different kinds", func(h cache.ResourceEventHandler) {
			svc := testService()
			svc.ResourceVersion = "10"
			h.OnUpdate(withRV(testSlice(), "10"), svc)
		}, notification{"EndpointSlice", false}},
		// A different resourceVersion goes to Changed.
		{"new resourceVersion, real change", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), "10"), moved("11"))
		}, notification{"EndpointSlice", true}},
		{"new resourceVersion, ignored change", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), "10"), annotated("11"))
		}, notification{"EndpointSlice", false}},
		{"new resourceVersion, different kinds", func(h cache.ResourceEventHandler) {
			svc := testService()
			svc.ResourceVersion = "11"
			h.OnUpdate(withRV(testSlice(), "10"), svc)
		}, notification{"EndpointSlice", true}},
		// Without resourceVersions (objects not from an API server) there is
		// no resync to recognise: Changed decides.
		{"no resourceVersion, real change", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), ""), moved(""))
		}, notification{"EndpointSlice", true}},
		{"no resourceVersion, ignored change", func(h cache.ResourceEventHandler) {
			h.OnUpdate(withRV(testSlice(), ""), annotated(""))
		}, notification{"EndpointSlice", false}},
		{"objects without metadata", func(h cache.ResourceEventHandler) { h.OnUpdate("a", "a") }, notification{"EndpointSlice", true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, notify := recordNotify()
			var changes []string
			tc.event(EventHandler("EndpointSlice", notify, func(kind string, old, new any) {
				changes = append(changes, fmt.Sprintf("%s old=%t new=%t", kind, old != nil, new != nil))
			}))
			assert.Equal(t, []notification{tc.want}, *got)
			// OnChange hears exactly the events that count, with their objects.
			if tc.want.changed {
				assert.Len(t, changes, 1)
			} else {
				assert.Empty(t, changes)
			}
		})
	}
}

// TestEventHandlerPassesItsKind checks that every kind's handler names its
// own kind, for metrics.
func TestEventHandlerPassesItsKind(t *testing.T) {
	objects := []struct {
		kind string
		obj  func() runtime.Object
		bump func(runtime.Object)
	}{
		{"EndpointSlice", func() runtime.Object { return testSlice() }, func(o runtime.Object) {
			o.(*discoveryv1.EndpointSlice).AddressType = discoveryv1.AddressTypeIPv6
		}},
		{"Service", func() runtime.Object { return testService() }, func(o runtime.Object) { o.(*corev1.Service).Spec.Ports[0].Port = 81 }},
		{"Ingress", func() runtime.Object { return testIngress() }, func(o runtime.Object) { o.(*netv1.Ingress).Spec.Rules[0].Host = "x" }},
		{"IngressClass", func() runtime.Object { return testIngressClass() }, func(o runtime.Object) {
			o.(*netv1.IngressClass).Spec.Controller = "x"
		}},
		{"Secret", func() runtime.Object { return testSecret() }, func(o runtime.Object) { o.(*corev1.Secret).Type = "x" }},
		{"Node", func() runtime.Object { return testNode() }, func(o runtime.Object) { o.(*corev1.Node).Labels[ZoneLabel] = "x" }},
	}
	for _, o := range objects {
		t.Run(o.kind, func(t *testing.T) {
			got, notify := recordNotify()
			var changes []string
			h := EventHandler(o.kind, notify, func(kind string, old, new any) {
				changes = append(changes, fmt.Sprintf("%s old=%t new=%t", kind, old != nil, new != nil))
			})
			old := o.obj()
			filtered := o.obj()
			filtered.(metav1.Object).SetResourceVersion("1000")
			changed := o.obj()
			changed.(metav1.Object).SetResourceVersion("1001")
			o.bump(changed)
			h.OnAdd(old, false)
			h.OnUpdate(old, filtered)
			h.OnUpdate(filtered, changed)
			h.OnDelete(changed)
			assert.Equal(t, []notification{{o.kind, true}, {o.kind, false}, {o.kind, true}, {o.kind, true}}, *got)
			k := o.kind
			assert.Equal(t, []string{k + " old=false new=true", k + " old=true new=true", k + " old=true new=false"}, changes)
		})
	}
}
