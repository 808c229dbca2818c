package k8s

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewayKindCase is one Gateway API kind: a fresh object of it, an edit
// of its spec, and an edit of its status (nil for a kind without one).
type gatewayKindCase struct {
	kind   string
	base   func() runtime.Object
	spec   func(runtime.Object)
	status func(runtime.Object)
}

func gatewayKindCases() []gatewayKindCase {
	return []gatewayKindCase{
		{"GatewayClass", func() runtime.Object { return testGatewayClass() },
			func(o runtime.Object) { o.(*gatewayv1.GatewayClass).Spec.ControllerName = "example.com/other" },
			func(o runtime.Object) {
				o.(*gatewayv1.GatewayClass).Status.Conditions[0].Status = metav1.ConditionFalse
			}},
		{"Gateway", func() runtime.Object { return testGateway() },
			func(o runtime.Object) { o.(*gatewayv1.Gateway).Spec.Listeners[0].Port = 8080 },
			func(o runtime.Object) { o.(*gatewayv1.Gateway).Status.Listeners[0].AttachedRoutes = 7 }},
		{"HTTPRoute", func() runtime.Object { return testHTTPRoute() },
			func(o runtime.Object) { o.(*gatewayv1.HTTPRoute).Spec.Hostnames[0] = "www.example" },
			func(o runtime.Object) {
				o.(*gatewayv1.HTTPRoute).Status.Parents[0].Conditions[0].LastTransitionTime = metav1.NewTime(time.Unix(1800000000, 0))
			}},
		{"GRPCRoute", func() runtime.Object { return testGRPCRoute() },
			func(o runtime.Object) {
				o.(*gatewayv1.GRPCRoute).Spec.Rules[0].BackendRefs[0].Port = new(gatewayv1.PortNumber(9090))
			},
			func(o runtime.Object) {
				o.(*gatewayv1.GRPCRoute).Status.Parents = append(o.(*gatewayv1.GRPCRoute).Status.Parents, gatewayv1.RouteParentStatus{ControllerName: "example.com/other"})
			}},
		{"ReferenceGrant", func() runtime.Object { return testReferenceGrant() },
			func(o runtime.Object) {
				o.(*gatewayv1.ReferenceGrant).Spec.To[0].Name = new(gatewayv1.ObjectName("api"))
			},
			nil},
		{"BackendTLSPolicy", func() runtime.Object { return testBackendTLSPolicy() },
			func(o runtime.Object) { o.(*gatewayv1.BackendTLSPolicy).Spec.Validation.Hostname = "other.example" },
			func(o runtime.Object) {
				o.(*gatewayv1.BackendTLSPolicy).Status.Ancestors[0].Conditions[0].Status = metav1.ConditionFalse
			}},
	}
}

// TestChangedGatewayKinds: of a Gateway API object, a change of its spec,
// generation, labels or annotations counts; a change of its status (which
// sliceway writes itself) or of the metadata the API server and kubectl
// touch does not. runChangeCases also compares two builds of the same
// object: equal values behind distinct pointers.
func TestChangedGatewayKinds(t *testing.T) {
	for _, k := range gatewayKindCases() {
		t.Run(k.kind, func(t *testing.T) {
			meta := func(o runtime.Object) metav1.Object { return o.(metav1.Object) }
			cases := []changeCase[runtime.Object]{
				{"spec", k.spec, true},
				{"generation", func(o runtime.Object) { meta(o).SetGeneration(meta(o).GetGeneration() + 1) }, true},
				{"label", func(o runtime.Object) { meta(o).SetLabels(map[string]string{"team": "b"}) }, true},
				{"labels removed", func(o runtime.Object) { meta(o).SetLabels(nil) }, true},
				{"annotation", func(o runtime.Object) {
					meta(o).SetAnnotations(map[string]string{"example.com/owner": "team-b"})
				}, true},
				{"resourceVersion only", func(o runtime.Object) { meta(o).SetResourceVersion("999") }, false},
				{"managedFields", func(o runtime.Object) {
					meta(o).SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "sliceway", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"}})
				}, false},
				{"last-applied annotation", func(o runtime.Object) {
					a := meta(o).GetAnnotations()
					a[LastAppliedAnnotation] = `{"kind":"Whatever"}`
					meta(o).SetAnnotations(a)
				}, false},
				{"finalizers and owner references", func(o runtime.Object) {
					meta(o).SetFinalizers([]string{"example.com/keep"})
					meta(o).SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "u"}})
				}, false},
			}
			if k.status != nil {
				cases = append(cases, changeCase[runtime.Object]{"status only", k.status, false})
			}
			runChangeCases(t, k.base, cases)
		})
	}
}

// TestChangedNamespace: a Namespace is read for its labels only.
func TestChangedNamespace(t *testing.T) {
	type N = *corev1.Namespace
	runChangeCases(t, testNamespace, []changeCase[N]{
		{"label", func(n N) { n.Labels["team"] = "b" }, true},
		{"label added", func(n N) { n.Labels["env"] = "prod" }, true},
		{"labels removed", func(n N) { n.Labels = nil }, true},
		{"annotation", func(n N) { n.Annotations = map[string]string{"example.com/owner": "b"} }, false},
		{"phase", func(n N) { n.Status.Phase = corev1.NamespaceTerminating }, false},
		{"finalizers", func(n N) { n.Spec.Finalizers = nil }, false},
		{"resourceVersion only", func(n N) { n.ResourceVersion = "999" }, false},
	})
}

// TestEventHandlerGatewayKinds: each Gateway API kind's handler names its
// kind; a spec edit reaches OnChange, a status-only one (with a new
// resourceVersion, as the API server gives it) is told to Notify as
// unchanged and does not reach OnChange.
func TestEventHandlerGatewayKinds(t *testing.T) {
	for _, k := range gatewayKindCases() {
		t.Run(k.kind, func(t *testing.T) {
			got, notify := recordNotify()
			var changes []string
			h := testKeep.EventHandler(k.kind, notify, func(kind string, old, new any) {
				changes = append(changes, fmt.Sprintf("%s old=%t new=%t", kind, old != nil, new != nil))
			})
			version := func(o runtime.Object, rv string) runtime.Object {
				o.(metav1.Object).SetResourceVersion(rv)
				return o
			}
			first := version(k.base(), "1")
			statusOnly := version(k.base(), "2")
			if k.status != nil {
				k.status(statusOnly)
			}
			edited := version(k.base(), "3")
			k.spec(edited)
			h.OnAdd(first, false)
			h.OnUpdate(first, statusOnly)
			h.OnUpdate(statusOnly, edited)
			h.OnDelete(edited)
			assert.Equal(t, []notification{{k.kind, true}, {k.kind, false}, {k.kind, true}, {k.kind, true}}, *got)
			assert.Equal(t, []string{k.kind + " old=false new=true", k.kind + " old=true new=true", k.kind + " old=true new=false"}, changes)
		})
	}
}

func testGatewayClass() *gatewayv1.GatewayClass {
	return &gatewayv1.GatewayClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "GatewayClass"},
		ObjectMeta: gatewayTestMeta("sliceway", ""),
		Spec:       gatewayv1.GatewayClassSpec{ControllerName: "sliceway.io/gateway-controller", Description: new("ours")},
		Status: gatewayv1.GatewayClassStatus{Conditions: []metav1.Condition{{
			Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", ObservedGeneration: 2,
			LastTransitionTime: metav1.NewTime(time.Unix(1700000000, 0)),
		}}},
	}
}

func testGateway() *gatewayv1.Gateway {
	return &gatewayv1.Gateway{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "Gateway"},
		ObjectMeta: gatewayTestMeta("edge", "infra"),
		Spec: gatewayv1.GatewaySpec{
			GatewayClassName: "sliceway",
			Listeners: []gatewayv1.Listener{{
				Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, Hostname: new(gatewayv1.Hostname("*.example")),
				AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{
					From:     new(gatewayv1.NamespacesFromSelector),
					Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
				}},
			}},
		},
		Status: gatewayv1.GatewayStatus{Listeners: []gatewayv1.ListenerStatus{{Name: "http", AttachedRoutes: 2}}},
	}
}

func testHTTPRoute() *gatewayv1.HTTPRoute {
	return &gatewayv1.HTTPRoute{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute"},
		ObjectMeta: gatewayTestMeta("web", "shop"),
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge", Namespace: new(gatewayv1.Namespace("infra"))}}},
			Hostnames:       []gatewayv1.Hostname{"web.example"},
			Rules: []gatewayv1.HTTPRouteRule{{
				Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: new(gatewayv1.PathMatchPathPrefix), Value: new("/")}}},
				BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
					BackendObjectReference: gatewayv1.BackendObjectReference{Name: "web", Port: new(gatewayv1.PortNumber(80))},
					Weight:                 new(int32(1)),
				}}},
			}},
		},
		Status: gatewayv1.HTTPRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{{
			ParentRef:      gatewayv1.ParentReference{Name: "edge"},
			ControllerName: "sliceway.io/gateway-controller",
			Conditions: []metav1.Condition{{
				Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", ObservedGeneration: 2,
				LastTransitionTime: metav1.NewTime(time.Unix(1700000000, 0)),
			}},
		}}}},
	}
}

func testGRPCRoute() *gatewayv1.GRPCRoute {
	return &gatewayv1.GRPCRoute{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "GRPCRoute"},
		ObjectMeta: gatewayTestMeta("greeter", "shop"),
		Spec: gatewayv1.GRPCRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge"}}},
			Rules: []gatewayv1.GRPCRouteRule{{
				Matches: []gatewayv1.GRPCRouteMatch{{Method: &gatewayv1.GRPCMethodMatch{Service: new("helloworld.Greeter")}}},
				BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: gatewayv1.BackendRef{
					BackendObjectReference: gatewayv1.BackendObjectReference{Name: "greeter", Port: new(gatewayv1.PortNumber(50051))},
				}}},
			}},
		},
	}
}

func testReferenceGrant() *gatewayv1.ReferenceGrant {
	return &gatewayv1.ReferenceGrant{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "ReferenceGrant"},
		ObjectMeta: gatewayTestMeta("from-shop", "backends"),
		Spec: gatewayv1.ReferenceGrantSpec{
			From: []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Namespace: "shop"}},
			To:   []gatewayv1.ReferenceGrantTo{{Kind: "Service"}},
		},
	}
}

func testBackendTLSPolicy() *gatewayv1.BackendTLSPolicy {
	return &gatewayv1.BackendTLSPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "BackendTLSPolicy"},
		ObjectMeta: gatewayTestMeta("web-tls", "shop"),
		Spec: gatewayv1.BackendTLSPolicySpec{
			TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{
				LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Kind: "Service", Name: "web"}}},
			Validation: gatewayv1.BackendTLSPolicyValidation{Hostname: "web.internal",
				CACertificateRefs: []gatewayv1.LocalObjectReference{{Kind: "ConfigMap", Name: "ca"}}},
		},
		Status: gatewayv1.PolicyStatus{Ancestors: []gatewayv1.PolicyAncestorStatus{{
			AncestorRef: gatewayv1.ParentReference{Name: "edge"}, ControllerName: "sliceway.io/gateway-controller",
			Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"}},
		}}},
	}
}

func testNamespace() *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "shop", UID: "uid-shop", ResourceVersion: "5",
			Labels: map[string]string{"kubernetes.io/metadata.name": "shop", "team": "a"},
		},
		Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
}

func gatewayTestMeta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: name, Namespace: namespace, UID: types.UID("uid-" + name), ResourceVersion: "10", Generation: 2,
		Labels:      map[string]string{"team": "a"},
		Annotations: map[string]string{"example.com/owner": "team-a"},
	}
}
