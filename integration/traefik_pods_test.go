package integration_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/integration/controlplane"
)

// traefikVariable names the Traefik binary the tests that send requests
// through a real Traefik run (make test-integration builds it with
// tools/traefik/binary).
const traefikVariable = "SLICEWAY_TRAEFIK"

// TestTraefikReachesPods sends requests through a real Traefik to the
// pods of a Deployment, all in the test's own network namespace: the
// sliceway binary serves the configuration it renders from the control
// plane (as ServiceAccount sliceway, with the shipped RBAC), Traefik's
// HTTP provider polls it, and requests to Traefik's entry point for the
// Ingress's host reach both pods, as themselves. Scaled to one replica,
// every request reaches the pod left.
func TestTraefikReachesPods(t *testing.T) {
	traefik := traefikBinary(t)
	if !inNetworkNamespace(t) {
		return
	}
	cp, _ := startPodCluster(t)
	const ns = "echo"
	createEchoApp(t, cp, ns)

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(saToken(t, cp, "sliceway", "sliceway")), 0o600))
	serve := freeAddr(t)
	startProcess(t, "sliceway serve", buildSliceway(t), "serve", "--serve.address="+serve,
		"--providers.kubernetesingress.endpoint="+cp.URL, "--providers.kubernetesingress.tokenfile="+tokenFile,
		"--providers.kubernetesingress.certauthfilepath="+cp.CAFile)
	web := freeAddr(t)
	static := fmt.Sprintf(`global: {checkNewVersion: false, sendAnonymousUsage: false}
entryPoints:
  web: {address: %q}
providers:
  providersThrottleDuration: 0s
  http: {endpoint: "http://%s/api/config", pollInterval: 250ms, pollTimeout: 5s}
log: {level: INFO, noColor: true}
`, web, serve)
	configFile := filepath.Join(dir, "traefik.yaml")
	require.NoError(t, os.WriteFile(configFile, []byte(static), 0o600))
	startProcess(t, "traefik", traefik, "--configFile="+configFile)

	// Both pods answer, each as itself, through Traefik.
	seen := map[string]bool{}
	eventually(t, "both pods answering through Traefik", 2*time.Minute, func() bool {
		if pod := podThroughTraefik(web, "echo.example.com"); pod != "" {
			seen[pod] = true
		}
		return len(seen) == 2
	})
	scaleDeployment(t, cp, ns, "echo", 1)
	left, err := cp.WaitForReadyPods(ctx, ns, "app=echo", 1, time.Minute)
	require.NoError(t, err)
	eventually(t, "every request reaching "+left[0].Name, time.Minute, func() bool {
		for range 10 {
			if podThroughTraefik(web, "echo.example.com") != left[0].Name {
				return false
			}
		}
		return true
	})
}

// traefikBinary is the Traefik binary SLICEWAY_TRAEFIK names; t is
// skipped without one, as under a bare go test.
func traefikBinary(t *testing.T) string {
	t.Helper()
	traefik := os.Getenv(traefikVariable)
	if traefik == "" {
		t.Skip(traefikVariable + " names no Traefik binary: make test-integration builds one (tools/traefik/binary)")
	}
	return traefik
}

// podThroughTraefik is the pod that answers a request for host at
// Traefik's entry point web, "" when none did.
func podThroughTraefik(web, host string) string {
	req, err := http.NewRequest(http.MethodGet, "http://"+web+"/through-traefik", nil)
	if err != nil {
		return ""
	}
	req.Host = host
	resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(req)
	if err != nil {
		return ""
	}
	defer func() { _ = resp.Body.Close() }()
	var reply controlplane.EchoReply
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&reply) != nil {
		return ""
	}
	return reply.Pod
}

// startProcess runs bin with args until t ends (SIGTERM, then SIGKILL
// after 10s), and writes the end of its output to t's log when t fails.
func startProcess(t *testing.T, name, bin string, args ...string) {
	t.Helper()
	startProcessIn(t, "", name, bin, args...)
}

// startProcessIn is startProcess in working directory dir ("" for the
// test's).
func startProcessIn(t *testing.T, dir, name, bin string, args ...string) {
	t.Helper()
	logs := &syncBuffer{}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start(), "starting %s", name)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("%s's output (the end):\n%s", name, lastLines(logs.String(), 40))
		}
	})
}

// lastLines is the last n lines of text.
func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
