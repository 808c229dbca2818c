package ingress

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ptypes "github.com/traefik/paerser/types"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

func TestProvideFirstConfigurationAfterSync(t *testing.T) {
	objs := liveCluster()
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, nil)
	conf := lp.next()
	// Everything the cluster holds is in the first configuration: it is
	// sent after the caches are synced, not while they fill.
	assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(conf, liveWebKey))
	assert.Equal(t, `Host("web.example") && PathPrefix("/")`, liveRuleFor(conf, "web.example"))
	assert.Len(t, liveCertFiles(conf), 1)
	// Sent is called once the reader has the configuration.
	liveWaitFor(t, "Sent", func() bool { return lp.obs.sent.Load() >= 1 })
	assert.EqualValues(t, 1, lp.obs.sent.Load())

	// Every initial object is an add event that counts.
	lp.waitInitialEvents(objs)
	for _, kind := range []string{"Ingress", "IngressClass", "Service", "EndpointSlice", "Secret"} {
		changed, filtered := lp.obs.counts(kind)
		assert.Equal(t, 1, changed, kind)
		assert.Zero(t, filtered, kind)
	}
}

func TestProvideWatchesNodesOnlyWhenNeeded(t *testing.T) {
	ctx := context.Background()
	objs := liveCluster()
	objs["Node/n1"] = liveNode("n1", "192.168.0.1")
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, nil)
	lp.next()

	listsNodes := func() bool {
		for _, a := range cs.Actions() {
			if a.GetResource().Resource == "nodes" && (a.GetVerb() == "list" || a.GetVerb() == "watch") {
				return true
			}
		}
		return false
	}
	assert.False(t, listsNodes(), "no Service needs Nodes: they are not watched")

	// A node-port Service makes the provider watch Nodes.
	_, err := cs.CoreV1().Services(liveNS).Create(ctx, liveNodePortService("np"), metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.NetworkingV1().Ingresses(liveNS).Create(ctx, liveIngress("np", "sliceway", "np.example", "np", livePort80, 1), metav1.CreateOptions{})
	require.NoError(t, err)
	conf, _ := lp.nextUntil("node-port servers", func(c *dynamic.Configuration) bool {
		return liveServerURLs(c, "shop-np-80") != nil
	})
	assert.Equal(t, []string{"http://192.168.0.1:30080"}, liveServerURLs(conf, "shop-np-80"))
	assert.True(t, listsNodes())
}

func TestProvideIgnoresUpdatesThatCannotChangeTheOutput(t *testing.T) {
	objs := liveCluster()
	liveWithNodePorts(objs)
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, nil)
	before := lp.next()
	require.Equal(t, []string{"http://192.168.0.1:30080"}, liveServerURLs(before, "shop-np-80"), "Nodes are watched")
	lp.waitInitialEvents(objs)
	liveWaitFor(t, "Sent", func() bool { return lp.obs.sent.Load() >= 1 })
	mark := lp.obs.logLen()

	for _, u := range []struct {
		name, kind string
		update     func(t *testing.T)
	}{
		{"slice annotations and an unrelated label", "EndpointSlice", func(t *testing.T) {
			liveMutateSlice(t, cs, "web-1", func(s *discoveryv1.EndpointSlice) {
				s.Annotations = map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": time.Now().Format(time.RFC3339)}
				s.Labels["pod-template-hash"] = "abc"
			})
		}},
		{"slice resourceVersion only", "EndpointSlice", func(t *testing.T) {
			liveMutateSlice(t, cs, "web-1", func(*discoveryv1.EndpointSlice) {})
		}},
		{"Service annotation of another tool", "Service", func(t *testing.T) {
			liveMutateService(t, cs, "web", func(s *corev1.Service) {
				s.Annotations = map[string]string{"prometheus.io/scrape": "true"}
			})
		}},
		{"Service last-applied annotation", "Service", func(t *testing.T) {
			liveMutateService(t, cs, "web", func(s *corev1.Service) {
				s.Annotations[corev1.LastAppliedConfigAnnotation] = `{"kind":"Service"}`
			})
		}},
		{"Secret label", "Secret", func(t *testing.T) {
			liveMutateSecret(t, cs, "web-tls", func(s *corev1.Secret) { s.Labels = map[string]string{"team": "a"} })
		}},
		{"Secret data nobody reads (dropped by the transform)", "Secret", func(t *testing.T) {
			liveMutateSecret(t, cs, "web-tls", func(s *corev1.Secret) { s.Data["ca.crt"] = []byte("a CA") })
		}},
		{"Ingress annotation of another tool", "Ingress", func(t *testing.T) {
			liveMutateIngress(t, cs, "web", func(i *netv1.Ingress) {
				i.Annotations = map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt"}
			})
		}},
		{"Ingress generation and managedFields", "Ingress", func(t *testing.T) {
			liveMutateIngress(t, cs, "web", func(i *netv1.Ingress) {
				i.Generation++
				i.ManagedFields = append(i.ManagedFields, metav1.ManagedFieldsEntry{Manager: "someone", Operation: metav1.ManagedFieldsOperationUpdate})
			})
		}},
		{"IngressClass label", "IngressClass", func(t *testing.T) {
			liveMutateClass(t, cs, "sliceway", func(c *netv1.IngressClass) { c.Labels = map[string]string{"team": "a"} })
		}},
		{"Node heartbeat, images and allocatable", "Node", func(t *testing.T) {
			liveMutateNode(t, cs, "n1", func(n *corev1.Node) {
				n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(liveEpoch.Add(time.Minute))
				n.Status.Images = []corev1.ContainerImage{{Names: []string{"nginx:1"}}}
				n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
			})
		}},
	} {
		changed, filtered := lp.obs.counts(u.kind)
		u.update(t)
		liveWaitFor(t, u.name+" to reach the observer", func() bool {
			c, f := lp.obs.counts(u.kind)
			return c+f > changed+filtered
		})
		c, f := lp.obs.counts(u.kind)
		assert.Equal(t, []int{changed, filtered + 1}, []int{c, f}, "%s: filtered, not changed", u.name)
	}
	for _, e := range lp.obs.logSince(mark) {
		assert.True(t, strings.HasSuffix(e, " filtered") || e == "rendered", "only filtered events: got %q", e)
	}

	// A real change: the next configuration differs from the first one by
	// this change alone, so nothing was sent in between.
	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.5"))
	after := lp.next()
	want := liveJSON(t, before)
	want["http"].(map[string]any)["services"].(map[string]any)[liveWebKey].(map[string]any)["loadBalancer"].(map[string]any)["servers"] =
		[]any{map[string]any{"url": "http://10.0.0.5:8080"}}
	assert.Equal(t, want, liveJSON(t, after))
	liveWaitFor(t, "Sent", func() bool { return lp.obs.sent.Load() >= 2 })
	assert.EqualValues(t, 2, lp.obs.sent.Load())

	// Filtered updates cause no render: before the real change's event,
	// the only renders are those of the initial adds (one under way and one
	// pending at most, when an add arrived during the first render).
	log := lp.obs.logSince(mark)
	real := slices.Index(log, "EndpointSlice changed")
	require.GreaterOrEqual(t, real, 0, "%v", log)
	renders := 0
	for _, e := range log[:real] {
		if e == "rendered" {
			renders++
		}
	}
	assert.LessOrEqual(t, renders, 2, "renders while only ignored updates arrived: %v", log)
}

func TestProvideCoalescesABurst(t *testing.T) {
	const throttle = 500 * time.Millisecond
	objs := liveCluster()
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, func(p *Provider) { p.ThrottleDuration = ptypes.Duration(throttle) })
	lp.next()
	lp.waitInitialEvents(objs)

	const updates = 50
	start := time.Now()
	for i := 1; i <= updates; i++ {
		liveMutateSlice(t, cs, "web-1", liveSetAddress(fmt.Sprintf("10.1.0.%d", i)))
	}
	elapsed := time.Since(start)
	final := fmt.Sprintf("http://10.1.0.%d:8080", updates)
	last, n := lp.nextUntil("the last update", func(c *dynamic.Configuration) bool {
		return slices.Equal(liveServerURLs(c, liveWebKey), []string{final})
	})
	// One render may start at the first event of the burst; after it, the
	// renders are at least a throttle apart, and the last one sees the
	// final state: two configurations for a burst shorter than the throttle.
	bound := 2 + int(elapsed/throttle)
	t.Logf("%d updates in %s gave %d configurations (bound %d)", updates, elapsed, n, bound)
	assert.LessOrEqual(t, n, bound)
	assert.Less(t, n, updates/10, "a burst is coalesced")

	// The last configuration is what a fresh translation of the cluster gives.
	client, err := NewClient(cs, ClientOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client.Start(ctx)
	require.NoError(t, client.WaitForSync(ctx, 5*time.Second))
	fresh := Translate(client.Snapshot(), lp.p)
	assert.Equal(t, fresh.Configuration, last)

	// Nothing else was queued behind it: the next configuration is the
	// next change.
	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.2.0.1"))
	assert.Equal(t, []string{"http://10.2.0.1:8080"}, liveServerURLs(lp.next(), liveWebKey))
}

func TestProvideRendersAChangeMadeDuringARender(t *testing.T) {
	objs := liveCluster()
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, nil)
	lp.next()
	lp.waitInitialEvents(objs)

	// The next render, after it has read the caches and before it sends,
	// sees the slice change once more, and waits until the change has been
	// through the event handler.
	lp.obs.mu.Lock()
	lp.obs.onRender = func() {
		changed, _ := lp.obs.counts("EndpointSlice")
		c := cs.DiscoveryV1().EndpointSlices(liveNS)
		s, err := c.Get(context.Background(), "web-1", metav1.GetOptions{})
		if !assert.NoError(t, err) {
			return
		}
		s.Endpoints[0].Addresses = []string{"10.0.0.99"}
		if _, err := c.Update(context.Background(), s, metav1.UpdateOptions{}); !assert.NoError(t, err) {
			return
		}
		deadline := time.Now().Add(liveWait)
		for {
			if c, _ := lp.obs.counts("EndpointSlice"); c > changed {
				return
			}
			if time.Now().After(deadline) {
				t.Error("the change made during a render never reached the event handler")
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	lp.obs.mu.Unlock()

	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.7"))
	conf, _ := lp.nextUntil("the change made during the render", func(c *dynamic.Configuration) bool {
		return slices.Contains(liveServerURLs(c, liveWebKey), "http://10.0.0.99:8080")
	})
	assert.Equal(t, []string{"http://10.0.0.99:8080"}, liveServerURLs(conf, liveWebKey))
}
