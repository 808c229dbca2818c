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

	"github.com/sliceway/sliceway/fixtures"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// fatten adds to an object what a real cluster adds and translation never
// reads, so that Transform has something to drop.
func fatten(obj runtime.Object) {
	m := obj.(metav1.Object)
	fat := fatMeta(m.GetName(), m.GetNamespace())
	m.SetManagedFields(fat.ManagedFields)
	annotations := m.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[k8s.LastAppliedAnnotation] = fat.Annotations[k8s.LastAppliedAnnotation]
	m.SetAnnotations(annotations)
	switch o := obj.(type) {
	case *discoveryv1.EndpointSlice:
		o.Annotations["endpoints.kubernetes.io/last-change-trigger-time"] = "2026-01-01T00:00:00Z"
	case *corev1.Service:
		o.Annotations["meta.helm.sh/release-name"] = "demo"
		o.Labels = map[string]string{"app.kubernetes.io/managed-by": "Helm"}
		o.Spec.Selector = map[string]string{"app": o.Name}
		o.Spec.ClusterIPs = []string{o.Spec.ClusterIP}
		o.Spec.SessionAffinity = corev1.ServiceAffinityNone
	case *netv1.Ingress:
		o.Annotations["cert-manager.io/cluster-issuer"] = "letsencrypt"
	case *corev1.Secret:
		o.Annotations["cert-manager.io/certificate-name"] = o.Name
		o.Data["ca.crt"] = []byte("a CA nobody reads")
		o.StringData = map[string]string{"note": "never read"}
	case *corev1.Node:
		o.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		o.Status.Images = []corev1.ContainerImage{{Names: []string{"nginx:1"}}}
		o.Labels["kubernetes.io/os"] = "linux"
	}
}

// TestTransformedUpdatesOfUnreadFieldsAreDropped: an update that changes
// only what Transform drops reaches the change filter as no change, so it
// renders nothing (the filter alone counts a selector as a change).
func TestTransformedUpdatesOfUnreadFieldsAreDropped(t *testing.T) {
	base := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", ResourceVersion: "1", Labels: map[string]string{"app": "web"}},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1", Ports: []corev1.ServicePort{{Name: "http", Port: 80}},
			Selector: map[string]string{"app": "web"}},
	}
	for _, tc := range []struct {
		name   string
		change func(*corev1.Service)
		raw    bool // whether the filter counts it on objects as the API server sends them
	}{
		{"selector", func(s *corev1.Service) { s.Spec.Selector = map[string]string{"app": "web", "tier": "front"} }, true},
		{"session affinity", func(s *corev1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }, true},
		{"traffic policy", func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal }, true},
		{"source ranges", func(s *corev1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"192.0.2.0/24"} }, true},
		{"second cluster IP", func(s *corev1.Service) { s.Spec.ClusterIPs = []string{"10.96.0.1", "fd00::1"} }, true},
		{"helm annotation", func(s *corev1.Service) { s.Annotations = map[string]string{"meta.helm.sh/release-name": "web"} }, false},
		{"label", func(s *corev1.Service) { s.Labels = map[string]string{"app": "web", "version": "2"} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			updated := base.DeepCopy()
			updated.ResourceVersion = "2"
			tc.change(updated)
			require.Equal(t, tc.raw, traefikReads.Changed(base, updated))
			assert.False(t, traefikReads.Changed(transformed(t, base), transformed(t, updated)))
		})
	}
	// What translation reads still counts.
	updated := base.DeepCopy()
	updated.ResourceVersion = "2"
	updated.Spec.PublishNotReadyAddresses = true
	assert.True(t, traefikReads.Changed(transformed(t, base), transformed(t, updated)))
}

// nodePortObjects add a node-port Service, so that Nodes are read too.
var nodePortObjects = []runtime.Object{
	&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "np", Namespace: "demo", Annotations: map[string]string{
			"traefik.ingress.kubernetes.io/service.nodeportlb": "true",
		}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: "10.96.0.16",
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, NodePort: 30080}}},
	},
	&netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "np", Namespace: "demo"},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: "np.example", IngressRuleValue: netv1.IngressRuleValue{
			HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
				Path: "/", PathType: new(netv1.PathTypePrefix),
				Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "np", Port: netv1.ServiceBackendPort{Number: 80}}},
			}}},
		}}}},
	},
	&corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{corev1.LabelTopologyZone: "zone-a"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "192.168.0.1"},
			{Type: corev1.NodeExternalIP, Address: "203.0.113.1"},
		}},
	},
}

// TestTransformedObjectsRenderTheSameConfiguration translates the demo
// cluster (plus a node-port Service) twice: from objects as the API server
// returns them, and from the same objects after Transform. The
// configurations and the reported problems must be the same.
func TestTransformedObjectsRenderTheSameConfiguration(t *testing.T) {
	objs, problems := manifests.Decode("demo.yaml", fixtures.Demo, manifests.IsUsedKind)
	require.Empty(t, problems)
	var rawObjects, trimmedObjects []any
	for _, o := range objs {
		fatten(o.Object)
		rawObjects = append(rawObjects, o.Object)
	}
	for _, o := range nodePortObjects {
		o = o.DeepCopyObject()
		fatten(o)
		rawObjects = append(rawObjects, o)
	}
	droppedSomething := false
	for _, o := range rawObjects {
		out := transformed(t, o.(runtime.Object))
		trimmedObjects = append(trimmedObjects, out)
		if len(out.(metav1.Object).GetManagedFields()) == 0 {
			droppedSomething = true
		}
	}
	require.True(t, droppedSomething)
	raw := testobjects.NewSnapshot(rawObjects...)
	require.NotEmpty(t, raw.Nodes()[0].Status.Conditions, "the input is untouched")

	opts := &ingress.Provider{}
	opts.SetDefaults()
	want := ingress.Translate(raw, opts)
	got := ingress.Translate(testobjects.NewSnapshot(trimmedObjects...), opts)

	// The comparison is not vacuous: the demo renders routers, servers,
	// a certificate and node-port servers.
	require.NotEmpty(t, want.Configuration.HTTP.Routers)
	require.NotNil(t, want.Configuration.TLS)
	require.Len(t, want.Configuration.TLS.Certificates, 1)
	require.Contains(t, want.Configuration.HTTP.Services, "demo-np-80")
	assert.Equal(t, "http://192.168.0.1:30080", want.Configuration.HTTP.Services["demo-np-80"].LoadBalancer.Servers[0].URL)

	assert.Equal(t, want.Configuration, got.Configuration)
	errorStrings := func(r *ingress.Result) (out []string) {
		for _, e := range r.Errors {
			out = append(out, e.Error())
		}
		return out
	}
	assert.Equal(t, errorStrings(want), errorStrings(got))
	assert.Equal(t, want.NeedsNodes, got.NeedsNodes)
}
