package http

// This file is copied into Traefik's pkg/provider/http by
// tools/traefik-check/run, beside sliceway_serve_test.go, whose helpers it
// uses; it is not part of sliceway's build. sliceway's provider plugin
// (SLICEWAY_PLUGIN_DIR) is loaded by Traefik's own plugin builder, run in
// its Yaegi interpreter, and streams from a running `sliceway serve
// --demo` over mutual TLS.

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	httpmuxer "github.com/traefik/traefik/v3/pkg/muxer/http"
	"github.com/traefik/traefik/v3/pkg/plugins"
	"github.com/traefik/traefik/v3/pkg/safe"
)

const slicewayPluginModule = "github.com/sliceway/sliceway/traefik-plugin"

// slicewayPluginBuilder lays the plugin out as Traefik's local plugins are
// (plugins-local/src/<module>, relative to the working directory) and
// builds it with Traefik's builder.
func slicewayPluginBuilder(t *testing.T) *plugins.Builder {
	t.Helper()
	src := os.Getenv("SLICEWAY_PLUGIN_DIR")
	if src == "" {
		t.Skip("SLICEWAY_PLUGIN_DIR is not set")
	}
	work, err := os.Getwd()
	if err != nil || os.Getenv("SLICEWAY_PLUGIN_WORK") != work {
		work = t.TempDir()
		t.Chdir(work)
		t.Setenv("SLICEWAY_PLUGIN_WORK", work)
	}
	dst := filepath.Join(work, "plugins-local", "src", filepath.FromSlash(slicewayPluginModule))
	if _, err := os.Stat(dst); err != nil {
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := plugins.NewBuilder(nil, nil, map[string]plugins.LocalDescriptor{"sliceway": {ModuleName: slicewayPluginModule}})
	if err != nil {
		t.Fatalf("Traefik's plugin builder: %v", err)
	}
	return b
}

// slicewayRunServe starts `sliceway serve --demo` at address and waits
// for its /healthz; the returned function stops it.
func slicewayRunServe(t *testing.T, bin, address string, probe *http.Client, args ...string) func() {
	t.Helper()
	return slicewayRunServeOf(t, bin, "--demo", address, probe, args...)
}

// slicewayRunServeOf is slicewayRunServe on source, --demo or
// --manifests=<dir>.
func slicewayRunServeOf(t *testing.T, bin, source, address string, probe *http.Client, args ...string) func() {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", source, "--serve.address=" + address}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	t.Cleanup(stop)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err := probe.Get("https://" + address + "/healthz"); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return stop
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("sliceway serve has no configuration after 30s")
		}
	}
}

func slicewayPluginMessage(t *testing.T, messages <-chan dynamic.Message, within time.Duration) *dynamic.Configuration {
	t.Helper()
	select {
	case msg := <-messages:
		// encoding/json leaves out the sections sliceway did not write,
		// where the HTTP provider's decoder makes them empty.
		if msg.Configuration.TLS == nil {
			msg.Configuration.TLS = &dynamic.TLSConfiguration{}
		}
		if msg.Configuration.HTTP == nil {
			msg.Configuration.HTTP = &dynamic.HTTPConfiguration{}
		}
		return msg.Configuration
	case <-time.After(within):
		t.Fatalf("Traefik got no configuration from the plugin within %s", within)
		return nil
	}
}

// slicewayStartPlugin builds the plugin's provider with Traefik's builder
// and config, and starts it: the messages it hands on, and its stop.
func slicewayStartPlugin(t *testing.T, config map[string]any) (<-chan dynamic.Message, func()) {
	t.Helper()
	// A builder builds one provider: its wrapper is declared once.
	p, err := slicewayPluginBuilder(t).BuildProvider("sliceway", config)
	if err != nil {
		t.Fatalf("Traefik builds the plugin's provider: %v", err)
	}
	if err := p.Init(); err != nil {
		t.Fatal(err)
	}
	messages := make(chan dynamic.Message, 16)
	pool := safe.NewPool(t.Context())
	if err := p.Provide(messages, pool); err != nil {
		t.Fatalf("Provide: %v", err)
	}
	return messages, pool.Stop
}

// slicewayTLSServe is what a test needs to run serve over mutual TLS on a
// free loopback port: its address, serve's TLS flags, the CAs of the
// server and of the clients, a probe of /healthz, and a directory for
// more certificates.
type slicewayTLSServe struct {
	address            string
	args               []string
	serverCA, clientCA *slicewayCA
	probe              *http.Client
	dir                string
}

func newSlicewayTLSServe(t *testing.T) *slicewayTLSServe {
	t.Helper()
	s := &slicewayTLSServe{dir: t.TempDir(), serverCA: slicewayNewCA(t, "server CA"), clientCA: slicewayNewCA(t, "client CA")}
	serverCert, serverKey := s.serverCA.issue(t, s.dir, "server", x509.ExtKeyUsageServerAuth)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.address = ln.Addr().String()
	_ = ln.Close()
	s.probe = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: slicewayInsecureProbe(), DisableKeepAlives: true,
	}}
	s.args = []string{"--serve.tls.cert=" + serverCert, "--serve.tls.key=" + serverKey, "--serve.tls.clientca=" + s.clientCA.file}
	return s
}

// pluginConfig is the plugin's configuration for this serve, with the
// client certificate cert and key.
func (s *slicewayTLSServe) pluginConfig(cert, key string) map[string]any {
	return map[string]any{"endpoint": "https://" + s.address, "ca": s.serverCA.file, "cert": cert, "key": key,
		"minBackoff": "100ms", "maxBackoff": "500ms"}
}

// TestSlicewayPlugin: Traefik, through the plugin, gets the demo's
// configuration as sliceway wrote it, and routes its requests by it; when
// serve restarts it keeps it and
// gets it again from the new serve; with a client certificate of another
// CA it gets nothing.
func TestSlicewayPlugin(t *testing.T) {
	bin, c := slicewayServeCase(t)
	srv := newSlicewayTLSServe(t)
	clientCert, clientKey := srv.clientCA.issue(t, srv.dir, "traefik", x509.ExtKeyUsageClientAuth)
	otherCA := slicewayNewCA(t, "other CA")
	otherCert, otherKey := otherCA.issue(t, srv.dir, "other", x509.ExtKeyUsageClientAuth)
	stop := slicewayRunServe(t, bin, srv.address, srv.probe, srv.args...)
	start := func(cert, key string) (<-chan dynamic.Message, func()) {
		t.Helper()
		return slicewayStartPlugin(t, srv.pluginConfig(cert, key))
	}

	messages, stopPlugin := start(clientCert, clientKey)
	defer stopPlugin()
	streamed := slicewayPluginMessage(t, messages, 30*time.Second)
	checkRead(t, "streamed through the plugin", &c, streamed)
	// Traefik's router sends the demo's requests where sliceway means them
	// to go, on the configuration the plugin handed it.
	parser, err := httpmuxer.NewSyntaxParser()
	if err != nil {
		t.Fatal(err)
	}
	checkRouting(t, parser, streamed, c.Routers, c.Requests)

	stop()
	select {
	case msg := <-messages:
		t.Fatalf("with serve down, Traefik got a configuration of %d routers", len(msg.Configuration.HTTP.Routers))
	case <-time.After(time.Second):
	}
	slicewayRunServe(t, bin, srv.address, srv.probe, srv.args...)
	checkRead(t, "streamed again after serve's restart", &c, slicewayPluginMessage(t, messages, 30*time.Second))

	stranger, stopStranger := start(otherCert, otherKey)
	defer stopStranger()
	select {
	case msg := <-stranger:
		t.Errorf("with another CA's certificate, Traefik got a configuration of %d routers", len(msg.Configuration.HTTP.Routers))
	case <-time.After(2 * time.Second):
	}
}

// slicewayInsecureProbe only waits for /healthz.
func slicewayInsecureProbe() *tls.Config { return &tls.Config{InsecureSkipVerify: true} }

// TestSlicewayPluginDeltas: under Yaegi, the plugin applies delta frames
// onto the demo's configuration (a service changed, a router removed, then
// the rest replaced) and hands Traefik each whole result; a delta onto a
// version it does not hold is refused, and the stream starts again.
func TestSlicewayPluginDeltas(t *testing.T) {
	_, c := slicewayServeCase(t)
	var demo struct {
		HTTP struct {
			Routers  map[string]json.RawMessage `json:"routers"`
			Services map[string]json.RawMessage `json:"services"`
		} `json:"http"`
	}
	if err := json.Unmarshal([]byte(c.JSON), &demo); err != nil {
		t.Fatal(err)
	}
	service, router := slices.Sorted(maps.Keys(demo.HTTP.Services))[0], slices.Sorted(maps.Keys(demo.HTTP.Routers))[0]
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(c.JSON)); err != nil {
		t.Fatal(err)
	}
	frames := []string{
		fmt.Sprintf(`{"version":1,"configuration":%s}`, compact.Bytes()),
		fmt.Sprintf(`{"version":2,"base":1,"delta":{"services":{%q:{"loadBalancer":{"servers":[{"url":"http://10.9.9.9:80"}]}}},"routers":{%q:null}}}`, service, router),
		`{"version":3,"base":2,"delta":{"rest":{}}}`,
		`{"version":5,"base":4,"delta":{"routers":{}}}`,
	}
	var streams atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("deltas") != "true" {
			http.Error(w, "deltas were not asked for", http.StatusBadRequest)
			return
		}
		if streams.Add(1) == 1 {
			for _, f := range frames {
				fmt.Fprintln(w, f)
			}
		} else {
			fmt.Fprintln(w, frames[0])
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	messages, stopPlugin := slicewayStartPlugin(t, map[string]any{"endpoint": srv.URL, "minBackoff": "100ms"})
	defer stopPlugin()

	checkRead(t, "the full frame", &c, slicewayPluginMessage(t, messages, 30*time.Second))
	got := slicewayPluginMessage(t, messages, 10*time.Second)
	if lb := got.HTTP.Services[service].LoadBalancer; lb == nil || len(lb.Servers) != 1 || lb.Servers[0].URL != "http://10.9.9.9:80" {
		t.Errorf("service %s after the delta: %+v", service, got.HTTP.Services[service])
	}
	if _, ok := got.HTTP.Routers[router]; ok || len(got.HTTP.Routers) != len(c.Routers)-1 {
		t.Errorf("after the delta that removes router %s: %d routers", router, len(got.HTTP.Routers))
	}
	if len(got.HTTP.Services) != c.Services || len(got.TLS.Certificates) != c.Certificates {
		t.Errorf("after the delta: %d services, %d certificates; want %d, %d", len(got.HTTP.Services), len(got.TLS.Certificates), c.Services, c.Certificates)
	}
	got = slicewayPluginMessage(t, messages, 10*time.Second)
	if len(got.TLS.Certificates) != 0 || len(got.HTTP.Services) != c.Services {
		t.Errorf("after the delta that empties the rest: %d certificates, %d services", len(got.TLS.Certificates), len(got.HTTP.Services))
	}
	// The delta onto version 4 is refused: the next stream's full frame.
	checkRead(t, "the full frame of the next stream", &c, slicewayPluginMessage(t, messages, 30*time.Second))
	if n := streams.Load(); n != 2 {
		t.Errorf("%d streams, want 2: the refused delta ends the first", n)
	}
}

// TestSlicewayPluginFollowsServe: a `sliceway serve` following manifests
// (the demo's, in a directory) and Traefik's plugin under Yaegi; an
// EndpointSlice edited in the file reaches Traefik through the stream, a
// delta frame, with no poll: the new server in, the old one out.
func TestSlicewayPluginFollowsServe(t *testing.T) {
	bin, _ := slicewayServeCase(t)
	demo := os.Getenv("SLICEWAY_DEMO_MANIFESTS")
	if demo == "" {
		t.Skip("SLICEWAY_DEMO_MANIFESTS is not set")
	}
	text, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	const before, after = "10.244.1.11", "10.244.1.77"
	if !bytes.Contains(text, []byte(`["`+before+`"]`)) {
		t.Fatalf("%s holds no endpoint %s", demo, before)
	}
	manifests := t.TempDir()
	file := filepath.Join(manifests, "demo.yaml")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newSlicewayTLSServe(t)
	clientCert, clientKey := srv.clientCA.issue(t, srv.dir, "traefik", x509.ExtKeyUsageClientAuth)
	slicewayRunServeOf(t, bin, "--manifests="+manifests, srv.address, srv.probe, srv.args...)
	messages, stopPlugin := slicewayStartPlugin(t, srv.pluginConfig(clientCert, clientKey))
	defer stopPlugin()
	servers := func(c *dynamic.Configuration) map[string]bool {
		urls := map[string]bool{}
		for _, svc := range c.HTTP.Services {
			if svc.LoadBalancer != nil {
				for _, s := range svc.LoadBalancer.Servers {
					urls[s.URL] = true
				}
			}
		}
		return urls
	}
	first := slicewayPluginMessage(t, messages, 30*time.Second)
	if !servers(first)["http://"+before+":8080"] {
		t.Fatalf("the first configuration has no server %s", before)
	}
	edited := filepath.Join(manifests, ".demo.yaml.tmp")
	if err := os.WriteFile(edited, bytes.ReplaceAll(text, []byte(`["`+before+`"]`), []byte(`["`+after+`"]`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(edited, file); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		got := servers(slicewayPluginMessage(t, messages, time.Until(deadline)))
		if got["http://"+after+":8080"] {
			if got["http://"+before+":8080"] {
				t.Errorf("the old server %s is still in the configuration beside %s", before, after)
			}
			if len(got) != len(servers(first)) {
				t.Errorf("%d servers after the edit, %d before", len(got), len(servers(first)))
			}
			return
		}
	}
}
