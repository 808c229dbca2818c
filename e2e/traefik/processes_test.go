package traefike2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sliceway/sliceway/internal/loopback"
)

// startTimeout bounds each process's start: serve's first configuration,
// Traefik's API answering.
const startTimeout = 60 * time.Second

// process is a command of the suite: sliceway serve or Traefik, its
// output in a log file of the test's temporary directory.
type process struct {
	name   string
	log    string
	cmd    *exec.Cmd
	exited chan struct{} // closed when it has exited; err is then set
	err    error
}

// start runs bin with args, stdout and stderr to log (stderr also to
// scan, when not nil: it reads the lines as they come), and stops it at
// the end of the test: an interrupt, then a kill if it has not exited in
// 10s.
func start(t *testing.T, name, log string, scan func(io.Reader), bin string, args ...string) *process {
	t.Helper()
	out, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	p := &process{name: name, log: log, cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	p.cmd.Env = configuredByArgs()
	p.cmd.Stdout, p.cmd.Stderr = out, out
	var lines *io.PipeWriter
	if scan != nil {
		var r *io.PipeReader
		r, lines = io.Pipe()
		p.cmd.Stderr = io.MultiWriter(out, lines) // exec copies it; Wait waits for the copy
		go func() { scan(r); _, _ = io.Copy(io.Discard, r) }()
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		if lines != nil {
			_ = lines.Close()
		}
		_ = out.Close()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// configuredByArgs is this environment without the variables sliceway
// (SLICEWAY_*) and Traefik (TRAEFIK_*) read as configuration: the suite's
// processes are configured by their arguments alone, whatever the shell
// that runs it (or the run script's TRAEFIK_VERSION) holds.
func configuredByArgs() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLICEWAY_") && !strings.HasPrefix(kv, "TRAEFIK_") {
			env = append(env, kv)
		}
	}
	return env
}

// failIfExited ends the test if p has stopped: a process of the suite
// never should while it runs.
func (p *process) failIfExited(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("%s exited: %v; its log:\n%s", p.name, p.err, tail(p.log, 60))
	default:
	}
}

// tail is the last n lines of a log file, for failure reports.
func tail(file string, n int) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// startServe runs `sliceway serve` on the manifests of dir with the
// suite's flags, on a free loopback port, and returns its base URL once
// it has a configuration. serve prints the address it listens on in its
// JSON log.
func startServe(t *testing.T, bin, dir, logDir string, flags []string) (string, *process) {
	t.Helper()
	addresses := make(chan string, 1)
	scan := func(r io.Reader) {
		lines := bufio.NewScanner(r)
		for lines.Scan() {
			var line struct {
				Address string `json:"address"`
			}
			if json.Unmarshal(lines.Bytes(), &line) == nil && line.Address != "" {
				addresses <- line.Address
				return
			}
		}
	}
	args := append([]string{"serve", "--manifests=" + dir, "--serve.address=127.0.0.1:0", "--log.format=json"}, flags...)
	p := start(t, "sliceway serve", filepath.Join(logDir, "sliceway.log"), scan, bin, args...)
	var base string
	select {
	case a := <-addresses:
		base = "http://" + a
	case <-p.exited:
		t.Fatalf("sliceway serve %s exited: %v; its log:\n%s", strings.Join(args, " "), p.err, tail(p.log, 60))
	case <-time.After(startTimeout):
		t.Fatalf("sliceway serve did not say where it listens within %s; its log:\n%s", startTimeout, tail(p.log, 60))
	}
	waitFor(t, p, startTimeout, "sliceway serve's /healthz to answer 200", func() (bool, string) {
		return get200(base + "/healthz")
	})
	return base, p
}

// traefikPorts are the loopback ports of Traefik's entry points.
type traefikPorts struct{ web, websecure, api int }

// startTraefik writes Traefik's static configuration and runs it: entry
// points web and websecure (TLS for every router on it), the API and the
// dashboard on their own loopback entry point (the dashboard's
// middlewares, of Traefik's internal provider, are what the
// cross-provider case names), and the HTTP provider polling serve's
// /api/config every 250ms, with no throttle between configurations. HTTPS
// backends have self-signed certificates: the default transport skips
// their verification.
func startTraefik(t *testing.T, bin, serveBase, logDir string) (traefikPorts, *process) {
	t.Helper()
	ports := traefikPorts{web: freePort(t), websecure: freePort(t), api: freePort(t)}
	static := fmt.Sprintf(`global:
  checkNewVersion: false
  sendAnonymousUsage: false
entryPoints:
  web:
    address: "127.0.0.1:%d"
  websecure:
    address: "127.0.0.1:%d"
    http:
      tls: {}
  traefik:
    address: "127.0.0.1:%d"
api:
  insecure: true
  dashboard: true
providers:
  providersThrottleDuration: 0s
  http:
    endpoint: "%s/api/config"
    pollInterval: 250ms
    pollTimeout: 5s
serversTransport:
  insecureSkipVerify: true
log:
  level: INFO
  noColor: true
  filePath: %q
accessLog:
  filePath: %q
`, ports.web, ports.websecure, ports.api, serveBase,
		filepath.Join(logDir, "traefik.log"), filepath.Join(logDir, "access.log"))
	file := filepath.Join(logDir, "traefik.yaml")
	if err := os.WriteFile(file, []byte(static), 0o600); err != nil {
		t.Fatal(err)
	}
	p := start(t, "traefik", filepath.Join(logDir, "traefik.out"), nil, bin, "--configFile="+file)
	waitFor(t, p, startTimeout, "Traefik's API to answer", func() (bool, string) {
		return get200(fmt.Sprintf("http://127.0.0.1:%d/api/rawdata", ports.api))
	})
	return ports, p
}

// waitFor polls ok every 100ms until it holds, p exits or the timeout
// passes; the test then fails with what ok last said.
func waitFor(t *testing.T, p *process, timeout time.Duration, what string, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		done, last := ok()
		if done {
			return
		}
		if p != nil {
			p.failIfExited(t)
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; last: %s", timeout, what, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var probe = &http.Client{Timeout: 5 * time.Second}

func get200(url string) (bool, string) {
	res, err := probe.Get(url)
	if err != nil {
		return false, err.Error()
	}
	defer func() { _ = res.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	return res.StatusCode == http.StatusOK, res.Status + " " + string(body)
}

// freePort is a loopback port free now. Traefik cannot say which port it
// took, so it is given one; another program may take it first, and
// Traefik's log then says so.
func freePort(t *testing.T) int {
	t.Helper()
	port, err := loopback.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

func portOf(address string) (int, error) {
	_, port, err := net.SplitHostPort(address)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(port)
}
