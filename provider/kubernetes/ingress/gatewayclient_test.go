package ingress

import (
	"context"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayfake "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/fake"
	gatewayscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"
)

// gatewayTestObjects are Gateway API objects in namespaces shop and
// other, with the fat metadata and the status a real cluster gives them.
func gatewayTestObjects() []k8sruntime.Object {
	meta := func(name, namespace string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: namespace, ResourceVersion: "1", Generation: 1,
			Labels: map[string]string{"team": "a"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate,
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{}}`)}}}
	}
	accepted := []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", ObservedGeneration: 1,
		LastTransitionTime: metav1.NewTime(time.Unix(1700000000, 0))}}
	route := func(name, namespace string) *gatewayv1.HTTPRoute {
		return &gatewayv1.HTTPRoute{ObjectMeta: meta(name, namespace),
			Spec: gatewayv1.HTTPRouteSpec{
				CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge"}}},
				Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(name + ".example")},
			},
			Status: gatewayv1.HTTPRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{{
				ParentRef: gatewayv1.ParentReference{Name: "edge"}, ControllerName: DefaultGatewayControllerName, Conditions: accepted,
			}}}},
		}
	}
	return []k8sruntime.Object{
		&gatewayv1.GatewayClass{ObjectMeta: meta("sliceway", ""),
			Spec:   gatewayv1.GatewayClassSpec{ControllerName: DefaultGatewayControllerName},
			Status: gatewayv1.GatewayClassStatus{Conditions: accepted}},
		&gatewayv1.Gateway{ObjectMeta: meta("edge", "shop"),
			Spec: gatewayv1.GatewaySpec{GatewayClassName: "sliceway",
				Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}}}},
		route("web", "shop"),
		route("blog", "other"),
		&gatewayv1.GRPCRoute{ObjectMeta: meta("greeter", "shop")},
		&gatewayv1.ReferenceGrant{ObjectMeta: meta("from-other", "shop"),
			Spec: gatewayv1.ReferenceGrantSpec{
				From: []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Namespace: "other"}},
				To:   []gatewayv1.ReferenceGrantTo{{Kind: "Service"}},
			}},
	}
}

// newGatewayFake is gateway-api's fake clientset holding objs. They are
// created under their resources: the tracker's Add (and so the
// constructor's objects) guesses the resource of a Gateway as "gatewaies",
// where no client finds it.
func newGatewayFake(t testing.TB, objs ...k8sruntime.Object) *gatewayfake.Clientset {
	t.Helper()
	gw := gatewayfake.NewSimpleClientset()
	gw.PrependReactor("update", "*", statusSubresource(gw.Tracker()))
	resources := map[string]string{"GatewayClass": "gatewayclasses", "Gateway": "gateways", "HTTPRoute": "httproutes",
		"GRPCRoute": "grpcroutes", "ReferenceGrant": "referencegrants", "BackendTLSPolicy": "backendtlspolicies"}
	for _, o := range objs {
		kinds, _, err := gatewayscheme.Scheme.ObjectKinds(o)
		require.NoError(t, err)
		gvr := kinds[0].GroupVersion().WithResource(resources[kinds[0].Kind])
		require.NoError(t, gw.Tracker().Create(gvr, o, o.(metav1.Object).GetNamespace()))
	}
	return gw
}

// statusSubresource makes an update of the status subresource write the
// status alone, as the API server does: the fake's own tracker would
// store the whole object sent, so a status written from a cache older
// than a spec edit would undo that edit, which no cluster does.
func statusSubresource(tracker k8stesting.ObjectTracker) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, k8sruntime.Object, error) {
		if action.GetSubresource() != "status" {
			return false, nil, nil
		}
		sent := action.(k8stesting.UpdateAction).GetObject()
		m, err := meta.Accessor(sent)
		if err != nil {
			return true, nil, err
		}
		cur, err := tracker.Get(action.GetResource(), action.GetNamespace(), m.GetName())
		if err != nil {
			return true, nil, err
		}
		reflect.ValueOf(cur).Elem().FieldByName("Status").Set(reflect.ValueOf(sent).Elem().FieldByName("Status"))
		cm, err := meta.Accessor(cur)
		if err != nil {
			return true, nil, err
		}
		cm.SetResourceVersion(m.GetResourceVersion())
		if err := tracker.Update(action.GetResource(), cur, action.GetNamespace()); err != nil {
			return true, nil, err
		}
		return true, cur, nil
	}
}

func gatewayTestNamespaces() []k8sruntime.Object {
	ns := func(name, team string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1",
			Labels:      map[string]string{corev1.LabelMetadataName: name, "team": team},
			Annotations: map[string]string{"example.com/owner": team}},
			Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	}
	return []k8sruntime.Object{ns("shop", "a"), ns("other", "b")}
}

// names lists namespace/name of objects, sorted.
func names[T metav1.Object](objs []T) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetNamespace()+"/"+o.GetName())
	}
	sort.Strings(out)
	return out
}

// TestClientGatewaySnapshot: a client given the Gateway API client syncs
// its informers, and its snapshot is a GatewaySnapshot with the objects
// of the watched namespaces (GatewayClasses and Namespaces cluster-wide),
// trimmed of managedFields, with their status.
func TestClientGatewaySnapshot(t *testing.T) {
	for _, tc := range []struct {
		name       string
		namespaces []string
		routes     []string
	}{
		{"all namespaces", nil, []string{"other/blog", "shop/web"}},
		{"one namespace", []string{"shop"}, []string{"shop/web"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := newGatewayFake(t, gatewayTestObjects()...)
			cs := fake.NewClientset(gatewayTestNamespaces()...)
			client, _ := startClient(t, cs, ClientOptions{Namespaces: tc.namespaces, Gateway: gw})
			snap, ok := client.Snapshot().(GatewaySnapshot)
			require.True(t, ok, "the snapshot of a client that watches the Gateway API is a GatewaySnapshot")

			assert.Equal(t, []string{"/sliceway"}, names(snap.GatewayClasses()))
			assert.Equal(t, []string{"shop/edge"}, names(snap.Gateways()))
			assert.Equal(t, tc.routes, names(snap.HTTPRoutes()))
			assert.Equal(t, []string{"shop/greeter"}, names(snap.GRPCRoutes()))
			assert.Equal(t, []string{"shop/from-other"}, names(snap.ReferenceGrants()))

			for _, r := range snap.HTTPRoutes() {
				assert.Empty(t, r.ManagedFields, "managedFields are trimmed")
				require.Len(t, r.Status.Parents, 1, "the status is kept")
				assert.Equal(t, map[string]string{"team": "a"}, r.Labels)
			}
			assert.Len(t, snap.GatewayClasses()[0].Status.Conditions, 1)

			shop := snap.Namespace("shop")
			require.NotNil(t, shop)
			assert.Equal(t, map[string]string{corev1.LabelMetadataName: "shop", "team": "a"}, shop.Labels)
			assert.Empty(t, shop.Annotations, "a Namespace is kept as its name and labels")
			assert.NotNil(t, snap.Namespace("other"), "Namespaces are listed cluster-wide")
			assert.Nil(t, snap.Namespace("nowhere"))
		})
	}
}

// gatewayEvents records what a client tells of its events.
type gatewayEvents struct {
	mu       sync.Mutex
	changes  []string // OnChange: the kinds
	notified []string // Notify: "kind changed" or "kind unchanged"
}

func (e *gatewayEvents) onChange(kind string, _, _ any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.changes = append(e.changes, kind)
}

func (e *gatewayEvents) notify(kind string, changed bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	word := " unchanged"
	if changed {
		word = " changed"
	}
	e.notified = append(e.notified, kind+word)
}

func (e *gatewayEvents) reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.changes, e.notified = nil, nil
}

func (e *gatewayEvents) read() (changes, notified []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.changes...), append([]string(nil), e.notified...)
}

// TestClientGatewayChanges: a change of a Gateway API object's spec,
// labels or generation, or of a Namespace's labels, reaches OnChange
// with its kind; an update of a status (which sliceway writes) or of a
// Namespace's annotations is told to Notify as unchanged and never
// reaches OnChange, so that writing a status does not render again.
func TestClientGatewayChanges(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		update  func(t *testing.T, gw *gatewayfake.Clientset, cs *fake.Clientset)
		kind    string
		changed bool
	}{
		{"HTTPRoute spec", func(t *testing.T, gw *gatewayfake.Clientset, _ *fake.Clientset) {
			r := getRoute(t, gw)
			r.Spec.Hostnames = []gatewayv1.Hostname{"www.example"}
			r.Generation, r.ResourceVersion = 2, "2"
			_, err := gw.GatewayV1().HTTPRoutes("shop").Update(ctx, r, metav1.UpdateOptions{})
			require.NoError(t, err)
		}, "HTTPRoute", true},
		{"HTTPRoute status only", func(t *testing.T, gw *gatewayfake.Clientset, _ *fake.Clientset) {
			r := getRoute(t, gw)
			r.Status.Parents[0].Conditions[0].Reason = "NoMatchingListenerHostname"
			r.Status.Parents[0].Conditions[0].Status = metav1.ConditionFalse
			r.ResourceVersion = "2"
			_, err := gw.GatewayV1().HTTPRoutes("shop").UpdateStatus(ctx, r, metav1.UpdateOptions{})
			require.NoError(t, err)
		}, "HTTPRoute", false},
		{"HTTPRoute label", func(t *testing.T, gw *gatewayfake.Clientset, _ *fake.Clientset) {
			r := getRoute(t, gw)
			r.Labels["team"] = "b"
			r.ResourceVersion = "2"
			_, err := gw.GatewayV1().HTTPRoutes("shop").Update(ctx, r, metav1.UpdateOptions{})
			require.NoError(t, err)
		}, "HTTPRoute", true},
		{"Gateway status only", func(t *testing.T, gw *gatewayfake.Clientset, _ *fake.Clientset) {
			g, err := gw.GatewayV1().Gateways("shop").Get(ctx, "edge", metav1.GetOptions{})
			require.NoError(t, err)
			g.Status.Listeners = []gatewayv1.ListenerStatus{{Name: "http", AttachedRoutes: 1}}
			g.ResourceVersion = "2"
			_, err = gw.GatewayV1().Gateways("shop").UpdateStatus(ctx, g, metav1.UpdateOptions{})
			require.NoError(t, err)
		}, "Gateway", false},
		{"GatewayClass spec", func(t *testing.T, gw *gatewayfake.Clientset, _ *fake.Clientset) {
			c, err := gw.GatewayV1().GatewayClasses().Get(ctx, "sliceway", metav1.GetOptions{})
			require.NoError(t, err)
			c.Spec.Description = new("ours")
			c.Generation, c.ResourceVersion = 2, "2"
			_, err = gw.GatewayV1().GatewayClasses().Update(ctx, c, metav1.UpdateOptions{})
			require.NoError(t, err)
		}, "GatewayClass", true},
		{"ReferenceGrant spec", func(t *testing.T, gw *gatewayfake.Clientset, _ *fake.Clientset) {
			g, err := gw.GatewayV1().ReferenceGrants("shop").Get(ctx, "from-other", metav1.GetOptions{})
			require.NoError(t, err)
			g.Spec.To[0].Name = new(gatewayv1.ObjectName("web"))
			g.ResourceVersion = "2"
			_, err = gw.GatewayV1().ReferenceGrants("shop").Update(ctx, g, metav1.UpdateOptions{})
			require.NoError(t, err)
		}, "ReferenceGrant", true},
		{"Namespace label", func(t *testing.T, _ *gatewayfake.Clientset, cs *fake.Clientset) {
			ns := getNamespace(t, cs)
			ns.Labels["team"] = "c"
			ns.ResourceVersion = "2"
			_, err := cs.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{})
			require.NoError(t, err)
		}, "Namespace", true},
		{"Namespace annotation only", func(t *testing.T, _ *gatewayfake.Clientset, cs *fake.Clientset) {
			ns := getNamespace(t, cs)
			ns.Annotations["example.com/owner"] = "c"
			ns.ResourceVersion = "2"
			_, err := cs.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{})
			require.NoError(t, err)
		}, "Namespace", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := newGatewayFake(t, gatewayTestObjects()...)
			cs := fake.NewClientset(gatewayTestNamespaces()...)
			var events gatewayEvents
			startClient(t, cs, ClientOptions{Gateway: gw, OnChange: events.onChange, Notify: events.notify})
			changes, _ := events.read()
			assert.Contains(t, changes, tc.kind, "the initial objects are told as adds")
			events.reset()

			tc.update(t, gw, cs)
			want := tc.kind + " unchanged"
			if tc.changed {
				want = tc.kind + " changed"
			}
			require.Eventually(t, func() bool {
				_, notified := events.read()
				return len(notified) > 0
			}, 10*time.Second, 5*time.Millisecond, "the update reaches the handler")
			changes, notified := events.read()
			assert.Equal(t, []string{want}, notified)
			if tc.changed {
				assert.Equal(t, []string{tc.kind}, changes)
			} else {
				assert.Empty(t, changes, "a status-only update does not count")
			}
		})
	}
}

func getRoute(t *testing.T, gw *gatewayfake.Clientset) *gatewayv1.HTTPRoute {
	t.Helper()
	r, err := gw.GatewayV1().HTTPRoutes("shop").Get(context.Background(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	return r
}

func getNamespace(t *testing.T, cs *fake.Clientset) *corev1.Namespace {
	t.Helper()
	ns, err := cs.CoreV1().Namespaces().Get(context.Background(), "shop", metav1.GetOptions{})
	require.NoError(t, err)
	return ns
}

// TestClientWithoutGatewayListsNoGatewayAPI: without ClientOptions.Gateway
// the client lists no Namespaces and has no Gateway API informer, so the
// RBAC rules of the Ingress providers are all it needs; its snapshot is
// no GatewaySnapshot.
func TestClientWithoutGatewayListsNoGatewayAPI(t *testing.T) {
	cs := fake.NewClientset(gatewayTestNamespaces()...)
	client, _ := startClient(t, cs, ClientOptions{WatchNodes: true})
	_, ok := client.Snapshot().(GatewaySnapshot)
	assert.False(t, ok)
	assert.Nil(t, client.gateway)
	for _, a := range cs.Actions() {
		assert.NotEqual(t, "namespaces", a.GetResource().Resource, "%s %s", a.GetVerb(), a.GetResource())
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	for _, s := range client.synced {
		assert.NotContains(t, s.resource, "gateway.networking.k8s.io")
		assert.NotEqual(t, namespacesResource, s.resource)
	}
}

// TestClientTellsAMissingGatewayCRD: a Gateway API list answered 404 (the
// CRD is not installed) is told at once through OnMissing, naming the
// resource, and the sync report says what is missing and how to install
// it instead of waiting silently; the other informers sync.
func TestClientTellsAMissingGatewayCRD(t *testing.T) {
	gw := newGatewayFake(t, gatewayTestObjects()...)
	notServed := schema.GroupResource{Group: gatewayv1.GroupName, Resource: "grpcroutes"}
	gw.PrependReactor("list", "grpcroutes", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		// As client-go makes it of the API server's "404 page not found"
		// for a resource it does not serve: the verb is the HTTP method.
		return true, nil, apierrors.NewGenericServerResponse(404, "get", notServed, "", "", 0, false)
	})
	var mu sync.Mutex
	var missing []MissingResource
	client, err := NewClient(fake.NewClientset(), ClientOptions{Gateway: gw, OnMissing: func(m MissingResource) {
		mu.Lock()
		defer mu.Unlock()
		missing = append(missing, m)
	}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); client.Shutdown() })
	client.Start(ctx)

	err = client.WaitForSync(ctx, 2*time.Second)
	require.Error(t, err)
	assert.Equal(t, "cannot list grpcroutes.gateway.networking.k8s.io in all namespaces: the API server does not serve it "+
		"(install the Gateway API CRDs (standard channel, v1.6 or later: https://gateway-api.sigs.k8s.io/guides/#installing-gateway-api), "+
		"or turn the Gateway front end off): notfound: failed to list *v1.GRPCRoute: the server could not find the requested resource (get grpcroutes.gateway.networking.k8s.io)",
		err.Error(), "only the GRPCRoutes do not sync")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, missing, 1, "told once, whatever the retries")
	assert.Equal(t, "grpcroutes.gateway.networking.k8s.io", missing[0].Resource)
	assert.Equal(t, "in all namespaces", missing[0].Where)
	assert.Contains(t, missing[0].Remedy(), "install the Gateway API CRDs")
}

// The Gateway provider's client neither lists nor keeps Ingresses and
// IngressClasses, which it never serves, even where the cluster has them;
// it still syncs (the Secrets wait for no Ingress informer).
func TestGatewayClientReadsNoIngress(t *testing.T) {
	cs := fake.NewClientset(append(gatewayTestNamespaces(),
		&netv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "sliceway"}},
		&netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "legacy"}})...)
	client, _ := startClient(t, cs, ClientOptions{Gateway: newGatewayFake(t, gatewayTestObjects()...), Provider: &newGatewayProvider(t).Provider})
	snap := client.Snapshot()
	assert.Empty(t, snap.Ingresses())
	assert.Nil(t, snap.(interface {
		Ingress(namespace, name string) *netv1.Ingress
	}).Ingress("shop", "legacy"))
	assert.Empty(t, snap.IngressClasses())
	for _, a := range cs.Actions() {
		assert.NotContains(t, []string{"ingresses", "ingressclasses"}, a.GetResource().Resource, "%s %s", a.GetVerb(), a.GetResource())
	}
	require.NotEmpty(t, snap.(GatewaySnapshot).HTTPRoutes(), "the Gateway API objects are read")
}

// disableClusterScopeResources is refused by the Gateway provider, which
// cannot work without GatewayClasses and Namespaces.
func TestGatewayProviderRefusesNoClusterScope(t *testing.T) {
	p := &GatewayProvider{}
	p.SetDefaults()
	p.DisableClusterScopeResources = true
	require.ErrorContains(t, p.Validate(), "disableClusterScopeResources: the Gateway provider reads GatewayClasses")
}
