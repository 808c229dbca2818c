package k8s

import (
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
	assert.False(t, testKeep.Changed(a, b), "independently built copies")

	// Deep copies, as an informer holds, have distinct pointers too.
	c, d := a.DeepCopy(), a.DeepCopy()
	require.NotSame(t, c.Ports[0].Port, d.Ports[0].Port)
	d.ResourceVersion = "11"
	assert.False(t, testKeep.Changed(c, d), "deep copies")

	// No endpoints is no endpoints, whether the list is nil or empty.
	e, f := testSlice(), testSlice()
	e.Endpoints, f.Endpoints = nil, []discoveryv1.Endpoint{}
	assert.False(t, testKeep.Changed(e, f), "nil and empty endpoints")

	// And a value change behind a pointer is seen.
	*d.Ports[0].Port = 8081
	assert.True(t, testKeep.Changed(c, d), "a value behind a pointer changed")
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
			i.Annotations["alb.ingress.kubernetes.io/scheme"] = "internet-facing"
		}, false},
		// The ingress-nginx dialect reads these, the Traefik-style one
		// (testKeep) does not.
		{"ingress-nginx annotation", func(i I) {
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

// The ingress-nginx controller's ConfigMap: its data is all the dialect reads.
func TestChangedConfigMap(t *testing.T) {
	type C = *corev1.ConfigMap
	fresh := func() C {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "ingress-nginx-controller", Namespace: "ingress-nginx", ResourceVersion: "1",
				Labels: map[string]string{"app.kubernetes.io/name": "ingress-nginx"}},
			Data: map[string]string{"ssl-redirect": "false", "block-cidrs": "10.0.0.0/8"},
		}
	}
	cases := []changeCase[C]{
		{"value", func(c C) { c.Data["ssl-redirect"] = "true" }, true},
		{"key added", func(c C) { c.Data["hsts"] = "false" }, true},
		{"key removed", func(c C) { delete(c.Data, "block-cidrs") }, true},
		{"data removed", func(c C) { c.Data = nil }, true},

		{"labels", func(c C) { c.Labels["helm.sh/chart"] = "ingress-nginx-4.15.1" }, false},
		{"binary data", func(c C) { c.BinaryData = map[string][]byte{"x": {1}} }, false},
		{"same data in a new map", func(c C) { c.Data = fresh().Data }, false},
	}
	runChangeCases(t, fresh, withCommon(cases, func(c C) *metav1.ObjectMeta { return &c.ObjectMeta }))
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
			assert.True(t, testKeep.Changed(o, n), "%s -> %s", oldKind, newKind)
		}
	}

	configMap := func() *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "shop", ResourceVersion: "1"}}
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
			assert.True(t, testKeep.Changed(tc.old, tc.new))
		})
	}
}
