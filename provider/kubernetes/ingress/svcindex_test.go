package ingress

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

func indexedSlice(ns, name, service string) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if service != "" {
		s.Labels = map[string]string{discoveryv1.LabelServiceName: service}
	}
	return s
}

// sliceNames are the names of the slices of o, which must each have their
// prepared form beside them.
func sliceNames(o *translate.ServiceObjects) []string {
	if o == nil {
		return nil
	}
	var names []string
	for i, s := range o.Slices {
		names = append(names, s.Name)
		if i >= len(o.Prepared) || o.Prepared[i].Slice() != s {
			panic(fmt.Sprintf("slice %s has not its prepared form beside it", s.Name))
		}
	}
	if len(o.Prepared) != len(o.Slices) {
		panic(fmt.Sprintf("%d prepared forms for %d slices", len(o.Prepared), len(o.Slices)))
	}
	return names
}

func TestServiceIndex(t *testing.T) {
	x := newServiceIndex(nil)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web"}}
	x.service(nil, svc)
	require.Same(t, svc, x.get(translate.Key{Namespace: "apps", Name: "web"}).Service)
	assert.Nil(t, x.get(translate.Key{Namespace: "apps", Name: "api"}), "another name")
	assert.Nil(t, x.get(translate.Key{Namespace: "other", Name: "web"}), "another namespace")

	// Slices come in any order and are kept by name.
	c, a, b := indexedSlice("apps", "web-c", "web"), indexedSlice("apps", "web-a", "web"), indexedSlice("apps", "web-b", "web")
	x.slice(nil, c)
	x.slice(nil, a)
	x.slice(nil, b)
	x.slice(nil, indexedSlice("apps", "unlabelled", ""))
	x.slice(nil, indexedSlice("other", "web-a", "web"))
	assert.Equal(t, []string{"web-a", "web-b", "web-c"}, sliceNames(x.get(translate.Key{Namespace: "apps", Name: "web"})))
	assert.Equal(t, []string{"web-a"}, sliceNames(x.get(translate.Key{Namespace: "other", Name: "web"})), "a slice of the same name in another namespace")

	// An update replaces the slice; a list handed out before stays as it was.
	before := x.get(translate.Key{Namespace: "apps", Name: "web"}).Slices
	b2 := indexedSlice("apps", "web-b", "web")
	x.slice(b, b2)
	got := x.get(translate.Key{Namespace: "apps", Name: "web"}).Slices
	assert.Same(t, b2, got[1])
	assert.Same(t, b, before[1], "the earlier list was modified")

	// A resync (the same object again) changes nothing, and prepares nothing again.
	prepared := x.get(translate.Key{Namespace: "apps", Name: "web"}).Prepared
	x.slice(b2, b2)
	assert.Equal(t, prepared, x.get(translate.Key{Namespace: "apps", Name: "web"}).Prepared)
	assert.Same(t, prepared[1], x.get(translate.Key{Namespace: "apps", Name: "web"}).Prepared[1])

	// A relabelled slice moves to its new Service.
	moved := indexedSlice("apps", "web-c", "api")
	x.slice(c, moved)
	assert.Equal(t, []string{"web-a", "web-b"}, sliceNames(x.get(translate.Key{Namespace: "apps", Name: "web"})))
	assert.Equal(t, []string{"web-c"}, sliceNames(x.get(translate.Key{Namespace: "apps", Name: "api"})))
	assert.Nil(t, x.get(translate.Key{Namespace: "apps", Name: "api"}).Service, "slices without their Service yet")

	// Deletes, also through a tombstone.
	x.slice(cache.DeletedFinalStateUnknown{Key: "apps/web-c", Obj: moved}, nil)
	assert.Nil(t, x.get(translate.Key{Namespace: "apps", Name: "api"}), "nothing left of api")
	x.slice(a, nil)
	x.service(cache.DeletedFinalStateUnknown{Key: "apps/web", Obj: svc}, nil)
	o := x.get(translate.Key{Namespace: "apps", Name: "web"})
	require.NotNil(t, o, "its slice is still there")
	assert.Nil(t, o.Service)
	assert.Equal(t, []string{"web-b"}, sliceNames(o))
	x.slice(b2, nil)
	assert.Nil(t, x.get(translate.Key{Namespace: "apps", Name: "web"}))
	assert.Len(t, x.m, 1, "only other/web is left")

	// A tombstone without an object, or another kind, changes nothing.
	x.slice(cache.DeletedFinalStateUnknown{Key: "other/web-a"}, nil)
	x.service(nil, "not a service")
	assert.Equal(t, []string{"web-a"}, sliceNames(x.get(translate.Key{Namespace: "other", Name: "web"})))
}

// checkIndex fails the test unless the client's Service index holds what
// its informer stores hold: every Service, and every labelled slice under
// its Service, the very objects, and nothing else, with the load balancers
// built from them as they are now; and its plans are those of the
// Ingresses as they are now (checkPlans). The renders compared with each other read the
// index both, so they cannot tell.
func checkIndex(t *testing.T, c *Client) {
	t.Helper()
	want := map[translate.Key]*translate.ServiceObjects{}
	at := func(key translate.Key) *translate.ServiceObjects {
		if want[key] == nil {
			want[key] = &translate.ServiceObjects{}
		}
		return want[key]
	}
	for _, ns := range c.spaces {
		for _, o := range ns.factory.Core().V1().Services().Informer().GetStore().List() {
			svc := o.(*corev1.Service)
			at(translate.Key{Namespace: svc.Namespace, Name: svc.Name}).Service = svc
		}
		for _, o := range ns.factory.Discovery().V1().EndpointSlices().Informer().GetStore().List() {
			s := o.(*discoveryv1.EndpointSlice)
			if key, ok := sliceService(s); ok {
				at(key).Slices = append(at(key).Slices, s)
			}
		}
	}
	checkPlans(t, c)
	c.index.mu.RLock()
	defer c.index.mu.RUnlock()
	require.Len(t, c.index.m, len(want), "Services in the index")
	for key, w := range want {
		got := c.index.m[key]
		require.NotNil(t, got, "%v is not in the index", key)
		require.Same(t, w.Service, got.Service, "the Service %v", key)
		require.ElementsMatch(t, w.Slices, got.Slices, "the slices of %v", key)
		require.True(t, slices.IsSortedFunc(got.Slices, func(a, b *discoveryv1.EndpointSlice) int { return strings.Compare(a.Name, b.Name) }), "the slices of %v by name", key)
		require.NotPanics(t, func() { sliceNames(got) }, "the prepared slices of %v", key)
		if c.index.lbs != nil {
			require.Equal(t, c.index.lbs.Memoise(got, nil), got.Memo, "the load balancers built for %v", key)
		} else {
			require.Nil(t, got.Memo, "load balancers built for %v without options", key)
		}
	}
}

// TestRenderTakesPreparedURLs: a render through the client builds the
// servers of a Service from the slices its index prepared, taking the URLs
// Prepare wrote (the same memory, not a copy), except where the scheme is
// not the one they were written for; IPv6 clusters too.
func TestRenderTakesPreparedURLs(t *testing.T) {
	for _, family := range []string{"IPv4", "IPv6"} {
		t.Run(family, func(t *testing.T) {
			objs := clustergen.Cluster(40, 20)
			if family == "IPv6" {
				objs = clustergen.ToIPv6(objs)
			}
			// The first Service's port is 443: its URLs are https and built.
			for _, o := range objs {
				if svc, ok := o.(*corev1.Service); ok && svc.Name == clustergen.Name(0) {
					svc.Spec.Ports[0].Port = 443
				}
			}
			client, _ := startClient(t, fake.NewClientset(objs...), ClientOptions{})
			opts := benchOptions()
			res := Translate(client.Snapshot(), opts)
			require.Empty(t, res.Errors)
			require.Len(t, res.Configuration.HTTP.Services, 40)

			shared, want := 0, 0
			for i := range 40 {
				o := client.index.get(translate.Key{Namespace: clustergen.Namespace, Name: clustergen.Name(i)})
				require.NotNil(t, o)
				port := o.Service.Spec.Ports[0]
				svc := res.Configuration.HTTP.Services[serviceName(o.Service.Namespace, o.Service.Name, port.Name)]
				require.NotNil(t, svc, "the load balancer of %s", o.Service.Name)
				if port.Port != 443 {
					want += len(svc.LoadBalancer.Servers)
				}
				backends, _ := endpoints.AppendSelectPrepared(nil, o.Prepared, port.Name, endpoints.Options{AddressTypes: translate.Selection{}.AddressTypes(o.Service)})
				require.Len(t, svc.LoadBalancer.Servers, len(backends))
				for j, b := range backends {
					got := svc.LoadBalancer.Servers[j].URL
					prepared, ok := b.URL("http")
					require.True(t, ok, "a backend of a prepared slice without its URL")
					if port.Port == 443 {
						require.Equal(t, "https"+strings.TrimPrefix(prepared, "http"), got)
						continue
					}
					require.Equal(t, prepared, got)
					require.Same(t, unsafe.StringData(prepared), unsafe.StringData(got), "the URL was written again")
					shared++
				}
			}
			require.Equal(t, want, shared)
			require.Greater(t, shared, 39*10)
		})
	}
}

// checkPlans fails the test unless the client has a plan of each Ingress
// in its stores, of that very object, equal to the plan a render makes.
func checkPlans(t *testing.T, c *Client) {
	t.Helper()
	n := 0
	for _, ns := range c.spaces {
		for _, o := range ns.ingressInformer.GetStore().List() {
			ing := o.(*netv1.Ingress)
			n++
			if c.plans == nil {
				continue
			}
			pl := c.plans.plan(ing)
			require.NotNil(t, pl, "no plan of %s/%s", ing.Namespace, ing.Name)
			require.Equal(t, translate.PlanIngress(ing, c.plans.opts, nil), pl, "the plan of %s/%s", ing.Namespace, ing.Name)
		}
	}
	require.Len(t, listerSnapshot{c}.Ingresses(), n, "Ingresses in the snapshot")
	if c.plans != nil {
		c.plans.mu.RLock()
		defer c.plans.mu.RUnlock()
		require.Equal(t, n, c.plans.plans.Len(), "plans")
	}
}

// TestIndexBuildsLoadBalancers: told the options of the renders, the
// client's index builds the load balancer of each Service port as the
// objects arrive, and a render takes it where its options are the
// index's and hints cannot apply; likewise the plans of the Ingresses,
// where the render's plan options are the index's. Either way the result
// is that of a render that builds everything itself, problems included.
func TestIndexBuildsLoadBalancers(t *testing.T) {
	objs := clustergen.Cluster(60, 20)
	var hinted, broken string
	annotated, byNumber, udpFirst := clustergen.Name(4), clustergen.Name(5), clustergen.Name(6)
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Service:
			switch o.Name {
			case clustergen.Name(0):
				o.Spec.Ports[0].Port = 443 // https: URLs not written by Prepare
			case clustergen.Name(1):
				o.Spec.PublishNotReadyAddresses = true
			case annotated:
				o.Annotations = map[string]string{AnnotationPrefix + "service.passhostheader": "false"}
			case udpFirst:
				// The port an Ingress names by number is the first with
				// that number: this one, which is refused.
				o.Spec.Ports = append([]corev1.ServicePort{{Name: "dns", Port: o.Spec.Ports[0].Port, Protocol: corev1.ProtocolUDP}}, o.Spec.Ports...)
			}
		case *netv1.Ingress:
			if name := o.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name; name == byNumber || name == udpFirst {
				o.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port = netv1.ServiceBackendPort{Number: 80}
			}
		case *discoveryv1.EndpointSlice:
			switch o.Labels[discoveryv1.LabelServiceName] {
			case clustergen.Name(2):
				hinted = o.Labels[discoveryv1.LabelServiceName]
				for i := range o.Endpoints {
					o.Endpoints[i].Hints = &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "zone-a"}}}
				}
			case clustergen.Name(3):
				broken = o.Labels[discoveryv1.LabelServiceName]
				o.Endpoints[0].Addresses = []string{"10.0.0.999"} // a problem, reported from the memo too
			}
		}
	}
	require.NotEmpty(t, hinted)
	require.NotEmpty(t, broken)
	for _, tc := range []struct {
		name           string
		client, render func(*Provider)
		notShared      []string // Services whose render builds the load balancer itself
		none           bool     // no Service takes the index's load balancer
		otherPlans     bool     // the plans the client made are not for the render's options
	}{
		{name: "same options"},
		{name: "topology", render: func(p *Provider) { p.Topology = &Topology{Node: "node-1", Zone: "zone-a"} }, notShared: []string{hinted}},
		{name: "nativeLB", render: func(p *Provider) { p.NativeLBByDefault = true }, none: true},
		{name: "other terminating policy", client: func(p *Provider) { p.TerminatingEndpoints = "exclude" }, none: true},
		{name: "other managers", render: func(p *Provider) { p.EndpointSliceManagers = []string{"endpointslice-controller.k8s.io"} }, none: true},
		{name: "other ipFamily", client: func(p *Provider) { p.IPFamily = IPFamilyAll }, none: true},
		{name: "other allowExternalNameServices", render: func(p *Provider) { p.AllowExternalNameServices = true }, none: true},
		// Not an endpoint option: the load balancers are shared, the plans not.
		{name: "other strictPrefixMatching", render: func(p *Provider) { p.StrictPrefixMatching = true }, otherPlans: true},
		{name: "other routerPriority", render: func(p *Provider) { p.RouterPriority = RouterPriorityRuleLength }, otherPlans: true},
		{name: "other maxIngressOutput", client: func(p *Provider) { p.MaxIngressOutput = 1 << 30 }, otherPlans: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			copts, ropts := benchOptions(), benchOptions()
			if tc.client != nil {
				tc.client(copts)
			}
			if tc.render != nil {
				tc.render(ropts)
			}
			client, _ := startClient(t, fake.NewClientset(objs...), ClientOptions{Provider: copts})
			want := Translate(plainSnapshot{client.Snapshot()}, ropts) // builds everything itself
			got := Translate(client.Snapshot(), ropts)
			require.True(t, equalResults(t, want, got))
			if tc.name != "nativeLB" { // which reads no slice
				require.True(t, slices.ContainsFunc(got.Errors, func(e *ObjectError) bool { return e.Kind == "EndpointSlice" }), "the broken slice is reported")
			}

			shared := 0
			for i := range 60 {
				name := clustergen.Name(i)
				o := client.index.get(translate.Key{Namespace: clustergen.Namespace, Name: name})
				require.NotNil(t, o.Memo, name)
				port := len(o.Service.Spec.Ports) - 1
				key := serviceName(o.Service.Namespace, name, o.Service.Spec.Ports[port].Name)
				if name == byNumber {
					key = serviceName(o.Service.Namespace, name, "80")
				}
				service := got.Configuration.HTTP.Services[key]
				if name == udpFirst {
					require.Nil(t, service, "the Ingress names the UDP port")
					require.Nil(t, o.Memo.Port(0), "no load balancer for the UDP port")
					require.True(t, slices.ContainsFunc(got.Errors, func(e *ObjectError) bool { return strings.Contains(e.Error(), "is UDP, not TCP") }))
					continue
				}
				require.NotNil(t, service, name)
				require.NotEmpty(t, service.LoadBalancer.Servers, name)
				lb := o.Memo.Port(port)
				require.NotNil(t, lb, name)
				if service == lb.Service {
					shared++
					require.False(t, tc.none || slices.Contains(tc.notShared, name), "%s takes the index's load balancer", name)
				} else {
					require.True(t, tc.none || slices.Contains(tc.notShared, name), "%s built its load balancer again", name)
				}
			}
			if !tc.none {
				require.Equal(t, 60-len(tc.notShared)-1, shared, "less the Service whose Ingress names its UDP port")
			}
			// The plans the client made: taken by a render with the same
			// options, none by one with others.
			planned := 0
			snap := client.Snapshot()
			for _, ing := range snap.Ingresses() {
				pl := snap.(engine.PlanReader).Plan(ing)
				if key, _, rt := pl.Path(0); got.Configuration.HTTP.Routers[key] == rt {
					planned++
				}
			}
			if tc.otherPlans {
				require.Zero(t, planned)
			} else {
				require.Equal(t, 60, planned+1, "every router but that of the Ingress to a UDP port")
			}
		})
	}
}

// BenchmarkIndexBuildsLoadBalancers is what the event handler spends, at
// each event of one of a Service's slices, building the load balancers of
// its ports: generated Services (one port, 20 endpoints over two slices,
// or three when one address is repeated) with the default options.
func BenchmarkIndexBuildsLoadBalancers(b *testing.B) {
	for i := range 2 {
		b.Run(fmt.Sprintf("service=%d", i), func(b *testing.B) { benchIndexBuilds(b, clustergen.Name(i)) })
	}
}

func benchIndexBuilds(b *testing.B, name string) {
	o := &translate.ServiceObjects{}
	for _, obj := range clustergen.Cluster(2, 20) {
		switch obj := obj.(type) {
		case *corev1.Service:
			if obj.Name == name {
				o.Service = obj
			}
		case *discoveryv1.EndpointSlice:
			if obj.Labels[discoveryv1.LabelServiceName] == name {
				o.Slices = append(o.Slices, obj)
				o.Prepared = append(o.Prepared, endpoints.Prepare(obj, preparedScheme))
			}
		}
	}
	x := newServiceIndex(newLBOptions(benchOptions()))
	m := x.lbs.Memoise(o, nil)
	if o.Service == nil || m == nil || m.Port(0) == nil || m.Port(1) != nil || len(m.Port(0).Service.LoadBalancer.Servers) == 0 {
		b.Fatalf("nothing built: %d slices", len(o.Slices))
	}
	b.ReportAllocs()
	for b.Loop() {
		x.lbs.Memoise(o, m)
	}
	b.ReportMetric(float64(len(o.Slices)), "slices")
}
