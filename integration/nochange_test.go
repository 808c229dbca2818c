package integration_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Test 7: updates that change nothing the output reads (annotations of
// EndpointSlices, labels of Services, Node heartbeats) reach the provider
// and are dropped: no render, no new configuration. A real change after
// them still gives one.
func TestUpdatesThatChangeNothing(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	app := createWebApp(t, cp, "apps")

	// A node-port Service, so that Nodes are watched.
	np, err := cp.Client().CoreV1().Services("apps").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "np", Annotations: map[string]string{
			"traefik.ingress.kubernetes.io/service.nodeportlb": "true",
		}},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeNodePort,
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	nodePort := np.Spec.Ports[0].NodePort
	createIngress(t, cp, ingressSpec{namespace: "apps", name: "np", host: "np.example.com", service: "np"})

	r := runProvider(t, newProvider(t, cp))
	npServers := []string{
		"http://192.168.0.1:" + itoa(nodePort),
		"http://192.168.0.2:" + itoa(nodePort),
	}
	r.waitFor(t, "both services", time.Minute, func(c *dynamic.Configuration) bool {
		return webServers("apps")(c) && hasServers("apps-np-http", npServers...)(c)
	})
	require.Contains(t, r.logs.String(), "watching Nodes")
	// Let the controllers settle (the np Service's own slices, late events).
	settle(t, r, 3*time.Second)
	sent, renders := r.count(), r.observer.renders()
	filtered := func(kind string) int { return r.observer.get(kind + "/filtered") }
	slices0, services0, nodes0 := filtered("EndpointSlice"), filtered("Service"), filtered("Node")

	t.Log("annotating every EndpointSlice")
	list, err := cp.Client().DiscoveryV1().EndpointSlices("apps").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, list.Items)
	for _, s := range list.Items {
		require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			s, err := cp.Client().DiscoveryV1().EndpointSlices("apps").Get(ctx, s.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if s.Annotations == nil {
				s.Annotations = map[string]string{}
			}
			s.Annotations["example.com/audited"] = "yes"
			_, err = cp.Client().DiscoveryV1().EndpointSlices("apps").Update(ctx, s, metav1.UpdateOptions{})
			return err
		}))
	}

	t.Log("labelling the Services")
	for _, name := range []string{"web", "np"} {
		require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			svc, err := cp.Client().CoreV1().Services("apps").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if svc.Labels == nil {
				svc.Labels = map[string]string{}
			}
			svc.Labels["team"] = "shop"
			_, err = cp.Client().CoreV1().Services("apps").Update(ctx, svc, metav1.UpdateOptions{})
			return err
		}))
	}

	t.Log("node heartbeats")
	for range 3 {
		require.NoError(t, cp.NodeHeartbeat(ctx, "node-a"))
		require.NoError(t, cp.NodeHeartbeat(ctx, "node-b"))
		time.Sleep(200 * time.Millisecond)
	}

	defer func() { t.Logf("events: %v", r.observer.snapshot()) }()
	eventually(t, "every update seen and filtered", 30*time.Second, func() bool {
		return filtered("EndpointSlice")-slices0 >= len(list.Items) &&
			filtered("Service")-services0 >= 2 &&
			filtered("Node")-nodes0 >= 6
	})
	time.Sleep(2 * time.Second)
	assert.Equal(t, sent, r.count(), "a new configuration after updates that change nothing")
	assert.Equal(t, renders, r.observer.renders(), "a render after updates that change nothing")

	t.Log("a real change still gives a configuration")
	app.deploy.addPod("web-3", "node-a", "10.244.1.11", true)
	r.waitFor(t, "the third server", time.Minute, hasServers("apps-web-http", "http://10.244.1.10:8080", "http://10.244.1.11:8080", "http://10.244.2.10:8080"))
	assert.Equal(t, sent+1, r.count())
}

// settle waits until no configuration arrived for quiet.
func settle(t *testing.T, r *providerRun, quiet time.Duration) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		n := r.count()
		time.Sleep(quiet)
		if r.count() == n {
			return
		}
	}
	t.Fatalf("configurations keep coming")
}

func itoa(i int32) string { return strconv.Itoa(int(i)) }
