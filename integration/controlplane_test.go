package integration_test

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/integration/controlplane"
)

// The harness itself: the API server stops and starts again on the same
// address with the same data, and Stop leaves no process behind.
func TestControlPlaneHarness(t *testing.T) {
	dir := t.TempDir()
	cp, err := controlplane.Start(ctx, controlplane.Options{Binary: launcher, Dir: dir, PIDDir: pidDir, Logf: t.Logf})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cp.Stop() })

	require.NoError(t, cp.CreateNamespace(ctx, "kept"))
	pids := componentPIDs(t)
	require.Len(t, pids, 3, "etcd, kube-apiserver, kube-controller-manager")

	start := time.Now()
	require.NoError(t, cp.StopAPIServer())
	t.Logf("API server stopped in %s", time.Since(start).Round(time.Millisecond))
	assert.False(t, cp.APIServerRunning())
	_, err = cp.Client().CoreV1().Namespaces().Get(ctx, "kept", metav1.GetOptions{})
	require.Error(t, err, "the API server still answers")

	url := cp.URL
	require.NoError(t, cp.StartAPIServer(ctx))
	assert.Equal(t, url, cp.URL)
	_, err = cp.Client().CoreV1().Namespaces().Get(ctx, "kept", metav1.GetOptions{})
	require.NoError(t, err, "the data did not survive the restart")

	pids = componentPIDs(t)
	start = time.Now()
	require.NoError(t, cp.Stop())
	t.Logf("control plane stopped in %s", time.Since(start).Round(time.Millisecond))
	for _, pid := range pids {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "pid %d still runs after Stop", pid)
	}
	assert.Empty(t, componentPIDs(t), "pid files left after Stop")
}

// componentPIDs lists the pids recorded in pidDir.
func componentPIDs(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir(pidDir)
	require.NoError(t, err)
	var out []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d.pid", &pid); err == nil {
			out = append(out, pid)
		}
	}
	return out
}
