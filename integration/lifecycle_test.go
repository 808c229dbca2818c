package integration_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/integration/controlplane"
)

// Test 3: a Deployment's life through the real EndpointSlice controller:
// pods becoming ready, scale up and down, a rolling update whose old pods
// go serving-terminating (fenced while a new pod is ready, used when none
// is), and deletion.
func TestDeploymentLifecycle(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	const ns = "shop"
	require.NoError(t, cp.CreateNamespace(ctx, ns))
	createService(t, cp, ns, "web", "web")
	createIngress(t, cp, ingressSpec{namespace: ns, name: "web", host: "shop.example.com", service: "web"})
	d := deployment{t: t, cp: cp, namespace: ns, app: "web"}
	const svc = "shop-web-http"

	r := runProvider(t, newProvider(t, cp))
	// No pod yet: the service has no servers and is left out with its router.
	cfg := r.waitFor(t, "a first configuration", time.Minute, func(*dynamic.Configuration) bool { return true })
	assert.Empty(t, servers(cfg, svc))

	t.Log("pods created, not ready yet")
	d.addPod("web-v1-a", "node-a", "10.244.1.1", false)
	d.addPod("web-v1-b", "node-b", "10.244.2.1", false)
	// The controller publishes them not ready (and not serving): never used.
	eventually(t, "the slice lists the two pods", time.Minute, func() bool {
		return sliceEndpoints(t, cp, ns, "web") == 2
	})
	assert.Empty(t, servers(r.latest(), svc))

	t.Log("pods ready")
	d.setReady("web-v1-a", "10.244.1.1", true)
	d.setReady("web-v1-b", "10.244.2.1", true)
	cfg = r.waitFor(t, "two ready servers", time.Minute, hasServers(svc, "http://10.244.1.1:8080", "http://10.244.2.1:8080"))
	require.Contains(t, cfg.HTTP.Routers, "shop-web-shop-example-com")

	t.Log("scale up to 3")
	d.addPod("web-v1-c", "node-a", "10.244.1.2", true)
	r.waitFor(t, "three servers", time.Minute, hasServers(svc, "http://10.244.1.1:8080", "http://10.244.1.2:8080", "http://10.244.2.1:8080"))

	t.Log("scale down to 2: web-v1-c terminating, still serving")
	d.terminate("web-v1-c")
	cfg = r.waitFor(t, "web-v1-c fenced", time.Minute, hasServers(svc, "http://10.244.1.1:8080", "http://10.244.1.2:8080 fenced", "http://10.244.2.1:8080"))
	requireFencedWeightZero(t, cfg, svc)
	d.finish("web-v1-c")
	r.waitFor(t, "web-v1-c gone", time.Minute, hasServers(svc, "http://10.244.1.1:8080", "http://10.244.2.1:8080"))

	t.Log("rolling update: v2-a ready, v1-a terminating")
	d.addPod("web-v2-a", "node-a", "10.244.1.3", true)
	d.terminate("web-v1-a")
	r.waitFor(t, "v1-a fenced beside v2-a", time.Minute, hasServers(svc,
		"http://10.244.1.1:8080 fenced", "http://10.244.1.3:8080", "http://10.244.2.1:8080"))

	t.Log("rolling update: v2-b ready, v1-b terminating")
	d.addPod("web-v2-b", "node-b", "10.244.2.3", true)
	d.terminate("web-v1-b")
	cfg = r.waitFor(t, "both v1 fenced", time.Minute, hasServers(svc,
		"http://10.244.1.1:8080 fenced", "http://10.244.1.3:8080", "http://10.244.2.1:8080 fenced", "http://10.244.2.3:8080"))
	requireFencedWeightZero(t, cfg, svc)

	t.Log("the new pods fail their readiness probe: no ready endpoint left")
	d.setReady("web-v2-a", "10.244.1.3", false)
	d.setReady("web-v2-b", "10.244.2.3", false)
	// fallback: the serving-terminating pods carry the traffic, unfenced.
	r.waitFor(t, "the terminating pods used as a fallback", time.Minute, hasServers(svc,
		"http://10.244.1.1:8080", "http://10.244.2.1:8080"))

	t.Log("the new pods recover; the old pods finish")
	d.setReady("web-v2-a", "10.244.1.3", true)
	d.setReady("web-v2-b", "10.244.2.3", true)
	r.waitFor(t, "old fenced again", time.Minute, hasServers(svc,
		"http://10.244.1.1:8080 fenced", "http://10.244.1.3:8080", "http://10.244.2.1:8080 fenced", "http://10.244.2.3:8080"))
	d.finish("web-v1-a")
	d.finish("web-v1-b")
	r.waitFor(t, "only v2", time.Minute, hasServers(svc, "http://10.244.1.3:8080", "http://10.244.2.3:8080"))

	t.Log("deployment deleted")
	d.terminate("web-v2-a")
	d.terminate("web-v2-b")
	d.finish("web-v2-a")
	d.finish("web-v2-b")
	r.waitFor(t, "no servers, no router", time.Minute, func(c *dynamic.Configuration) bool {
		return servers(c, svc) == nil && (c.HTTP == nil || c.HTTP.Routers["shop-web-shop-example-com"] == nil)
	})

	t.Log("service and ingress deleted")
	require.NoError(t, cp.Client().NetworkingV1().Ingresses(ns).Delete(ctx, "web", metav1.DeleteOptions{}))
	require.NoError(t, cp.Client().CoreV1().Services(ns).Delete(ctx, "web", metav1.DeleteOptions{}))
	r.waitFor(t, "an empty configuration", time.Minute, func(c *dynamic.Configuration) bool {
		return c.HTTP == nil || len(c.HTTP.Routers)+len(c.HTTP.Services) == 0
	})
	// The garbage collector (not running here) deletes the slices the
	// Service owned; that changes nothing more.
	sent := r.count()
	require.NoError(t, cp.Client().DiscoveryV1().EndpointSlices(ns).DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=web"}))
	eventually(t, "the slices deleted", time.Minute, func() bool { return sliceCount(t, cp, ns, "web") == 0 })
	time.Sleep(time.Second)
	assert.Equal(t, sent, r.count(), "a configuration after deleting slices of no Service")
}

func requireFencedWeightZero(t *testing.T, cfg *dynamic.Configuration, svc string) {
	t.Helper()
	for _, s := range cfg.HTTP.Services[svc].LoadBalancer.Servers {
		if s.Fenced {
			require.NotNil(t, s.Weight, "fenced server %s without weight", s.URL)
			require.Equal(t, 0, *s.Weight, "fenced server %s", s.URL)
		} else {
			require.True(t, s.Weight == nil || *s.Weight > 0, "server %s has weight 0 but is not fenced", s.URL)
		}
	}
}

// sliceEndpoints counts the endpoints of a Service's EndpointSlices.
func sliceEndpoints(t *testing.T, cp *controlplane.ControlPlane, ns, service string) int {
	t.Helper()
	list, err := cp.Client().DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=" + service})
	require.NoError(t, err)
	n := 0
	for _, s := range list.Items {
		n += len(s.Endpoints)
	}
	return n
}

func sliceCount(t *testing.T, cp *controlplane.ControlPlane, ns, service string) int {
	t.Helper()
	list, err := cp.Client().DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=" + service})
	require.NoError(t, err)
	return len(list.Items)
}
