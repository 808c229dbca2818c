package k8s_test

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/fixtures"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// fatMeta is metadata as a real API server returns it for an object applied
// with kubectl: managedFields, the last-applied annotation, and annotations
// and labels of other tools.
func fatMeta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: name, Namespace: namespace, UID: types.UID("uid-" + name), ResourceVersion: "42", Generation: 3,
		CreationTimestamp: metav1.Time{Time: time.Unix(1700000000, 0)},
		Labels:            map[string]string{"app": name},
		Annotations: map[string]string{
			k8s.LastAppliedAnnotation: `{"apiVersion":"v1","kind":"Whatever","metadata":{"name":"` + name + `"}}`,
			"example.com/owner":       "team-a",
		},
		ManagedFields: []metav1.ManagedFieldsEntry{{
			Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "v1", Time: &metav1.Time{Time: time.Unix(1700000000, 0)},
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{}}}`),
		}},
	}
}

// transformed runs Transform on a deep copy, as an informer does on the
// object it decoded.
func transformed(t *testing.T, obj runtime.Object) any {
	t.Helper()
	out, err := k8s.Transform(obj.DeepCopyObject())
	require.NoError(t, err)
	return out
}

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

// TestTransformKeepsTheAnnotationsTranslationReads: the annotations the
// transform keeps are named by the same constants that translation reads
// them by.
func TestTransformKeepsTheAnnotationsTranslationReads(t *testing.T) {
	assert.Equal(t, ingress.AnnotationPrefix, k8s.TraefikAnnotationPrefix)
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

func TestTransformSecret(t *testing.T) {
	crt, key := []byte("certificate"), []byte("private key")
	for _, tc := range []struct {
		name     string
		typ      corev1.SecretType
		data     map[string][]byte
		str      map[string]string
		wantData map[string][]byte
	}{
		{
			name:     "TLS secret with a CA and string data",
			typ:      corev1.SecretTypeTLS,
			data:     map[string][]byte{"tls.crt": crt, "tls.key": key, "ca.crt": []byte("ca")},
			str:      map[string]string{"password": "hunter2"},
			wantData: map[string][]byte{"tls.crt": crt, "tls.key": key},
		},
		{
			name:     "opaque secret holding a certificate",
			typ:      corev1.SecretTypeOpaque,
			data:     map[string][]byte{"tls.crt": crt, "tls.key": key, "password": []byte("hunter2")},
			wantData: map[string][]byte{"tls.crt": crt, "tls.key": key},
		},
		{
			name:     "only a certificate",
			typ:      corev1.SecretTypeOpaque,
			data:     map[string][]byte{"tls.crt": crt, "config.json": []byte("{}")},
			wantData: map[string][]byte{"tls.crt": crt},
		},
		{
			name: "nothing a certificate is read from",
			typ:  corev1.SecretTypeDockerConfigJson,
			data: map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)},
		},
		{
			name: "string data only",
			typ:  corev1.SecretTypeOpaque,
			str:  map[string]string{"tls.crt": "certificate"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &corev1.Secret{ObjectMeta: fatMeta("web-tls", "shop"), Type: tc.typ, Data: tc.data, StringData: tc.str}
			out := transformed(t, s).(*corev1.Secret)
			assert.Equal(t, tc.wantData, out.Data)
			assert.Nil(t, out.StringData)
			assert.Equal(t, tc.typ, out.Type, "the type is kept")
			assert.Equal(t, "web-tls", out.Name)
			assert.Nil(t, out.Labels)
			assert.Nil(t, out.Annotations)
		})
	}
}

func TestTransformNode(t *testing.T) {
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: fatMeta("node-a", ""),
		Spec:       corev1.NodeSpec{PodCIDR: "10.244.1.0/24", ProviderID: "aws:///eu-west-1a/i-1"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "192.168.0.1"},
				{Type: corev1.NodeExternalIP, Address: "203.0.113.1"},
				{Type: corev1.NodeHostName, Address: "node-a"},
			},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: metav1.Time{Time: time.Unix(1700000000, 0)}}},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			Images:      []corev1.ContainerImage{{Names: []string{"nginx:1"}, SizeBytes: 1000}},
			NodeInfo:    corev1.NodeSystemInfo{KubeletVersion: "v1.37.0"},
		},
	}
	node.Labels = map[string]string{
		corev1.LabelTopologyZone:   "zone-a",
		corev1.LabelTopologyRegion: "region-1",
		corev1.LabelHostname:       "node-a",
		"kubernetes.io/os":         "linux",
		"node-role.example/db":     "",
	}
	out := transformed(t, node)
	require.IsType(t, &corev1.Node{}, out)
	assert.Equal(t, &corev1.Node{
		TypeMeta: node.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: "node-a", UID: "uid-node-a", ResourceVersion: "42",
			Labels: map[string]string{
				corev1.LabelTopologyZone:   "zone-a",
				corev1.LabelTopologyRegion: "region-1",
				corev1.LabelHostname:       "node-a",
			},
		},
		Status: corev1.NodeStatus{Addresses: node.Status.Addresses},
	}, out)

	// A Node without any label keeps none.
	bare := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-b", Labels: map[string]string{"kubernetes.io/os": "linux"}}}
	assert.Empty(t, transformed(t, bare).(*corev1.Node).Labels)
}

func TestTransformPassesOtherObjectsThrough(t *testing.T) {
	slice := &discoveryv1.EndpointSlice{ObjectMeta: fatMeta("web-1", "shop")}
	for _, tc := range []struct {
		name string
		obj  any
	}{
		{"tombstone", cache.DeletedFinalStateUnknown{Key: "shop/web-1", Obj: slice.DeepCopy()}},
		{"tombstone of a Node", cache.DeletedFinalStateUnknown{Key: "node-a", Obj: &corev1.Node{ObjectMeta: fatMeta("node-a", "")}}},
		{"unknown kind", &corev1.ConfigMap{ObjectMeta: fatMeta("c", "shop"), Data: map[string]string{"a": "b"}}},
		{"nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := any(tc.obj)
			if o, ok := tc.obj.(runtime.Object); ok {
				in = o.DeepCopyObject()
			}
			out, err := k8s.Transform(in)
			require.NoError(t, err)
			assert.Equal(t, tc.obj, out)
		})
	}
}

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
			require.Equal(t, tc.raw, k8s.Changed(base, updated))
			assert.False(t, k8s.Changed(transformed(t, base), transformed(t, updated)))
		})
	}
	// What translation reads still counts.
	updated := base.DeepCopy()
	updated.ResourceVersion = "2"
	updated.Spec.PublishNotReadyAddresses = true
	assert.True(t, k8s.Changed(transformed(t, base), transformed(t, updated)))
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
	objs, problems := k8s.DecodeManifest("demo.yaml", fixtures.Demo, k8s.IsUsedKind)
	require.Empty(t, problems)
	var raw, trimmed mapSnapshot
	for _, o := range objs {
		fatten(o.Object)
		raw = append(raw, o.Object)
	}
	for _, o := range nodePortObjects {
		o = o.DeepCopyObject()
		fatten(o)
		raw = append(raw, o)
	}
	droppedSomething := false
	for _, o := range raw {
		out := transformed(t, o.(runtime.Object))
		trimmed = append(trimmed, out)
		if len(out.(metav1.Object).GetManagedFields()) == 0 {
			droppedSomething = true
		}
	}
	require.True(t, droppedSomething)
	require.NotEmpty(t, raw.Nodes()[0].Status.Conditions, "the input is untouched")

	opts := &ingress.Provider{}
	opts.SetDefaults()
	want := ingress.Translate(raw, opts)
	got := ingress.Translate(trimmed, opts)

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
