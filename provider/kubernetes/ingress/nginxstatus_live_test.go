package ingress

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ptypes "github.com/traefik/paerser/types"
	coordinationv1 "k8s.io/api/coordination/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// startLiveNGINX runs an NGINXProvider (its defaults, then configure) as
// startLive runs a Provider.
func startLiveNGINX(t *testing.T, cs *fake.Clientset, configure func(*NGINXProvider)) *liveProvider {
	t.Helper()
	np := &NGINXProvider{}
	np.SetDefaults()
	np.SyncTimeout = ptypes.Duration(5 * time.Second)
	if configure != nil {
		configure(np)
	}
	return runLive(t, cs, &np.Provider, NGINXProviderName, np.Init, np.Provide)
}

// liveStopTogether stops the providers of a test before any of them
// checks, at its cleanup, that its goroutines are gone: otherwise one
// still running would have started goroutines another's check counts.
func liveStopTogether(t *testing.T, lps ...*liveProvider) {
	t.Cleanup(func() {
		for _, lp := range lps {
			lp.stop()
		}
	})
}

// liveQuickLease shortens the timings of a provider's leader election,
// keeping the Lease its defaults name, in the namespace default.
func liveQuickLease(le *LeaderElection) {
	quick := liveLeaderElection()
	le.LeaseNamespace = quick.LeaseNamespace
	le.LeaseDuration, le.RenewDeadline, le.RetryPeriod = quick.LeaseDuration, quick.RenewDeadline, quick.RetryPeriod
}

// liveHeldLease is a Lease another replica holds for an hour.
func liveHeldLease(t *testing.T, cs *fake.Clientset, name string) {
	t.Helper()
	now := metav1.NewMicroTime(time.Now())
	_, err := cs.CoordinationV1().Leases("default").Create(context.Background(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: new("another-replica"), LeaseDurationSeconds: new(int32(3600)),
			AcquireTime: &now, RenewTime: &now,
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// liveLeaseGets counts the reads of the Lease named name.
func liveLeaseGets(cs *fake.Clientset, name string) int {
	n := 0
	for _, a := range cs.Actions() {
		if g, ok := a.(k8stesting.GetAction); ok && a.GetResource().Resource == "leases" && g.GetName() == name {
			n++
		}
	}
	return n
}

// The ingress-nginx provider writes the status of the Ingresses it serves
// (class nginx), and leaves the Traefik-style ones alone.
func TestNGINXProviderWritesTheStatusOfItsIngresses(t *testing.T) {
	objs := liveCluster()
	liveWithOtherClass(objs) // a-other: class nginx, of k8s.io/ingress-nginx
	cs := newLiveFakeCluster(objs)
	writes := liveRecordStatusWrites(cs)
	lp := startLiveNGINX(t, cs, func(np *NGINXProvider) {
		np.IngressEndpoint = &EndpointIngress{Hostname: "nginx.example.net"}
		np.LeaderElection.Disabled = true
	})
	conf := lp.next()
	require.Contains(t, conf.HTTP.Routers, "nginx_shop-a-other-other-example", "the provider serves a-other")
	liveWaitForStatus(t, cs, "a-other", []netv1.IngressLoadBalancerIngress{{Hostname: "nginx.example.net"}})

	// A render that changes nothing served writes nothing again.
	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.2"))
	lp.next()
	assert.Equal(t, map[string]int{"a-other": 1}, writes.all())
	assert.Empty(t, liveIngressStatus(t, cs, "web"), "a Traefik-style Ingress gets no status from the ingress-nginx provider")
}

// Both providers in one process, each with leader election on its
// defaults: their Leases differ (sliceway and sliceway-nginx), so each
// leads and writes the status of its own Ingresses. On one Lease, the
// second elector of the process would wait for the first for ever.
func TestBothProvidersElectSeparately(t *testing.T) {
	ctx := context.Background()
	objs := liveCluster()
	liveWithOtherClass(objs)
	cs := newLiveFakeCluster(objs)
	writes := liveRecordStatusWrites(cs)
	traefikStyle := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "192.0.2.1"}
		liveQuickLease(p.LeaderElection)
	})
	nginxStyle := startLiveNGINX(t, cs, func(np *NGINXProvider) {
		np.IngressEndpoint = &EndpointIngress{IP: "192.0.2.2"}
		liveQuickLease(np.LeaderElection)
	})
	liveStopTogether(t, nginxStyle, traefikStyle)
	traefikStyle.next()
	nginxStyle.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}})
	liveWaitForStatus(t, cs, "a-other", []netv1.IngressLoadBalancerIngress{{IP: "192.0.2.2"}})

	holders := map[string]string{}
	for _, name := range []string{"sliceway", "sliceway-nginx"} {
		lease, err := cs.CoordinationV1().Leases("default").Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, "the Lease %s", name)
		require.NotNil(t, lease.Spec.HolderIdentity)
		require.NotEmpty(t, *lease.Spec.HolderIdentity)
		holders[name] = *lease.Spec.HolderIdentity
	}
	assert.NotEqual(t, holders["sliceway"], holders["sliceway-nginx"], "one elector for each provider")
	assert.Equal(t, map[string]int{"web": 1, "a-other": 1}, writes.all())
}

// Two replicas, the other of which leads for the ingress-nginx provider
// only: here the Traefik-style provider leads and writes, the ingress-nginx
// one writes nothing until the other replica lets its Lease go.
func TestReplicasElectEachProviderSeparately(t *testing.T) {
	ctx := context.Background()
	objs := liveCluster()
	liveWithOtherClass(objs)
	cs := newLiveFakeCluster(objs)
	liveHeldLease(t, cs, "sliceway-nginx")
	writes := liveRecordStatusWrites(cs)
	traefikStyle := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "192.0.2.1"}
		liveQuickLease(p.LeaderElection)
	})
	nginxStyle := startLiveNGINX(t, cs, func(np *NGINXProvider) {
		np.IngressEndpoint = &EndpointIngress{IP: "192.0.2.2"}
		liveQuickLease(np.LeaderElection)
	})
	liveStopTogether(t, nginxStyle, traefikStyle)
	traefikStyle.next()
	nginxStyle.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}})
	// Several retry periods of the ingress-nginx provider's elector: its
	// Lease is held, it writes nothing.
	liveWaitFor(t, "attempts at the Lease sliceway-nginx", func() bool { return liveLeaseGets(cs, "sliceway-nginx") >= 5 })
	assert.Equal(t, map[string]int{"web": 1}, writes.all())
	assert.Empty(t, liveIngressStatus(t, cs, "a-other"))

	// The other replica goes away: this one's ingress-nginx provider leads
	// and writes.
	require.NoError(t, cs.CoordinationV1().Leases("default").Delete(ctx, "sliceway-nginx", metav1.DeleteOptions{}))
	liveWaitForStatus(t, cs, "a-other", []netv1.IngressLoadBalancerIngress{{IP: "192.0.2.2"}})
	assert.Equal(t, map[string]int{"web": 1, "a-other": 1}, writes.all())
}
