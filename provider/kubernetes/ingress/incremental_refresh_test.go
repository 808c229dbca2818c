package ingress

import (
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/clustergen"
)

// TestChangeOfSharedServiceRefreshesInPlace checks the shortcut for a
// Service that many Ingresses share: a change of its EndpointSlices, or of
// the Service, that leaves its load balancers with servers rebuilds them
// without translating an Ingress again and leaves the routers untouched; a
// change that empties them translates every user again (their paths now
// fail). All are checked against a full render.
func TestChangeOfSharedServiceRefreshesInPlace(t *testing.T) {
	const services, extra = 3, 20
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(services, 6) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	shared := clustergen.Name(0)
	emptied, emptiedParts := 0, 0 // what the last step differs in, with allowEmptyServices
	for i := range extra {
		ing := clustergen.Service(services+i, 1)[1].(*netv1.Ingress)
		b := &ing.Spec.Rules[0].HTTP.Paths[0].Backend
		b.Service.Name = shared
		switch i {
		case 0: // by port number: another load balancer of the same Service
			b.Service.Port = netv1.ServiceBackendPort{Number: 80}
		case 1:
			ing.Spec.DefaultBackend = &netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: shared, Port: netv1.ServiceBackendPort{Name: "http"}}}
		}
		require.NoError(t, cs.Tracker().Add(ing))
	}
	var events atomic.Int64
	// r renders with the default options; rEmpty with allowEmptyServices,
	// for which a Service without servers changes nothing an Ingress reads.
	changes, changesEmpty := &Changes{}, &Changes{}
	record := func(kind string, old, new any) { changes.Record(kind, old, new); changesEmpty.Record(kind, old, new) }
	client, ctx := startClient(t, cs, ClientOptions{OnChange: record, Notify: func(string, bool) { events.Add(1) }})
	opts, optsEmpty := benchOptions(), benchOptions()
	optsEmpty.AllowEmptyServices = true
	r, rEmpty := NewRenderer(opts), NewRenderer(optsEmpty)
	c := &churn{t: t, cs: cs, events: &events, ctx: ctx, client: client}
	c.want = events.Load()
	prev, _ := r.Render(client.Snapshot(), changes)
	rEmpty.Render(client.Snapshot(), changesEmpty)
	require.Contains(t, prev.Configuration.HTTP.Services, DefaultBackendName)

	render := func(what string) *Result {
		t.Helper()
		c.wait()
		got := renderChanged(t, r, client.Snapshot(), changes, opts, what)
		renderChanged(t, rEmpty, client.Snapshot(), changesEmpty, optsEmpty, "allowEmptyServices, "+what)
		require.Equal(t, r.Stats().Refreshed, rEmpty.Stats().Refreshed-emptied, "allowEmptyServices refreshes what the default does, and the emptied Service")
		require.Equal(t, r.Stats().Parts, rEmpty.Stats().Parts+emptiedParts, "allowEmptyServices translates what the default does, but the emptied Service's users")
		return got
	}
	sliceAPI := cs.DiscoveryV1().EndpointSlices(clustergen.Namespace)

	// An endpoint of the shared Service moves: two load balancers (port
	// name and number) and the default backend's get the new server.
	before := r.Stats()
	s, err := sliceAPI.Get(ctx, shared+"-0", metav1.GetOptions{})
	require.NoError(t, err)
	s.Endpoints[0].Addresses = []string{"192.0.2.10"}
	_, err = sliceAPI.Update(ctx, s, metav1.UpdateOptions{})
	c.did(err)
	got := render("an endpoint moved")
	require.Equal(t, before.Parts, r.Stats().Parts, "no Ingress should have been translated again")
	require.Equal(t, before.Refreshed+2, r.Stats().Refreshed, "both load balancers of the Service refreshed")
	require.Equal(t, reflect.ValueOf(prev.Configuration.HTTP.Routers).Pointer(), reflect.ValueOf(got.Configuration.HTTP.Routers).Pointer(),
		"the routers are the previous render's")
	require.Same(t, got.Configuration.HTTP.Services[serviceName(clustergen.Namespace, shared, "http")], got.Configuration.HTTP.Services[DefaultBackendName])
	require.Contains(t, got.Configuration.HTTP.Services[DefaultBackendName].LoadBalancer.Servers, dynamic.Server{URL: "http://192.0.2.10:8080"})

	// An annotation of the shared Service changes its load balancers, not
	// what an Ingress reads of them.
	before = r.Stats()
	svc, err := cs.CoreV1().Services(clustergen.Namespace).Get(ctx, shared, metav1.GetOptions{})
	require.NoError(t, err)
	svc.Annotations = map[string]string{"traefik.ingress.kubernetes.io/service.passhostheader": "false"}
	_, err = cs.CoreV1().Services(clustergen.Namespace).Update(ctx, svc, metav1.UpdateOptions{})
	c.did(err)
	prev = got
	got = render("the Service was annotated")
	require.Equal(t, before.Parts, r.Stats().Parts, "no Ingress should have been translated again")
	require.Equal(t, before.Refreshed+2, r.Stats().Refreshed)
	require.Equal(t, reflect.ValueOf(prev.Configuration.HTTP.Routers).Pointer(), reflect.ValueOf(got.Configuration.HTTP.Routers).Pointer())
	require.False(t, *got.Configuration.HTTP.Services[DefaultBackendName].LoadBalancer.PassHostHeader)

	// Every slice of the shared Service goes: no servers, so every user is
	// translated again, and their paths fail.
	before = r.Stats()
	list, err := sliceAPI.List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + shared})
	require.NoError(t, err)
	require.NotEmpty(t, list.Items)
	for _, s := range list.Items {
		c.did(sliceAPI.Delete(ctx, s.Name, metav1.DeleteOptions{}))
	}
	emptied, emptiedParts = 2, 1+extra
	got = render("the slices were deleted")
	require.Equal(t, before.Refreshed, r.Stats().Refreshed)
	require.Equal(t, before.Parts+1+extra, r.Stats().Parts, "every user translated again")
	require.NotContains(t, got.Configuration.HTTP.Services, DefaultBackendName)
	require.NotEmpty(t, got.Errors)
}

// TestNodeChangeRefreshesNodePortLoadBalancers checks that a Node change
// rebuilds a node-port load balancer (service.nodeportlb) without
// translating the Ingresses that share it, and that losing every Node
// (no load balancer can be built) translates them again.
func TestNodeChangeRefreshesNodePortLoadBalancers(t *testing.T) {
	const users = 5
	cs := fake.NewClientset()
	objs := clustergen.Cluster(1, 4)
	var svc *corev1.Service
	for _, o := range objs {
		if s, ok := o.(*corev1.Service); ok {
			svc = s
		}
	}
	require.NotNil(t, svc)
	svc.Spec.Type = corev1.ServiceTypeNodePort
	svc.Spec.Ports[0].NodePort = 30080
	svc.Annotations = map[string]string{"traefik.ingress.kubernetes.io/service.nodeportlb": "true"}
	for _, o := range objs {
		require.NoError(t, cs.Tracker().Add(o))
	}
	for i := 1; i < users; i++ {
		ing := clustergen.Service(i, 1)[1].(*netv1.Ingress)
		ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = svc.Name
		require.NoError(t, cs.Tracker().Add(ing))
	}
	require.NoError(t, cs.Tracker().Add(testNode("node-1", "zone-a", "192.0.2.1")))
	var events atomic.Int64
	changes := &Changes{}
	client, ctx := startClient(t, cs, ClientOptions{OnChange: changes.Record, Notify: func(string, bool) { events.Add(1) }, WatchNodes: true})
	opts := benchOptions()
	r := NewRenderer(opts)
	c := &churn{t: t, cs: cs, events: &events, ctx: ctx, client: client}
	c.want = events.Load()
	first, _ := r.Render(client.Snapshot(), changes)
	name := serviceName(svc.Namespace, svc.Name, "http")
	require.Equal(t, []dynamic.Server{{URL: "http://192.0.2.1:30080"}}, first.Configuration.HTTP.Services[name].LoadBalancer.Servers)

	render := func(what string) *Result {
		t.Helper()
		c.wait()
		return renderChanged(t, r, client.Snapshot(), changes, opts, what)
	}
	before := r.Stats()
	_, err := cs.CoreV1().Nodes().Create(ctx, testNode("node-2", "zone-b", "192.0.2.2"), metav1.CreateOptions{})
	c.did(err)
	got := render("a Node was added")
	require.Equal(t, before.Parts, r.Stats().Parts, "no Ingress should have been translated again")
	require.Equal(t, before.Refreshed+1, r.Stats().Refreshed)
	require.Len(t, got.Configuration.HTTP.Services[name].LoadBalancer.Servers, 2)
	require.Equal(t, reflect.ValueOf(first.Configuration.HTTP.Routers).Pointer(), reflect.ValueOf(got.Configuration.HTTP.Routers).Pointer())

	before = r.Stats()
	c.did(cs.CoreV1().Nodes().Delete(ctx, "node-1", metav1.DeleteOptions{}))
	c.did(cs.CoreV1().Nodes().Delete(ctx, "node-2", metav1.DeleteOptions{}))
	got = render("every Node was deleted")
	require.Equal(t, before.Parts+users, r.Stats().Parts, "every user translated again")
	require.NotContains(t, got.Configuration.HTTP.Services, name)
	require.NotEmpty(t, got.Errors)
}

// renderChanged renders the changes, checks the parts and the result
// against a full render, and that the configuration changed.
func renderChanged(t *testing.T, r *Renderer, snap Snapshot, changes *Changes, opts *Provider, what string) *Result {
	t.Helper()
	got, changed := r.Render(snap, changes)
	checkParts(t, r, what)
	require.True(t, equalResults(t, referenceRender(t, snap, opts), got), "after %s", what)
	require.True(t, changed, "after %s", what)
	return got
}
