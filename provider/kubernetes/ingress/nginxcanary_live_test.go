package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/nginx"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// TestNGINXCanaryLive drives a main Ingress and its canary through real
// informers and an incremental Renderer: the canary's weight changes,
// its EndpointSlice's endpoint moves, its Service loses its servers and
// gets them back, and the canary is deleted. After each step the
// incremental render must equal a full one (renderChanged), and the
// configuration must split as the canary says.
func TestNGINXCanaryLive(t *testing.T) {
	const ns, host = "shop", "shop.example.com"
	const (
		split      = "nginx_shop-shop-shop-example-com_canary"
		mainRouter = "nginx_shop-shop-shop-example-com"
		mainLB     = "nginx_shop-web-80"
		canaryLB   = "nginx_shop-web-next-80"
	)
	ann := func(name string) string { return nginx.AnnotationPrefix + name }
	mainIng := testobjects.NewIngress(ns, "shop", testobjects.WithClassName("nginx"), testobjects.WithCreated(1_700_000_000),
		testobjects.WithPath(host, "/", "web", 80, ""))
	mainIng.Spec.TLS = []netv1.IngressTLS{{Hosts: []string{host}}} // TLS routers too, no certificate
	canary := testobjects.NewIngress(ns, "shop-canary", testobjects.WithClassName("nginx"), testobjects.WithCreated(1_700_000_001),
		testobjects.WithPath(host, "/", "web-next", 80, ""),
		testobjects.WithAnnotation(ann("canary"), "true"),
		testobjects.WithAnnotation(ann("canary-weight"), "20"),
		testobjects.WithAnnotation(ann("canary-by-header"), "X-Canary"))
	objs := []any{testobjects.NewClass("nginx", nginx.DefaultControllerClass, false), mainIng, canary}
	objs = append(objs, testobjects.Backend(ns, "web", "10.0.0.1")...)
	objs = append(objs, testobjects.Backend(ns, "web-next", "10.0.1.1")...)
	l := startNGINXLive(t, objs, nil)
	cs, ctx, c, r := l.cs, l.ctx, l.c, l.r
	first := l.first
	require.Empty(t, first.Errors)

	// weights are the weights of the split's services by name, nil
	// without a split.
	weights := func(res *Result) map[string]int {
		svc := res.Configuration.HTTP.Services[split]
		if svc == nil {
			return nil
		}
		require.NotNil(t, svc.Weighted)
		out := map[string]int{}
		for _, s := range svc.Weighted.Services {
			out[s.Name] = *s.Weight
		}
		return out
	}
	servers := func(res *Result, name string) []dynamic.Server {
		svc := res.Configuration.HTTP.Services[name]
		require.NotNil(t, svc, "service %s", name)
		return svc.LoadBalancer.Servers
	}
	routers := func(res *Result) map[string]*dynamic.Router { return res.Configuration.HTTP.Routers }
	require.Equal(t, map[string]int{mainLB: 80, canaryLB: 20}, weights(first))
	for _, name := range []string{mainRouter, mainRouter + "_tls"} {
		require.Equal(t, split, routers(first)[name].Service, "plain and TLS requests are split alike (%s)", name)
	}
	require.Equal(t, canaryLB, routers(first)[mainRouter+"_canary-header"].Service)
	require.Equal(t, mainLB, routers(first)[mainRouter+"_canary-header-never_tls"].Service)

	ingAPI := cs.NetworkingV1().Ingresses(ns)
	sliceAPI := cs.DiscoveryV1().EndpointSlices(ns)
	render := func(what string) *Result { t.Helper(); return l.render(t, what) }

	// The canary's weight changes: the main Ingress, which reads it
	// through its host, is translated again.
	canary.Annotations[ann("canary-weight")] = "50"
	_, err := ingAPI.Update(ctx, canary, metav1.UpdateOptions{})
	c.did(err)
	got := render("the canary's weight changed")
	require.Equal(t, map[string]int{mainLB: 50, canaryLB: 50}, weights(got))

	// The canary's endpoint moves: its load balancer is rebuilt, under the
	// same name the split names.
	s, err := sliceAPI.Get(ctx, "web-next-abc", metav1.GetOptions{})
	require.NoError(t, err)
	s.Endpoints[0].Addresses = []string{"10.0.1.2"}
	_, err = sliceAPI.Update(ctx, s, metav1.UpdateOptions{})
	c.did(err)
	got = render("the canary's endpoint moved")
	require.Equal(t, []dynamic.Server{{URL: "http://10.0.1.2:8080"}}, servers(got, canaryLB))
	require.Equal(t, map[string]int{mainLB: 50, canaryLB: 50}, weights(got))

	// The canary's Service loses its servers: the main backend takes
	// every request, as in ingress-nginx, and the canary says why.
	c.did(sliceAPI.Delete(ctx, "web-next-abc", metav1.DeleteOptions{}))
	got = render("the canary's slice was deleted")
	require.Nil(t, weights(got))
	require.Equal(t, mainLB, routers(got)[mainRouter].Service)
	require.NotContains(t, routers(got), mainRouter+"_canary-header")
	require.NotContains(t, got.Configuration.HTTP.Services, canaryLB)
	require.Len(t, got.Errors, 1)
	require.Contains(t, got.Errors[0].Error(), "shop/shop-canary")
	require.Contains(t, got.Errors[0].Error(), "has no servers")

	// And gets them back.
	_, err = sliceAPI.Create(ctx, testobjects.NewSlice(ns, "web-next-abc", "web-next", "", 8080, testobjects.Endpoint("10.0.1.3", testobjects.Ready)), metav1.CreateOptions{})
	c.did(err)
	got = render("the canary's slice came back")
	require.Equal(t, map[string]int{mainLB: 50, canaryLB: 50}, weights(got))
	require.Equal(t, []dynamic.Server{{URL: "http://10.0.1.3:8080"}}, servers(got, canaryLB))
	require.Empty(t, got.Errors)

	// A second endpoint in the canary's slice, after the split was
	// translated again: the refreshed load balancer reaches the split.
	s, err = sliceAPI.Get(ctx, "web-next-abc", metav1.GetOptions{})
	require.NoError(t, err)
	s.Endpoints = append(s.Endpoints, testobjects.Endpoint("10.0.1.4", testobjects.Ready))
	_, err = sliceAPI.Update(ctx, s, metav1.UpdateOptions{})
	c.did(err)
	got = render("the canary got a second endpoint")
	require.Equal(t, []dynamic.Server{{URL: "http://10.0.1.3:8080"}, {URL: "http://10.0.1.4:8080"}}, servers(got, canaryLB))

	// The canary goes: no split, no canary routers, no canary service.
	c.did(ingAPI.Delete(ctx, canary.Name, metav1.DeleteOptions{}))
	got = render("the canary was deleted")
	require.Nil(t, weights(got))
	require.NotContains(t, got.Configuration.HTTP.Services, canaryLB)
	require.Equal(t, mainLB, routers(got)[mainRouter].Service)
	require.Equal(t, mainLB, routers(got)[mainRouter+"_tls"].Service)
	require.Len(t, routers(got), 2, "the main path's plain and TLS routers alone")

	st := r.Stats()
	require.Equal(t, 1, st.Full, "every render after the first is incremental")
	require.Positive(t, st.Refreshed, "an endpoint change of the canary refreshes its load balancer in place")
}
