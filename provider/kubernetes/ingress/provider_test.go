package ingress

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/fixtures"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

func TestProvideSmoke(t *testing.T) {
	objs, problems := manifests.Decode("demo.yaml", fixtures.Demo, manifests.IsUsedKind)
	require.Empty(t, problems)
	cs, more := manifests.NewFakeCluster(objs)
	require.Empty(t, more)
	p := &Provider{}
	p.SetDefaults()
	p.SetClientset(cs)
	require.NoError(t, p.Init())
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan dynamic.Message)
	done := make(chan error)
	go func() { done <- p.Provide(ctx, out) }()
	msg := <-out
	require.Len(t, msg.Configuration.HTTP.Services["demo-storefront-http"].LoadBalancer.Servers, 3)

	slice, err := cs.DiscoveryV1().EndpointSlices("demo").Get(ctx, "storefront-def34", metav1.GetOptions{})
	require.NoError(t, err)
	ready := true
	slice.Endpoints[1].Conditions = discoveryv1.EndpointConditions{Ready: &ready}
	_, err = cs.DiscoveryV1().EndpointSlices("demo").Update(ctx, slice, metav1.UpdateOptions{})
	require.NoError(t, err)
	select {
	case msg = <-out:
	case <-time.After(5 * time.Second):
		t.Fatal("no new configuration")
	}
	require.Len(t, msg.Configuration.HTTP.Services["demo-storefront-http"].LoadBalancer.Servers, 4)
	cancel()
	require.NoError(t, <-done)
}
