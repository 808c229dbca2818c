package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

const churnServices = 50

// churnSlice is the hand-written EndpointSlice of churn service i, with n
// endpoints from base, some of them serving but terminating.
func churnSlice(i, base, n int) *discoveryv1.EndpointSlice {
	name := fmt.Sprintf("svc-%02d", i)
	port, portName := int32(8080), "http"
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: "churn", Name: name + "-1", Labels: map[string]string{
			discoveryv1.LabelServiceName: name,
			discoveryv1.LabelManagedBy:   "churn-writer",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port}},
	}
	for e := range n {
		ready, serving, terminating := true, true, false
		if (base+e)%7 == 3 {
			ready, terminating = false, true
		}
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{fmt.Sprintf("10.%d.%d.%d", 10+i, (base+e)/250%250, (base+e)%250+1)},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		})
	}
	return s
}

// Issue 8, churn without loss: writers change the endpoints of random
// slices as fast as the API server takes them, and delete and re-create
// some Services, for a minute (SLICEWAY_CHURN_SECONDS). Afterwards the last
// configuration the provider sent equals a fresh render of the final state,
// the number of configurations stayed within the throttle, and the
// provider's goroutines and heap are back to their level before the churn.
func TestChurnWithoutLoss(t *testing.T) {
	seconds := 60
	if s, err := strconv.Atoi(os.Getenv("SLICEWAY_CHURN_SECONDS")); err == nil && s > 0 {
		seconds = s
	}
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createIngressClass(t, cp)
	require.NoError(t, cp.CreateNamespace(ctx, "churn"))
	client := cp.Client()
	for i := range churnServices {
		name := fmt.Sprintf("svc-%02d", i)
		createService(t, cp, "churn", name, "")
		_, err := client.DiscoveryV1().EndpointSlices("churn").Create(ctx, churnSlice(i, 0, 4), metav1.CreateOptions{})
		require.NoError(t, err)
		createIngress(t, cp, ingressSpec{namespace: "churn", name: name, host: name + ".example.com", service: name})
	}

	const throttle = 500 * time.Millisecond
	p := newProvider(t, cp)
	p.ThrottleDuration = pduration(throttle)
	r := runProvider(t, p)
	r.waitFor(t, "every service", 2*time.Minute, func(c *dynamic.Configuration) bool {
		return len(c.HTTP.Services) == churnServices
	})
	settle(t, r, 3*time.Second)
	goroutinesBefore, heapBefore := processLevels()
	sentBefore := r.count()

	t.Logf("churning for %ds", seconds)
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var writes, recreations atomic.Int64
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for time.Now().Before(deadline) {
				i := rng.IntN(churnServices)
				name := fmt.Sprintf("svc-%02d", i)
				if rng.IntN(40) == 0 {
					// Delete and re-create the Service and its slice.
					_ = client.CoreV1().Services("churn").Delete(ctx, name, metav1.DeleteOptions{})
					_ = client.DiscoveryV1().EndpointSlices("churn").Delete(ctx, name+"-1", metav1.DeleteOptions{})
					svc := newChurnService(name)
					if _, err := client.CoreV1().Services("churn").Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
						t.Errorf("re-creating service %s: %v", name, err)
						return
					}
					if _, err := client.DiscoveryV1().EndpointSlices("churn").Create(ctx, churnSlice(i, rng.IntN(1000), 1+rng.IntN(6)), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
						t.Errorf("re-creating slice %s-1: %v", name, err)
						return
					}
					recreations.Add(1)
					continue
				}
				s, err := client.DiscoveryV1().EndpointSlices("churn").Get(ctx, name+"-1", metav1.GetOptions{})
				if err != nil {
					continue // deleted by the other writer just now
				}
				next := churnSlice(i, rng.IntN(1000), 1+rng.IntN(6))
				s.Endpoints = next.Endpoints
				if _, err := client.DiscoveryV1().EndpointSlices("churn").Update(ctx, s, metav1.UpdateOptions{}); err == nil {
					writes.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Duration(seconds) * time.Second
	t.Logf("%d slice updates and %d service re-creations", writes.Load(), recreations.Load())
	require.Positive(t, writes.Load())

	// Every Service and slice exists again (a writer may have stopped
	// between deleting and re-creating).
	for i := range churnServices {
		name := fmt.Sprintf("svc-%02d", i)
		if _, err := client.CoreV1().Services("churn").Create(ctx, newChurnService(name), metav1.CreateOptions{}); err != nil {
			require.True(t, apierrors.IsAlreadyExists(err), err)
		}
		if _, err := client.DiscoveryV1().EndpointSlices("churn").Create(ctx, churnSlice(i, 0, 3), metav1.CreateOptions{}); err != nil {
			require.True(t, apierrors.IsAlreadyExists(err), err)
		}
	}

	// The provider converges on a fresh render of the final state.
	opts := &ingress.Provider{}
	opts.SetDefaults()
	var want []byte
	eventually(t, "the last configuration equals a fresh render", time.Minute, func() bool {
		res, err := ingress.RenderOnce(context.Background(), client, opts, ingress.ClientOptions{}, time.Minute)
		require.NoError(t, err)
		want = mustJSON(t, res.Configuration)
		return string(mustJSON(t, r.latest())) == string(want)
	})
	settle(t, r, 3*time.Second)
	require.JSONEq(t, string(want), string(mustJSON(t, r.latest())), "nothing changed after convergence")

	sent := r.count() - sentBefore
	bound := int(elapsed/throttle) + 10
	t.Logf("%d configurations sent during the churn (bound %d)", sent, bound)
	assert.LessOrEqual(t, sent, bound, "configurations are bounded by the throttle")

	eventually(t, "goroutines and heap back to their level", time.Minute, func() bool {
		g, h := processLevels()
		t.Logf("goroutines %d (before %d), heap %d MiB (before %d MiB)", g, goroutinesBefore, h>>20, heapBefore>>20)
		return g <= goroutinesBefore+5 && h <= heapBefore+heapBefore/2+16<<20
	})
}

// newChurnService is a selectorless Service like createService(…, "").
func newChurnService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "churn", Name: name},
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}},
		},
	}
}

// processLevels are the goroutine count and the heap in use after a GC.
func processLevels() (goroutines int, heap uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return runtime.NumGoroutine(), m.HeapInuse
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return data
}
