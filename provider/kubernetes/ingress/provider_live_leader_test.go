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
)

func liveLeaderElection() *LeaderElection {
	le := &LeaderElection{}
	le.SetDefaults()
	le.LeaseNamespace = "default"
	le.LeaseDuration = ptypes.Duration(time.Second)
	le.RenewDeadline = ptypes.Duration(500 * time.Millisecond)
	le.RetryPeriod = ptypes.Duration(100 * time.Millisecond)
	return le
}

func TestProvideWritesStatusAsTheElectedLeader(t *testing.T) {
	ctx := context.Background()
	cs := newLiveFakeCluster(liveCluster())
	writes := liveRecordStatusWrites(cs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "1.2.3.4"}
		p.LeaderElection = liveLeaderElection()
	})
	lp.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})
	lease, err := cs.CoordinationV1().Leases("default").Get(ctx, "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, lease.Spec.HolderIdentity)
	assert.NotEmpty(t, *lease.Spec.HolderIdentity)
	assert.Equal(t, 1, writes.count("web"))
}

func TestProvideWritesNoStatusWhileAnotherReplicaLeads(t *testing.T) {
	ctx := context.Background()
	cs := newLiveFakeCluster(liveCluster())
	now := metav1.NewMicroTime(time.Now())
	_, err := cs.CoordinationV1().Leases("default").Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "sliceway", Namespace: "default"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: new("another-replica"), LeaseDurationSeconds: new(int32(3600)),
			AcquireTime: &now, RenewTime: &now,
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	writes := liveRecordStatusWrites(cs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "1.2.3.4"}
		p.LeaderElection = liveLeaderElection()
	})
	lp.next()
	// Several retry periods: the lease is held, nothing is written.
	liveWaitFor(t, "lease attempts", func() bool {
		n := 0
		for _, a := range cs.Actions() {
			if a.GetResource().Resource == "leases" && a.GetVerb() == "get" {
				n++
			}
		}
		return n >= 5
	})
	assert.Empty(t, writes.all(), "only the leader writes status")
	assert.Empty(t, liveIngressStatus(t, cs, "web"))

	// The other replica goes away: this one leads and writes.
	require.NoError(t, cs.CoordinationV1().Leases("default").Delete(ctx, "sliceway", metav1.DeleteOptions{}))
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})
}
