package integration_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/integration/controlplane"
)

// What `make demo` runs: devcluster with the Makefile's echo backends and
// its flags for `sliceway watch`, plus one flag of the user's (--output,
// relative to -chdir). Against the real API server the echo Service gets
// both backends as servers, and each answers there on 127.0.0.1.
func TestDemoEchoBackends(t *testing.T) {
	work := t.TempDir()
	devcluster := filepath.Join(work, "devcluster")
	build := exec.Command("go", "build", "-o", devcluster, "./cmd/devcluster")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run(), "building devcluster")
	sliceway := filepath.Join(work, "sliceway")
	build = exec.Command("go", "build", "-o", sliceway, "./cmd/sliceway")
	build.Dir = ".."
	build.Stderr = os.Stderr
	require.NoError(t, build.Run(), "building sliceway")
	manifests, err := filepath.Abs("../fixtures/demo/manifests.yaml")
	require.NoError(t, err)

	state := filepath.Join(work, "demo")
	args := []string{"-controlplane", launcher, "-dir", state, "-manifests", manifests,
		"-backends", makeVariable(t, "DEMO_BACKENDS"), "-chdir", work, "--", sliceway, "watch"}
	args = append(args, strings.Fields(makeVariable(t, "DEMO_FLAGS"))...)
	args = append(args, "--output=demo-config.yaml")
	logs := &syncBuffer{}
	cmd := exec.Command(devcluster, args...)
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		// devcluster stops sliceway and the control plane on SIGTERM; its
		// exit status is not what this test is about.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(45 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Error("devcluster did not exit within 45s of SIGTERM")
		}
		if _, err := controlplane.KillStale(filepath.Join(state, "pids")); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("devcluster and sliceway logs:\n%s", logs.String())
		}
	})

	output := filepath.Join(work, "demo-config.yaml")
	var cfg dynamic.Configuration
	var servers []string
	eventually(t, "the echo servers in "+output, 2*time.Minute, func() bool {
		select {
		case err := <-exited:
			t.Fatalf("devcluster exited: %v\n%s", err, logs.String())
		default:
		}
		data, err := os.ReadFile(output)
		if err != nil {
			return false
		}
		cfg = dynamic.Configuration{}
		require.NoError(t, yaml.Unmarshal(data, &cfg), string(data))
		servers = serverURLs(&cfg, "echo-echo-http")
		return len(servers) == 2
	})
	require.NotNil(t, cfg.HTTP)
	router := cfg.HTTP.Routers["echo-echo-echo-demo-example"]
	require.NotNil(t, router, "no router for the echo Ingress: %v", toYAML(cfg.HTTP.Routers))
	assert.Equal(t, `Host("echo.demo.example") && PathPrefix("/")`, router.Rule)
	assert.Contains(t, cfg.HTTP.Services, "demo-storefront-http", "the demo manifests are served too")

	// Each server is a backend of its own that answers: what a proxy
	// routing host echo.demo.example would reach.
	announced := regexp.MustCompile(`backend (echo-\d) at (http://127\.0\.0\.1:\d+) `)
	var names []string
	client := &http.Client{Timeout: 5 * time.Second}
	for _, url := range servers {
		require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
		code, body := get(client, url+"/cart?item=1")
		require.Equal(t, http.StatusOK, code, url)
		name, _, _ := strings.Cut(string(body), " ")
		assert.Contains(t, string(body), "answered GET /cart?item=1 for host 127.0.0.1:", url)
		names = append(names, name)
		found := false
		for _, m := range announced.FindAllStringSubmatch(logs.String(), -1) {
			found = found || (m[1] == name && m[2] == url)
		}
		assert.True(t, found, "devcluster did not announce %s at %s", name, url)
	}
	slices.Sort(names)
	assert.Equal(t, []string{"echo-1", "echo-2"}, names)
}

// serverURLs are the URLs of a service's servers in cfg.
func serverURLs(cfg *dynamic.Configuration, service string) []string {
	if cfg.HTTP == nil || cfg.HTTP.Services[service] == nil || cfg.HTTP.Services[service].LoadBalancer == nil {
		return nil
	}
	var out []string
	for _, s := range cfg.HTTP.Services[service].LoadBalancer.Servers {
		out = append(out, s.URL)
	}
	return out
}

// makeVariable is the value the Makefile gives a variable.
func makeVariable(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("make", "-C", "..", "-s", "--no-print-directory",
		"--eval", "print-variable: ; @echo $("+name+")", "print-variable").Output()
	require.NoError(t, err, "make: reading %s", name)
	value := strings.TrimSpace(string(out))
	require.NotEmpty(t, value, "the Makefile sets no %s", name)
	return value
}
