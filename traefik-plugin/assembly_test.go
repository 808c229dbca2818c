package slicewayplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// equalJSON says whether two texts hold the same JSON value.
func equalJSON(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("not JSON: %v: %s", err, want)
	}
	gt, _ := json.Marshal(g)
	wt, _ := json.Marshal(w)
	return string(gt) == string(wt)
}

// A delta onto the version held changes its routers and services and,
// when given, replaces the rest; a delta onto another version changes
// nothing.
func TestAssemblyAppliesDeltas(t *testing.T) {
	var a assembly
	if _, err := a.apply(2, 1, json.RawMessage(`{}`)); err == nil {
		t.Fatal("a delta before any full frame was taken")
	}
	a.full(1, []byte(`{"http":{"routers":{"r1":{"rule":"Path(\"/1\")","service":"s1"},"r2":{"service":"s2"}},"services":{"s1":{"loadBalancer":{}},"s2":{}},"middlewares":{"m":{}}},"tls":{"certificates":[{"certFile":"a"}]}}`))

	text, err := a.apply(2, 1, json.RawMessage(`{"routers":{"r2":null,"r3":{"service":"s1"}},"services":{"s2":null,"s1":{"loadBalancer":{"servers":[{"url":"http://10.0.0.1:80"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"http":{"routers":{"r1":{"rule":"Path(\"/1\")","service":"s1"},"r3":{"service":"s1"}},"services":{"s1":{"loadBalancer":{"servers":[{"url":"http://10.0.0.1:80"}]}}},"middlewares":{"m":{}}},"tls":{"certificates":[{"certFile":"a"}]}}`
	if !equalJSON(t, string(text), want) {
		t.Fatalf("got %s, want %s", text, want)
	}

	if _, err := a.apply(4, 3, json.RawMessage(`{"routers":{"r1":null}}`)); err == nil {
		t.Fatal("a delta onto version 3 was applied onto version 2")
	}
	if a.version != 2 || !equalJSON(t, string(a.text), want) {
		t.Fatalf("a refused delta changed the configuration: version %d, %s", a.version, a.text)
	}

	text, err = a.apply(3, 2, json.RawMessage(`{"routers":{"r1":null,"r3":null},"services":{"s1":null},"rest":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(text) != `{}` {
		t.Fatalf("everything removed: got %s, want {}", text)
	}
}

// The tcp section (ssl-passthrough routers) is kept through deltas that
// do not send the rest, and replaced by one that does.
func TestAssemblyKeepsTheTCPSection(t *testing.T) {
	var a assembly
	a.full(1, []byte(`{"http":{"routers":{"r1":{"service":"s1"}},"services":{"s1":{}}},"tcp":{"routers":{"p":{"rule":"HostSNI(`+"`a`"+`)","service":"p","tls":{"passthrough":true}}},"services":{"p":{}}}}`))
	text, err := a.apply(2, 1, json.RawMessage(`{"routers":{"r2":{"service":"s1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"http":{"routers":{"r1":{"service":"s1"},"r2":{"service":"s1"}},"services":{"s1":{}}},"tcp":{"routers":{"p":{"rule":"HostSNI(` + "`a`" + `)","service":"p","tls":{"passthrough":true}}},"services":{"p":{}}}}`
	if !equalJSON(t, string(text), want) {
		t.Fatalf("got %s, want %s", text, want)
	}
	text, err = a.apply(3, 2, json.RawMessage(`{"rest":{"tcp":{"routers":{"q":{"service":"q"}},"services":{"q":{}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want = `{"http":{"routers":{"r1":{"service":"s1"},"r2":{"service":"s1"}},"services":{"s1":{}}},"tcp":{"routers":{"q":{"service":"q"}},"services":{"q":{}}}}`
	if !equalJSON(t, string(text), want) {
		t.Fatalf("got %s, want %s", text, want)
	}
}

// Through a stream: the full frame, then each delta applied, reach
// Traefik whole; a delta onto a version the plugin does not hold ends the
// stream, and the next one starts again from a full frame.
func TestProviderAppliesDeltaFrames(t *testing.T) {
	var streams atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("deltas") != "true" {
			http.Error(w, "deltas were not asked for", http.StatusBadRequest)
			return
		}
		n := streams.Add(1)
		_, _ = fmt.Fprintf(w, "{\"version\":1,\"configuration\":{\"http\":{\"routers\":{\"r\":{\"service\":\"s%d\"}}}}}\n", n)
		_, _ = fmt.Fprint(w, "{\"version\":2,\"base\":1,\"delta\":{\"routers\":{\"q\":{\"service\":\"s\"}}}}\n")
		if n == 1 {
			_, _ = fmt.Fprint(w, "{\"version\":4,\"base\":3,\"delta\":{\"routers\":{\"r\":null}}}\n")
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	cfg := CreateConfig()
	cfg.Endpoint, cfg.MinBackoff = srv.URL, "10ms"
	p, err := New(context.Background(), cfg, "sliceway")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan json.Marshaler)
	if err := p.Provide(ch); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Stop() }()
	for n := 1; n <= 2; n++ {
		for _, want := range []string{
			fmt.Sprintf(`{"http":{"routers":{"r":{"service":"s%d"}}}}`, n),
			fmt.Sprintf(`{"http":{"routers":{"r":{"service":"s%d"},"q":{"service":"s"}}}}`, n),
		} {
			if got := receive(t, ch, 2*time.Second); !equalJSON(t, got, want) {
				t.Fatalf("stream %d: got %s, want %s", n, got, want)
			}
		}
	}
}
