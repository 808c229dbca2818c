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

// What `make demo` and `make demo-nginx` run: devcluster with the
// Makefile's manifests, echo backends and flags for `sliceway watch`, plus
// one flag of the user's (--output, relative to -chdir). Against the real
// API server the echo Service gets both backends as servers, and each
// answers there on 127.0.0.1; with demo-nginx the Ingress written for
// ingress-nginx is served too, by the ingress-nginx provider.
func TestDemoEchoBackends(t *testing.T) {
	t.Run("demo", func(t *testing.T) {
		cfg := runDemo(t, "DEMO_MANIFESTS", "DEMO_FLAGS", nil)
		for name := range cfg.HTTP.Routers {
			assert.False(t, strings.HasPrefix(name, "nginx_"), "an ingress-nginx router without the provider: %s", name)
		}
	})
	t.Run("demo-nginx", func(t *testing.T) {
		nginxRouters := func(cfg *dynamic.Configuration) (names []string) {
			for name := range cfg.HTTP.Routers {
				if strings.HasPrefix(name, "nginx_echo-echo-nginx") {
					names = append(names, name)
				}
			}
			return names
		}
		cfg := runDemo(t, "DEMO_NGINX_MANIFESTS", "DEMO_NGINX_FLAGS", func(cfg *dynamic.Configuration) bool {
			return len(nginxRouters(cfg)) > 0
		})
		var rules []string
		for _, name := range nginxRouters(cfg) {
			r := cfg.HTTP.Routers[name]
			rules = append(rules, r.Rule)
			require.NotNil(t, cfg.HTTP.Services[r.Service], "router %s: service %s", name, r.Service)
			assert.Equal(t, echoServers(t, cfg, "echo-echo-http"), echoServers(t, cfg, r.Service), "router %s: the echo backends", name)
			assert.NotEmpty(t, r.Middlewares, "router %s: rewrite, CORS and limit-rps are middlewares", name)
		}
		require.NotEmpty(t, rules, "no router for the ingress-nginx Ingress: %v", toYAML(cfg.HTTP.Routers))
		assert.Contains(t, strings.Join(rules, " "), `Host("echo-nginx.demo.example")`)
	})
}

// echoServers are the sorted server URLs of a service.
func echoServers(t *testing.T, cfg *dynamic.Configuration, service string) []string {
	t.Helper()
	urls := serverURLs(cfg, service)
	slices.Sort(urls)
	return urls
}

// runDemo runs devcluster as the Makefile's demo target does, with the
// manifests and flags of the named variables, waits for the echo
// backends in the output (and for ready, when given), checks them and
// the Traefik-style routers, and returns the configuration.
func runDemo(t *testing.T, manifestsVariable, flagsVariable string, ready func(*dynamic.Configuration) bool) *dynamic.Configuration {
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
	state := filepath.Join(work, "demo")
	args := []string{"-controlplane", launcher, "-dir", state, "-manifests", makeVariable(t, manifestsVariable),
		"-backends", makeVariable(t, "DEMO_BACKENDS"), "-chdir", work, "--", sliceway, "watch"}
	args = append(args, strings.Fields(makeVariable(t, flagsVariable))...)
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
		// exit status is not what this test is about: logged, not checked.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Logf("devcluster: %v", err)
			}
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
		return len(servers) == 2 && (ready == nil || ready(&cfg))
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
	return &cfg
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
