package ingress

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"
)

// startClient starts informers on cs and waits for them to sync; they stop
// when the test ends. ctx is theirs.
func startClient(t *testing.T, cs kubernetes.Interface, opts ClientOptions) (*Client, context.Context) {
	t.Helper()
	client, err := NewClient(cs, opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); client.Shutdown() })
	client.Start(ctx)
	require.NoError(t, client.WaitForSync(ctx, time.Minute))
	return client, ctx
}
