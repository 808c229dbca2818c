package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runWithin runs the binary as run does, but kills it after timeout: a
// command that should stop and stays up fails the test instead of
// hanging it.
func runWithin(t *testing.T, timeout time.Duration, env []string, args ...string) (runResult, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"HOME=" + cmd.Dir, "PATH=" + os.Getenv("PATH")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := runResult{stdout: stdout.String(), stderr: stderr.String()}
	if ctx.Err() != nil {
		return res, false
	}
	if exit, ok := err.(*exec.ExitError); ok {
		res.code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return res, true
}

// watch and serve with nothing to read stop with an error that names
// what was looked for: they never hand a proxy the bundled demo unasked
// (a catch-all router, the demo's certificate). render keeps its
// fallback (TestRenderDemoMatchesItsFixture), and --demo still serves it.
func TestServeAndWatchNeedACluster(t *testing.T) {
	for _, command := range []string{"serve", "watch"} {
		t.Run(command, func(t *testing.T) {
			res, exited := runWithin(t, 20*time.Second, nil, command, "--serve.address="+freePort(t))
			require.True(t, exited, "still running without a cluster; stderr:\n%s", res.stderr)
			assert.Equal(t, 1, res.code, res.stderr)
			for _, looked := range []string{"no cluster configured", command + " never falls back to it", "KUBERNETES_SERVICE_HOST", "KUBECONFIG",
				filepath.Join(".kube", "config"), "providers.kubernetesIngress.endpoint", "--manifests", "--demo"} {
				assert.Contains(t, res.stderr, looked)
			}
			assert.NotContains(t, res.stderr, "demo cluster")
			assert.NotContains(t, res.stderr, "serving /api/config")
			assert.Empty(t, res.stdout, "no configuration")

			// The ingress-nginx provider alone: its endpoint option is named.
			res, exited = runWithin(t, 20*time.Second, nil, command, "--serve.address="+freePort(t), "--providers.kubernetesingressnginx=true")
			require.True(t, exited, res.stderr)
			assert.Equal(t, 1, res.code, res.stderr)
			assert.Contains(t, res.stderr, "providers.kubernetesIngressNGINX.endpoint")

			// A cluster that is configured but cannot be reached is an
			// error too, never the demo.
			res, exited = runWithin(t, 20*time.Second, []string{"KUBECONFIG=/nonexistent/kubeconfig"}, command, "--serve.address="+freePort(t))
			require.True(t, exited, res.stderr)
			assert.Equal(t, 1, res.code, res.stderr)
			assert.NotContains(t, res.stderr, "demo cluster")
			assert.NotContains(t, res.stderr, "serving /api/config")
			assert.Empty(t, res.stdout)
		})
	}
}
