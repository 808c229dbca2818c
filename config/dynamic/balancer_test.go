package dynamic

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The load balancer of NewServersService is NewServersLoadBalancer's, with
// Traefik's defaults, and changing one leaves the other as it was.
func TestNewServersService(t *testing.T) {
	lb := NewServersLoadBalancer()
	require.Equal(t, BalancerStrategyWRR, lb.Strategy)
	require.True(t, *lb.PassHostHeader)
	require.Equal(t, DefaultFlushInterval, lb.ResponseForwarding.FlushInterval)

	svc := NewServersService()
	require.Equal(t, &Service{LoadBalancer: lb}, svc)
	*svc.LoadBalancer.PassHostHeader = false
	require.True(t, *lb.PassHostHeader)
	require.True(t, *NewServersService().LoadBalancer.PassHostHeader)
}
