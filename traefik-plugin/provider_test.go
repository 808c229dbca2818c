package slicewayplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func receive(t *testing.T, ch <-chan json.Marshaler, within time.Duration) string {
	t.Helper()
	select {
	case m := <-ch:
		data, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	case <-time.After(within):
		t.Fatalf("no configuration within %s", within)
		return ""
	}
}

// Each stream's whole configurations reach Traefik, heartbeats and a
// line cut short do not; a stream that ends or falls silent is opened
// again, with the token read again.
func TestProviderStreams(t *testing.T) {
	var streams atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/config/stream" || r.Header.Get("Authorization") != "Bearer t0ken" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		n := streams.Add(1)
		fl := w.(http.Flusher)
		_, _ = fmt.Fprintf(w, "{\"version\":1,\"configuration\":{\"http\":{\"routers\":{\"r%d\":{}}}}}\n{\"version\":1}\n", n)
		fl.Flush()
		switch n {
		case 1: // serve goes away mid-frame
			_, _ = fmt.Fprint(w, `{"version":2,"configuration":{"http":`)
		case 2: // falls silent
			time.Sleep(2 * time.Second)
		default:
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := CreateConfig()
	cfg.Endpoint, cfg.TokenFile, cfg.MinBackoff, cfg.DeadAfter = srv.URL+"/", token, "10ms", "300ms"
	p, err := New(context.Background(), cfg, "sliceway")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan json.Marshaler)
	if err := p.Init(); err != nil {
		t.Fatal(err)
	}
	if err := p.Provide(ch); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		want := fmt.Sprintf(`{"http":{"routers":{"r%d":{}}}}`, i)
		if got := receive(t, ch, 2*time.Second); got != want {
			t.Fatalf("stream %d: got %s, want %s", i, got, want)
		}
	}
	select {
	case m := <-ch:
		data, _ := m.MarshalJSON()
		t.Fatalf("more than the three whole configurations: %s", data)
	case <-time.After(200 * time.Millisecond):
	}
	stopped := make(chan error)
	go func() { stopped <- p.Stop() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Stop did not end the stream")
	}
}

// Refused credentials give Traefik nothing, and the plugin keeps trying.
func TestProviderRefused(t *testing.T) {
	var tries atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries.Add(1)
		http.Error(w, "Unauthorized: no token", http.StatusUnauthorized)
	}))
	defer srv.Close()
	cfg := CreateConfig()
	cfg.Endpoint, cfg.MinBackoff, cfg.MaxBackoff = srv.URL, "10ms", "20ms"
	p, err := New(context.Background(), cfg, "sliceway")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan json.Marshaler)
	_ = p.Provide(ch)
	select {
	case <-ch:
		t.Fatal("a configuration without credentials")
	case <-time.After(500 * time.Millisecond):
	}
	_ = p.Stop()
	if tries.Load() < 3 {
		t.Errorf("%d tries in 500ms with a backoff of 10-20ms", tries.Load())
	}
	if _, err := New(context.Background(), &Config{}, "x"); err == nil {
		t.Error("no endpoint accepted")
	}
}
