package ingress

import (
	"context"
	"maps"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// liveStatusWrites counts the status writes (patches of the status
// subresource) of each Ingress.
type liveStatusWrites struct {
	mu     sync.Mutex
	byName map[string]int
}

func liveRecordStatusWrites(cs *fake.Clientset) *liveStatusWrites {
	w := &liveStatusWrites{byName: map[string]int{}}
	cs.PrependReactor("*", "ingresses", func(action k8stesting.Action) (bool, k8sruntime.Object, error) {
		if action.GetSubresource() != "status" {
			return false, nil, nil
		}
		name := ""
		switch a := action.(type) {
		case k8stesting.PatchAction:
			name = a.GetName()
		case k8stesting.UpdateAction:
			name = a.GetObject().(*netv1.Ingress).Name
		default:
			return false, nil, nil
		}
		w.mu.Lock()
		w.byName[name]++
		w.mu.Unlock()
		return false, nil, nil
	})
	return w
}

func (w *liveStatusWrites) count(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.byName[name]
}

func (w *liveStatusWrites) all() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.byName)
}

func liveIngressStatus(t *testing.T, cs *fake.Clientset, name string) []netv1.IngressLoadBalancerIngress {
	t.Helper()
	ing, err := cs.NetworkingV1().Ingresses(liveNS).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return ing.Status.LoadBalancer.Ingress
}

func liveWaitForStatus(t *testing.T, cs *fake.Clientset, name string, want []netv1.IngressLoadBalancerIngress) {
	t.Helper()
	liveWaitFor(t, "the status of Ingress "+name, func() bool {
		return assert.ObjectsAreEqual(want, liveIngressStatus(t, cs, name))
	})
}

// liveWithOtherClass adds an Ingress of another controller's class; it sorts
// before web, so a status wrongly written to it would be written first.
func liveWithOtherClass(objs map[string]k8sruntime.Object) {
	objs["IngressClass/nginx"] = liveClass("nginx", "k8s.io/ingress-nginx", false)
	objs["Ingress/a-other"] = liveIngress("a-other", "nginx", "other.example", "web", livePortHTTP, 0)
}

func TestProvideWritesIngressStatusOnce(t *testing.T) {
	ctx := context.Background()
	objs := liveCluster()
	liveWithOtherClass(objs)
	cs := newLiveFakeCluster(objs)
	writes := liveRecordStatusWrites(cs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "1.2.3.4"}
		p.LeaderElection = &LeaderElection{Disabled: true}
	})
	lp.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})

	// Changes that render again, and the status write itself coming back
	// through the informer, do not write the status again.
	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.2"))
	lp.next()
	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.3"))
	lp.next()

	// A newer served Ingress gets its status in a pass that looks at web
	// first: once it is written, every pass that could rewrite web is over.
	_, err := cs.NetworkingV1().Ingresses(liveNS).Create(ctx, liveIngress("zz-second", "sliceway", "second.example", "web", livePortHTTP, 5), metav1.CreateOptions{})
	require.NoError(t, err)
	lp.next()
	liveWaitForStatus(t, cs, "zz-second", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})

	assert.Equal(t, map[string]int{"web": 1, "zz-second": 1}, writes.all())
	assert.Empty(t, liveIngressStatus(t, cs, "a-other"), "an Ingress of another class gets no status")
}

// TestProvideStatusWriteKeepsTheIngressMetadata: the informer cache holds
// Ingresses trimmed by the informer transform (no last-applied-configuration
// annotation, no managedFields). The status subresource of Ingresses takes
// metadata from the request (its strategy resets only the spec), so a status
// update built from the cached copy must not remove what the cache dropped.
func TestProvideStatusWriteKeepsTheIngressMetadata(t *testing.T) {
	objs := liveCluster()
	web := objs["Ingress/web"].(*netv1.Ingress)
	lastApplied := `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web","namespace":"shop"}}`
	web.Annotations = map[string]string{
		corev1.LastAppliedConfigAnnotation: lastApplied,
		"example.com/owner":                "team-a",
	}
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "1.2.3.4"}
		p.LeaderElection = &LeaderElection{Disabled: true}
	})
	lp.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})
	ing, err := cs.NetworkingV1().Ingresses(liveNS).Get(context.Background(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		corev1.LastAppliedConfigAnnotation: lastApplied,
		"example.com/owner":                "team-a",
	}, ing.Annotations)
	assert.Equal(t, web.Spec, ing.Spec)
}

func TestProvideCopiesThePublishedServiceStatus(t *testing.T) {
	ctx := context.Background()
	objs := liveCluster()
	liveWithOtherClass(objs)
	lb := liveService("lb")
	lb.Spec.Type = corev1.ServiceTypeLoadBalancer
	lb.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}
	objs["Service/lb"] = lb
	cs := newLiveFakeCluster(objs)
	writes := liveRecordStatusWrites(cs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{PublishedService: liveNS + "/lb"}
		p.LeaderElection = &LeaderElection{Disabled: true}
	})
	lp.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{Hostname: "lb.example.com"}})

	// A new address of the published Service is copied again.
	svc, err := cs.CoreV1().Services(liveNS).Get(ctx, "lb", metav1.GetOptions{})
	require.NoError(t, err)
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}}
	_, err = cs.CoreV1().Services(liveNS).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
	require.NoError(t, err)
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "203.0.113.7"}})

	assert.Equal(t, map[string]int{"web": 2}, writes.all())
	assert.Empty(t, liveIngressStatus(t, cs, "a-other"), "an Ingress of another class gets no status")
}
