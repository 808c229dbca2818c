package http

// This file is copied into Traefik's pkg/provider/http by
// tools/traefik-check/run, beside sliceway_serve_test.go, whose helpers it
// uses; it is not part of sliceway's build. sliceway's provider plugin
// (SLICEWAY_PLUGIN_DIR) is loaded by Traefik's own plugin builder, run in
// its Yaegi interpreter, and streams from a running `sliceway serve
// --demo` over mutual TLS.

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
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
	cmd := exec.Command(bin, append([]string{"serve", "--demo", "--serve.address=" + address}, args...)...)
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

// TestSlicewayPlugin: Traefik, through the plugin, gets the demo's
// configuration as sliceway wrote it; when serve restarts it keeps it and
// gets it again from the new serve; with a client certificate of another
// CA it gets nothing.
func TestSlicewayPlugin(t *testing.T) {
	bin, c := slicewayServeCase(t)
	dir := t.TempDir()
	serverCA, clientCA, otherCA := slicewayNewCA(t, "server CA"), slicewayNewCA(t, "client CA"), slicewayNewCA(t, "other CA")
	serverCert, serverKey := serverCA.issue(t, dir, "server", x509.ExtKeyUsageServerAuth)
	clientCert, clientKey := clientCA.issue(t, dir, "traefik", x509.ExtKeyUsageClientAuth)
	otherCert, otherKey := otherCA.issue(t, dir, "other", x509.ExtKeyUsageClientAuth)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := ln.Addr().String()
	_ = ln.Close()
	probe := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: slicewayInsecureProbe(), DisableKeepAlives: true,
	}}
	args := []string{"--serve.tls.cert=" + serverCert, "--serve.tls.key=" + serverKey, "--serve.tls.clientca=" + clientCA.file}
	stop := slicewayRunServe(t, bin, address, probe, args...)

	start := func(cert, key string) (<-chan dynamic.Message, func()) {
		t.Helper()
		// A builder builds one provider: its wrapper is declared once.
		p, err := slicewayPluginBuilder(t).BuildProvider("sliceway", map[string]any{
			"endpoint": "https://" + address, "ca": serverCA.file, "cert": cert, "key": key,
			"minBackoff": "100ms", "maxBackoff": "500ms",
		})
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

	messages, stopPlugin := start(clientCert, clientKey)
	defer stopPlugin()
	checkRead(t, "streamed through the plugin", &c, slicewayPluginMessage(t, messages, 30*time.Second))

	stop()
	select {
	case msg := <-messages:
		t.Fatalf("with serve down, Traefik got a configuration of %d routers", len(msg.Configuration.HTTP.Routers))
	case <-time.After(time.Second):
	}
	slicewayRunServe(t, bin, address, probe, args...)
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
