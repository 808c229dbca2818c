package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/fixtures"
	"github.com/sliceway/sliceway/internal/loopback"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// liveTimeout bounds each wait for the binary: to start, to produce its
// first configuration, to stop after SIGTERM.
const liveTimeout = 20 * time.Second

// liveBuffer collects a stream the test reads while the process writes it.
type liveBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *liveBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *liveBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// liveProcess is the binary running in the background, as a user runs
// watch or serve.
type liveProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout *bufio.Reader
	stderr *liveBuffer
	exited chan struct{}
	err    error
}

// startLive starts the binary in an empty working directory with a clean
// environment; it is killed at the end of the test if still running.
// Its stdout is a pipe of the test's own, so that it can be read while the
// process runs and after it exits.
func startLive(t *testing.T, args ...string) *liveProcess {
	t.Helper()
	return startProcess(t, binary, args...)
}

// startProcess starts a program as startLive starts the binary.
func startProcess(t *testing.T, program string, args ...string) *liveProcess {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + cmd.Dir, "PATH=" + os.Getenv("PATH")}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	cmd.Stdout = w
	p := &liveProcess{t: t, cmd: cmd, stdout: bufio.NewReader(r), stderr: &liveBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	err = cmd.Start()
	_ = w.Close() // the child has its own copy
	require.NoError(t, err)
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// terminate sends SIGTERM and returns the exit code.
func (p *liveProcess) terminate() int {
	p.t.Helper()
	require.NoError(p.t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-p.exited:
	case <-time.After(liveTimeout):
		p.t.Fatalf("still running %s after SIGTERM; stderr:\n%s", liveTimeout, p.stderr.String())
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		return exit.ExitCode()
	}
	require.NoError(p.t, p.err)
	return 0
}

// firstLine reads the first line of stdout.
func (p *liveProcess) firstLine() string {
	p.t.Helper()
	lines := make(chan string, 1)
	go func() {
		line, _ := p.stdout.ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		require.NotEmpty(p.t, line, "stdout closed without a line; stderr:\n%s", p.stderr.String())
		return line
	case <-time.After(liveTimeout):
		p.t.Fatalf("no line on stdout within %s; stderr:\n%s", liveTimeout, p.stderr.String())
	}
	return ""
}

// liveEventually polls cond until it holds or fails the test.
func liveEventually(t *testing.T, p *liveProcess, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveTimeout)
	for !cond() {
		select {
		case <-p.exited:
			t.Fatalf("the process exited (%v) while waiting for %s; stderr:\n%s", p.err, what, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; stderr:\n%s", liveTimeout, what, p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func renderDemo(t *testing.T) []byte {
	t.Helper()
	res := run(t, nil, "render", "--demo")
	require.Equal(t, 0, res.code, res.stderr)
	return []byte(res.stdout)
}

func TestWatchPrintsOneJSONLinePerConfiguration(t *testing.T) {
	want := renderDemo(t)
	p := startLive(t, "watch", "--demo")
	line := p.firstLine()

	assert.True(t, strings.HasSuffix(line, "\n"))
	assert.NotContains(t, strings.TrimSuffix(line, "\n"), "\n", "one document per line")
	assert.True(t, json.Valid([]byte(line)), "a line of JSON: %s", line)
	assert.Equal(t, asGeneric(t, want), asGeneric(t, []byte(line)), "the same configuration as render --demo")

	assert.Equal(t, 0, p.terminate(), "SIGTERM is a clean stop; stderr:\n%s", p.stderr.String())
	rest, err := io.ReadAll(p.stdout)
	require.NoError(t, err)
	assert.Empty(t, string(rest), "nothing but configurations on stdout, and the demo does not change")
	assert.NotContains(t, p.stderr.String(), "goroutine ", "no stack trace")
}

func TestWatchWritesTheOutputFileAtomically(t *testing.T) {
	want, err := os.ReadFile("../../fixtures/demo/expected.yaml")
	require.NoError(t, err)
	dir := t.TempDir()
	file := filepath.Join(dir, "dynamic.yaml")
	p := startLive(t, "watch", "--demo", "--output="+file)

	var got []byte
	liveEventually(t, p, "the output file", func() bool {
		got, err = os.ReadFile(file)
		return err == nil
	})
	// YAML for Traefik's file provider, byte for byte what render writes.
	assert.Equal(t, string(want), string(got))

	assert.Equal(t, 0, p.terminate(), "stderr:\n%s", p.stderr.String())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"dynamic.yaml"}, names, "no temporary file is left behind")
	info, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "it holds private keys")
	rest, err := io.ReadAll(p.stdout)
	require.NoError(t, err)
	assert.Empty(t, string(rest), "the configuration goes to the file, not to stdout")
}

// freePort returns an address of 127.0.0.1, "127.0.0.1:port", whose port
// was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	addr, err := loopback.FreeAddress()
	require.NoError(t, err)
	return addr
}

// metricValue is the value of an unlabelled metric in a text exposition.
func metricValue(t *testing.T, exposition, name string) float64 {
	t.Helper()
	_, rest, ok := strings.Cut(exposition, "\n"+name+" ")
	require.True(t, ok, "no %s in the metrics", name)
	line, _, _ := strings.Cut(rest, "\n")
	v, err := strconv.ParseFloat(line, 64)
	require.NoError(t, err, "the value of %s", name)
	return v
}

func httpGet(t *testing.T, url string) (int, string, http.Header, error) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", nil, err
	}
	return resp.StatusCode, string(body), resp.Header, nil
}

func TestServeAnswersAsDocumented(t *testing.T) {
	want := renderDemo(t)
	objs, problems := manifests.Decode("demo.yaml", fixtures.Demo, manifests.IsUsedKind)
	require.Empty(t, problems)
	sliceCount, ingressCount := 0, 0
	for _, o := range objs {
		switch o.Object.GetObjectKind().GroupVersionKind().Kind {
		case "EndpointSlice":
			sliceCount++
		case "Ingress":
			ingressCount++
		}
	}
	require.NotZero(t, sliceCount)

	addr := freePort(t)
	base := "http://" + addr
	p := startLive(t, "serve", "--demo", "--serve.address="+addr)

	liveEventually(t, p, "GET /healthz to answer 200", func() bool {
		code, _, _, err := httpGet(t, base+"/healthz")
		return err == nil && code == http.StatusOK
	})
	code, body, _, err := httpGet(t, base+"/healthz")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok", strings.TrimSpace(body))

	code, body, header, err := httpGet(t, base+"/api/config")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "application/json", header.Get("Content-Type"))
	assert.True(t, json.Valid([]byte(body)), body)
	assert.Equal(t, asGeneric(t, want), asGeneric(t, []byte(body)), "the same configuration as render --demo")

	// The counters are updated right after the configuration is handed
	// over: wait for them rather than race them.
	sent := "\nsliceway_configurations_sent_total 1\n"
	events := fmt.Sprintf("\nsliceway_events_total{kind=\"EndpointSlice\",result=\"changed\"} %d\n", sliceCount)
	var metrics string
	liveEventually(t, p, "the metrics of the first configuration", func() bool {
		code, body, _, err := httpGet(t, base+"/metrics")
		metrics = body
		return err == nil && code == http.StatusOK && strings.Contains(body, sent) && strings.Contains(body, events)
	})
	for _, name := range []string{"sliceway_render_duration_seconds_count", "sliceway_last_sync_timestamp_seconds"} {
		assert.Contains(t, metrics, "\n"+name+" ")
	}
	assert.Contains(t, metrics, "\n"+`sliceway_renders_total{kind="full"} 1`+"\n", "one full render, nothing since")
	assert.Equal(t, 1.0, metricValue(t, metrics, "sliceway_configurations_encoded_total"), "written once, for the one GET /api/config")
	// The one full render translated the served Ingresses of the demo
	// (not those of other classes) and refreshed nothing.
	translated := metricValue(t, metrics, "sliceway_ingresses_translated_total")
	assert.Positive(t, translated)
	assert.LessOrEqual(t, translated, float64(ingressCount))
	assert.Zero(t, metricValue(t, metrics, "sliceway_load_balancers_refreshed_total"))
	assert.NotContains(t, metrics, `result="filtered"`, "the demo cluster does not change")

	assert.Equal(t, 0, p.terminate(), "SIGTERM is a clean stop; stderr:\n%s", p.stderr.String())
	_, _, _, err = httpGet(t, base+"/healthz")
	assert.Error(t, err, "the server is closed")
}
