// Package integration_test runs sliceway's provider against a real control
// plane: etcd, kube-apiserver with RBAC and kube-controller-manager with the
// EndpointSlice, EndpointSlice mirroring and ServiceAccount controllers. Each
// test starts its own control plane and stops it, and everything it started,
// when it ends.
package integration_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
	ptypes "github.com/traefik/paerser/types"
	authv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/integration/controlplane"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// launcherLDFlags stamps the Kubernetes version into the launcher, as the
// Kubernetes release build does (else it says v0.0.0-master).
const launcherLDFlags = "-X k8s.io/component-base/version.gitVersion=v1.37.2 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37"

var (
	// launcher is the controlplane binary the tests run.
	launcher string
	// pidDir records the components' pids, for KillStale.
	pidDir string
)

// TestMain builds the launcher (a no-op when the build cache has it: `make
// test-integration` builds it first), kills what an earlier killed run left
// behind, runs the tests and kills whatever is left.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// client-go's own logs (leader election, reflectors) would drown the
	// test output; the provider's logs are captured per test.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cache := filepath.Join(wd, ".cache")
	pidDir = filepath.Join(cache, "pids")
	if killed, err := controlplane.KillStale(pidDir); err != nil {
		fmt.Fprintln(os.Stderr, "cleaning up an earlier run:", err)
	} else if len(killed) > 0 {
		fmt.Fprintln(os.Stderr, "killed components left by an earlier run:", killed)
	}

	launcher = os.Getenv("SLICEWAY_CONTROLPLANE")
	if launcher == "" {
		launcher = filepath.Join(cache, "bin", "controlplane")
		start := time.Now()
		// The same command as the Makefile's, so that either reuses the
		// other's binary.
		cmd := exec.Command("go", "build", "-ldflags="+launcherLDFlags, "-o", launcher, "./cmd/controlplane")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building the control plane launcher:", err)
			return 1
		}
		if d := time.Since(start); d > 10*time.Second {
			fmt.Fprintf(os.Stderr, "built %s in %s\n", launcher, d.Round(time.Second))
		}
	}

	// An interrupt (Ctrl-C, or go test's own kill on timeout reaching us as
	// SIGTERM/SIGINT) still takes the control planes down.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		controlplane.KillAll()
		fmt.Fprintln(os.Stderr, "killed the control plane on", s)
		os.Exit(1)
	}()
	defer controlplane.KillAll()
	return m.Run()
}

// startControlPlane starts a control plane for t, stopped when t ends.
func startControlPlane(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	start := time.Now()
	cp := controlplane.StartForTest(t, launcher, pidDir)
	t.Logf("control plane up in %s", time.Since(start).Round(time.Millisecond))
	return cp
}

// applyFile applies a manifest file as the admin.
func applyFile(t testing.TB, cp *controlplane.ControlPlane, path string) {
	t.Helper()
	a, err := controlplane.NewApplier(cp.AdminConfig())
	require.NoError(t, err)
	require.NoError(t, a.ApplyFile(context.Background(), path))
}

// saToken issues a token for a ServiceAccount through the TokenRequest API.
func saToken(t testing.TB, cp *controlplane.ControlPlane, namespace, name string) string {
	t.Helper()
	exp := int64(3600)
	tr, err := cp.Client().CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), name,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, tr.Status.Token)
	return tr.Status.Token
}

// newProvider is a provider that connects to cp as ServiceAccount
// sliceway/sliceway, with its options' defaults.
func newProvider(t testing.TB, cp *controlplane.ControlPlane) *ingress.Provider {
	t.Helper()
	p := &ingress.Provider{}
	p.SetDefaults()
	p.Endpoint = cp.URL
	p.Token = saToken(t, cp, "sliceway", "sliceway")
	p.CertAuthFilePath = cp.CAFile
	return p
}

// syncBuffer is a bytes.Buffer safe for concurrent use: the provider logs
// from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// counter is an ingress.Observer that counts events and configurations.
type counter struct {
	mu       sync.Mutex
	events   map[string]int // kind/changed or kind/filtered
	sent     int
	rendered int
	firstAt  time.Time     // when the first render ended
	first    time.Duration // what it took
}

func (c *counter) Event(kind string, changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.events == nil {
		c.events = map[string]int{}
	}
	if changed {
		c.events[kind+"/changed"]++
	} else {
		c.events[kind+"/filtered"]++
	}
}

func (c *counter) Rendered(at time.Time, took time.Duration, _ int) {
	c.mu.Lock()
	if c.rendered == 0 {
		c.firstAt, c.first = at, took
	}
	c.rendered++
	c.mu.Unlock()
}

// firstRender is when the first render started and how long it took.
func (c *counter) firstRender() (start time.Time, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.firstAt.Add(-c.first), c.first
}

func (c *counter) Sent() {
	c.mu.Lock()
	c.sent++
	c.mu.Unlock()
}

func (c *counter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{"sent": c.sent, "rendered": c.rendered}
	for k, v := range c.events {
		out[k] = v
	}
	return out
}

func (c *counter) renders() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rendered
}

func (c *counter) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.events[key]
}

// providerRun is a provider running in the background, its configurations
// collected as they arrive.
type providerRun struct {
	p        *ingress.Provider
	logs     *syncBuffer
	observer *counter

	mu      sync.Mutex
	configs []*dynamic.Configuration
	changed chan struct{} // closed and replaced at each configuration

	cancel context.CancelFunc
	done   chan error
}

// runProvider runs p.Provide until t ends (or stop is called), and checks
// that Provide returns nil, promptly, once cancelled.
func runProvider(t testing.TB, p *ingress.Provider) *providerRun {
	t.Helper()
	return runProviderOf(t, p, p.Init, p.Provide)
}

// runNGINXProvider is runProvider for the ingress-nginx provider.
func runNGINXProvider(t testing.TB, np *ingress.NGINXProvider) *providerRun {
	t.Helper()
	return runProviderOf(t, &np.Provider, np.Init, np.Provide)
}

// runProviderOf runs provide, the Provide of a provider whose options are
// p, after its init.
func runProviderOf(t testing.TB, p *ingress.Provider, init func() error, provide func(context.Context, chan<- dynamic.Message) error) *providerRun {
	t.Helper()
	r := &providerRun{p: p, logs: &syncBuffer{}, observer: &counter{}, changed: make(chan struct{}), done: make(chan error, 1)}
	p.SetLogger(zerolog.New(r.logs).With().Timestamp().Logger().Level(zerolog.DebugLevel))
	p.SetObserver(r.observer)
	require.NoError(t, init())
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	out := make(chan dynamic.Message)
	// Its goroutines, the informers' too, carry a profiler label:
	// go test -cpuprofile, then go tool pprof -tagfocus sliceway=provider.
	go pprof.Do(ctx, pprof.Labels("sliceway", "provider"), func(ctx context.Context) { r.done <- provide(ctx, out) })
	go func() {
		for {
			select {
			case msg := <-out:
				r.mu.Lock()
				r.configs = append(r.configs, msg.Configuration)
				close(r.changed)
				r.changed = make(chan struct{})
				r.mu.Unlock()
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() {
		r.stop(t)
		if t.Failed() {
			t.Logf("provider logs:\n%s", r.logs.String())
		}
	})
	return r
}

// stop cancels the provider and waits for Provide to return.
func (r *providerRun) stop(t testing.TB) {
	t.Helper()
	r.cancel()
	select {
	case err, ok := <-r.done:
		if ok {
			require.NoError(t, err, "Provide returned an error")
			close(r.done)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("Provide did not return within 30s of its context ending")
	}
}

// count is how many configurations arrived.
func (r *providerRun) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.configs)
}

// latest is the last configuration received, or nil.
func (r *providerRun) latest() *dynamic.Configuration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.configs) == 0 {
		return nil
	}
	return r.configs[len(r.configs)-1]
}

// waitFor waits until the latest configuration satisfies cond, and returns
// it. On timeout it fails t, showing the latest configuration.
func (r *providerRun) waitFor(t testing.TB, what string, timeout time.Duration, cond func(*dynamic.Configuration) bool) *dynamic.Configuration {
	t.Helper()
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		changed := r.changed
		var last *dynamic.Configuration
		if n := len(r.configs); n > 0 {
			last = r.configs[n-1]
		}
		r.mu.Unlock()
		if last != nil && cond(last) {
			return last
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no configuration with %s after %s; the latest:\n%s", what, timeout, toYAML(last))
			return nil
		}
	}
}

func toYAML(v any) string {
	if v == nil {
		return "(none)"
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(out)
}

// servers lists the servers of a service as "url" or "url fenced".
func servers(cfg *dynamic.Configuration, service string) []string {
	if cfg == nil || cfg.HTTP == nil {
		return nil
	}
	svc := cfg.HTTP.Services[service]
	if svc == nil || svc.LoadBalancer == nil {
		return nil
	}
	out := []string{}
	for _, s := range svc.LoadBalancer.Servers {
		v := s.URL
		if s.Fenced {
			v += " fenced"
		}
		out = append(out, v)
	}
	return out
}

// hasServers is a condition for waitFor: the service has exactly these servers.
func hasServers(service string, want ...string) func(*dynamic.Configuration) bool {
	return func(cfg *dynamic.Configuration) bool {
		got := servers(cfg, service)
		if len(want) == 0 {
			return got == nil
		}
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if got[i] != want[i] {
				return false
			}
		}
		return true
	}
}

// eventually polls cond until it holds or timeout passes.
func eventually(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s", what, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func pduration(d time.Duration) ptypes.Duration { return ptypes.Duration(d) }
