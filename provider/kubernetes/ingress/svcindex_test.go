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
func sliceNames(o *serviceObjects) []string {
	if o == nil {
		return nil
	}
	var names []string
	for i, s := range o.slices {
		names = append(names, s.Name)
		if i >= len(o.prepared) || o.prepared[i].Slice() != s {
			panic(fmt.Sprintf("slice %s has not its prepared form beside it", s.Name))
		}
	}
	if len(o.prepared) != len(o.slices) {
		panic(fmt.Sprintf("%d prepared forms for %d slices", len(o.prepared), len(o.slices)))
	}
	return names
}

func TestServiceIndex(t *testing.T) {
	x := newServiceIndex(nil)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web"}}
	x.service(nil, svc)
	require.Same(t, svc, x.get("apps", "web").svc)
	assert.Nil(t, x.get("apps", "api"), "another name")
	assert.Nil(t, x.get("other", "web"), "another namespace")

	// Slices come in any order and are kept by name.
	c, a, b := indexedSlice("apps", "web-c", "web"), indexedSlice("apps", "web-a", "web"), indexedSlice("apps", "web-b", "web")
	x.slice(nil, c)
	x.slice(nil, a)
	x.slice(nil, b)
	x.slice(nil, indexedSlice("apps", "unlabelled", ""))
	x.slice(nil, indexedSlice("other", "web-a", "web"))
	assert.Equal(t, []string{"web-a", "web-b", "web-c"}, sliceNames(x.get("apps", "web")))
	assert.Equal(t, []string{"web-a"}, sliceNames(x.get("other", "web")), "a slice of the same name in another namespace")

	// An update replaces the slice; a list handed out before stays as it was.
	before := x.get("apps", "web").slices
	b2 := indexedSlice("apps", "web-b", "web")
	x.slice(b, b2)
	got := x.get("apps", "web").slices
	assert.Same(t, b2, got[1])
	assert.Same(t, b, before[1], "the earlier list was modified")

	// A resync (the same object again) changes nothing, and prepares nothing again.
	prepared := x.get("apps", "web").prepared
	x.slice(b2, b2)
	assert.Equal(t, prepared, x.get("apps", "web").prepared)
	assert.Same(t, prepared[1], x.get("apps", "web").prepared[1])

	// A relabelled slice moves to its new Service.
	moved := indexedSlice("apps", "web-c", "api")
	x.slice(c, moved)
	assert.Equal(t, []string{"web-a", "web-b"}, sliceNames(x.get("apps", "web")))
	assert.Equal(t, []string{"web-c"}, sliceNames(x.get("apps", "api")))
	assert.Nil(t, x.get("apps", "api").svc, "slices without their Service yet")

	// Deletes, also through a tombstone.
	x.slice(cache.DeletedFinalStateUnknown{Key: "apps/web-c", Obj: moved}, nil)
	assert.Nil(t, x.get("apps", "api"), "nothing left of api")
	x.slice(a, nil)
	x.service(cache.DeletedFinalStateUnknown{Key: "apps/web", Obj: svc}, nil)
	o := x.get("apps", "web")
	require.NotNil(t, o, "its slice is still there")
	assert.Nil(t, o.svc)
	assert.Equal(t, []string{"web-b"}, sliceNames(o))
	x.slice(b2, nil)
	assert.Nil(t, x.get("apps", "web"))
	assert.Len(t, x.m, 1, "only other/web is left")

	// A tombstone without an object, or another kind, changes nothing.
	x.slice(cache.DeletedFinalStateUnknown{Key: "other/web-a"}, nil)
	x.service(nil, "not a service")
	assert.Equal(t, []string{"web-a"}, sliceNames(x.get("other", "web")))
}

// checkIndex fails the test unless the client's Service index holds what
// its informer stores hold: every Service, and every labelled slice under
// its Service, the very objects, and nothing else, with the servers chosen
// from them as they are now. The renders compared with each other read the
// index both, so they cannot tell.
func checkIndex(t *testing.T, c *Client) {
	t.Helper()
	want := map[string]*serviceObjects{}
	at := func(key string) *serviceObjects {
		if want[key] == nil {
			want[key] = &serviceObjects{}
		}
		return want[key]
	}
	for _, ns := range c.spaces {
		for _, o := range ns.factory.Core().V1().Services().Informer().GetStore().List() {
			svc := o.(*corev1.Service)
			at(objectKey(svc.Namespace, svc.Name)).svc = svc
		}
		for _, o := range ns.factory.Discovery().V1().EndpointSlices().Informer().GetStore().List() {
			s := o.(*discoveryv1.EndpointSlice)
			if key, ok := sliceService(s); ok {
				at(key).slices = append(at(key).slices, s)
			}
		}
	}
	checkIngressOrder(t, c)
	c.index.mu.RLock()
	defer c.index.mu.RUnlock()
	require.Len(t, c.index.m, len(want), "Services in the index")
	for key, w := range want {
		got := c.index.m[key]
		require.NotNil(t, got, "%v is not in the index", key)
		require.Same(t, w.svc, got.svc, "the Service %v", key)
		require.ElementsMatch(t, w.slices, got.slices, "the slices of %v", key)
		require.True(t, slices.IsSortedFunc(got.slices, func(a, b *discoveryv1.EndpointSlice) int { return strings.Compare(a.Name, b.Name) }), "the slices of %v by name", key)
		require.NotPanics(t, func() { sliceNames(got) }, "the prepared slices of %v", key)
		if c.index.sel != nil {
			var scratch []endpoints.Backend
			require.Equal(t, selectPorts(got, nil, c.index.sel, &scratch), got.selected, "the servers chosen for %v", key)
		} else {
			require.Nil(t, got.selected, "servers chosen for %v without a selection", key)
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
				o := client.index.get(clustergen.Namespace, clustergen.Name(i))
				require.NotNil(t, o)
				port := o.svc.Spec.Ports[0]
				svc := res.Configuration.HTTP.Services[serviceKey(o.svc.Namespace, o.svc.Name, port.Name)]
				require.NotNil(t, svc, "the load balancer of %s", o.svc.Name)
				if port.Port != 443 {
					want += len(svc.LoadBalancer.Servers)
				}
				backends, _ := endpoints.AppendSelectPrepared(nil, o.prepared, port.Name, endpoints.Options{AddressTypes: selection{}.addressTypes(o.svc)})
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

// TestIndexChoosesServers: told the options of the renders, the client's
// index chooses the servers of each Service port as the objects arrive, and
// a render takes them (the very slices, not copies) where its endpoint
// options are the index's and hints cannot apply; for a plain port (no
// annotations, TCP, http) it takes the index's load balancer too. Either
// way the result is that of a render that merges the slices and builds the
// load balancers itself, problems included.
func TestIndexChoosesServers(t *testing.T) {
	objs := clustergen.Cluster(60, 20)
	var hinted, broken string
	annotated, byNumber, udpFirst := clustergen.Name(4), clustergen.Name(5), clustergen.Name(6)
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Service:
			switch o.Name {
			case clustergen.Name(0):
				o.Spec.Ports[0].Port = 443 // https: URLs a render writes
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
				o.Endpoints[0].Addresses = []string{"10.0.0.999"} // a problem: the slice is not prepared
			}
		}
	}
	require.NotEmpty(t, hinted)
	require.NotEmpty(t, broken)
	for _, tc := range []struct {
		name           string
		client, render func(*Provider)
		notShared      []string // Services with servers whose render chooses them itself
		none           bool     // no Service takes the index's servers
		otherRouters   bool     // the routers the client's order built are not for the render's options
	}{
		{name: "same options", notShared: []string{clustergen.Name(0), broken}},
		{name: "topology", render: func(p *Provider) { p.Topology = &Topology{Node: "node-1", Zone: "zone-a"} },
			notShared: []string{clustergen.Name(0), broken, hinted}},
		{name: "nativeLB", render: func(p *Provider) { p.NativeLBByDefault = true }, none: true},
		{name: "other terminating policy", client: func(p *Provider) { p.TerminatingEndpoints = "exclude" }, none: true},
		{name: "other managers", render: func(p *Provider) { p.EndpointSliceManagers = []string{"endpointslice-controller.k8s.io"} }, none: true},
		{name: "other ipFamily", client: func(p *Provider) { p.IPFamily = IPFamilyAll }, none: true},
		// Not an endpoint option: the servers are shared, the routers not.
		{name: "other strictPrefixMatching", render: func(p *Provider) { p.StrictPrefixMatching = true },
			notShared: []string{clustergen.Name(0), broken}, otherRouters: true},
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
			want := Translate(sequentialSnapshot{client.Snapshot()}, ropts) // merges the slices itself
			got := Translate(client.Snapshot(), ropts)
			require.True(t, equalResults(t, want, got))
			require.NotEmpty(t, got.Errors, "the broken slice is reported")

			shared, sharedLB := 0, 0
			for i := range 60 {
				name := clustergen.Name(i)
				o := client.index.get(clustergen.Namespace, name)
				require.NotNil(t, o.selected, name)
				port := o.svc.Spec.Ports[len(o.svc.Spec.Ports)-1]
				key := serviceKey(o.svc.Namespace, name, port.Name)
				if name == byNumber {
					key = serviceKey(o.svc.Namespace, name, "80")
				}
				service := got.Configuration.HTTP.Services[key]
				if name == udpFirst {
					require.Nil(t, service, "the Ingress names the UDP port")
					require.True(t, slices.ContainsFunc(got.Errors, func(e *ObjectError) bool { return strings.Contains(e.Error(), "is UDP, not TCP") }))
					continue
				}
				require.NotNil(t, service, name)
				lb := service.LoadBalancer
				require.NotEmpty(t, lb.Servers, name)
				var sp *selectedPort
				for j := range o.selected.ports {
					if o.selected.ports[j].name == port.Name {
						sp = &o.selected.ports[j]
					}
				}
				if name == broken {
					require.Nil(t, sp, "a port with a slice left to Select is not chosen in the index")
					continue
				}
				require.NotNil(t, sp, name)
				if &lb.Servers[0] == &sp.servers[0] {
					shared++
					require.False(t, tc.none || slices.Contains(tc.notShared, name), "%s takes the index's servers", name)
				} else {
					require.True(t, tc.none || slices.Contains(tc.notShared, name), "%s chose its servers again", name)
				}
				switch {
				case name == annotated:
					require.Nil(t, sp.service, "the index builds no load balancer for an annotated Service")
				case port.Port == 443:
					require.Nil(t, sp.service, "nor for a port of scheme https")
				default:
					require.NotNil(t, sp.service, name)
				}
				if service == sp.service {
					sharedLB++
					require.True(t, &lb.Servers[0] == &sp.servers[0])
				}
			}
			// The routers the order built: taken by a render with the same
			// options, none by one with others.
			builtRouters := 0
			for _, oi := range client.Snapshot().(orderedReader).orderedIngresses() {
				if rt := oi.paths[0].router; rt != nil && got.Configuration.HTTP.Routers[oi.paths[0].routerKey] == rt {
					builtRouters++
				}
			}
			if tc.otherRouters {
				require.Zero(t, builtRouters)
			} else {
				require.Equal(t, 60, builtRouters+1, "every router but that of the Ingress to a UDP port")
			}
			if !tc.none {
				// Less the Service whose Ingress names its UDP port.
				require.Equal(t, 60-len(tc.notShared)-1, shared)
				require.Equal(t, shared-1, sharedLB, "every Service that takes the index's servers but the annotated one takes its load balancer")
			} else {
				require.Zero(t, sharedLB)
			}
		})
	}
}

// BenchmarkIndexChoosesServers is what the event handler spends, at each
// event of one of a Service's slices, choosing the servers of its ports
// (and building their load balancers): generated Services (one port, 20
// endpoints over two slices, or three when one address is repeated) with
// the default options.
func BenchmarkIndexChoosesServers(b *testing.B) {
	for i := range 2 {
		b.Run(fmt.Sprintf("service=%d", i), func(b *testing.B) { benchIndexChooses(b, clustergen.Name(i)) })
	}
}

func benchIndexChooses(b *testing.B, name string) {
	o := &serviceObjects{}
	for _, obj := range clustergen.Cluster(2, 20) {
		switch obj := obj.(type) {
		case *corev1.Service:
			if obj.Name == name {
				o.svc = obj
			}
		case *discoveryv1.EndpointSlice:
			if obj.Labels[discoveryv1.LabelServiceName] == name {
				o.slices = append(o.slices, obj)
				o.prepared = append(o.prepared, endpoints.Prepare(obj, preparedScheme))
			}
		}
	}
	sel := newSelection(benchOptions())
	var scratch []endpoints.Backend
	s := selectPorts(o, nil, &sel, &scratch)
	if o.svc == nil || s == nil || len(s.ports) != 1 || len(s.ports[0].servers) == 0 {
		b.Fatalf("nothing chosen: %d slices", len(o.slices))
	}
	b.ReportAllocs()
	for b.Loop() {
		selectPorts(o, s, &sel, &scratch)
	}
	b.ReportMetric(float64(len(o.slices)), "slices")
}
