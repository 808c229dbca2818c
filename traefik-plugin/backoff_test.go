package slicewayplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const ms = time.Millisecond

// The wait doubles after each stream that was not steady, up to max, and
// starts again from min after a steady one.
func TestBackoff(t *testing.T) {
	b := &backoff{min: 10 * ms, max: 80 * ms}
	var got []time.Duration
	for _, steady := range []bool{false, false, false, false, false, false, true, false, false, true, true} {
		got = append(got, b.after(steady))
	}
	want := fmt.Sprint([]time.Duration{10 * ms, 20 * ms, 40 * ms, 80 * ms, 80 * ms, 80 * ms, 10 * ms, 20 * ms, 40 * ms, 10 * ms, 10 * ms})
	if fmt.Sprint(got) != want {
		t.Fatalf("waits %v, want %s", got, want)
	}
	if steadyAfter(30*time.Second) != 30*time.Second || steadyAfter(500*ms) != 30*time.Second || steadyAfter(2*time.Minute) != 2*time.Minute {
		t.Fatal("a stream is steady after 30 s, or maxBackoff when longer")
	}
}

// waits records the waits of a provider between its streams, and waits
// them.
type waits struct {
	mu   sync.Mutex
	seen []time.Duration
}

func (w *waits) record(p *Provider) {
	pause := p.pause
	p.pause = func(d time.Duration) bool {
		w.mu.Lock()
		w.seen = append(w.seen, d)
		w.mu.Unlock()
		return pause(d)
	}
}

func (w *waits) list() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.seen...)
}

// doubling is the waits the backoff allows: min, doubled, up to max.
func doubling(min, max time.Duration, n int) []time.Duration {
	var all []time.Duration
	for wait := min; len(all) < n; wait *= 2 {
		if wait > max {
			wait = max
		}
		all = append(all, wait)
	}
	return all
}

// A server that sends one good frame and then a bad one, stream after
// stream: the waits grow to maxBackoff, so that Traefik gets no more
// configurations in a window than the backoff lets streams start in it
// (not one per minBackoff), and the bad frame is told once.
func TestProviderFlappingServerBacksOff(t *testing.T) {
	const min, max, window = 5 * ms, 80 * ms, 600 * ms
	var streams atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := streams.Add(1)
		_, _ = fmt.Fprintf(w, "{\"version\":%d,\"configuration\":{\"http\":{\"routers\":{\"r%d\":{}}}}}\n{\"version\":\n", n, n)
	}))
	defer srv.Close()
	cfg := CreateConfig()
	cfg.Endpoint, cfg.MinBackoff, cfg.MaxBackoff = srv.URL, "5ms", "80ms"
	p, err := New(context.Background(), cfg, "sliceway")
	if err != nil {
		t.Fatal(err)
	}
	var logs logLines
	logs.capture(p)
	var seen waits
	seen.record(p)
	ch := make(chan json.Marshaler)
	start := time.Now()
	if err := p.Provide(ch); err != nil {
		t.Fatal(err)
	}
	got := 0
	for deadline := time.After(time.Until(start.Add(window))); ; {
		select {
		case <-ch:
			got++
			continue
		case <-deadline:
		}
		break
	}
	_ = p.Stop()

	// Streams that can start within the window: the first, and one
	// after each wait that ends within it.
	allowed, at := 1, time.Duration(0)
	for _, wait := range doubling(min, max, 100) {
		if at += wait; at > window {
			break
		}
		allowed++
	}
	if got > allowed || got < 5 {
		t.Errorf("%d configurations in %s, want from 5 to %d: what a backoff of %s to %s allows", got, window, allowed, min, max)
	}
	waited := seen.list()
	if want := doubling(min, max, len(waited)); fmt.Sprint(waited) != fmt.Sprint(want) {
		t.Errorf("waits %v, want %v", waited, want)
	}
	if errs := logs.errors(); len(errs) != 1 || !strings.Contains(errs[0], "not JSON") {
		t.Errorf("errors %q, want the frame that is not JSON told once", errs)
	}
}

// A stream that delivers frames for the steady time starts the waits
// again from minBackoff; streams that fail after a good frame, or hold
// the connection open but fall silent, do not.
func TestProviderSteadyStreamResetsBackoff(t *testing.T) {
	const steady = 150 * ms
	var streams atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := streams.Add(1)
		fl := w.(http.Flusher)
		_, _ = fmt.Fprintf(w, "{\"version\":%d,\"configuration\":{\"http\":{\"routers\":{\"r%d\":{}}}}}\n", n, n)
		fl.Flush()
		switch n {
		case 1, 2, 5: // a bad frame
			_, _ = fmt.Fprint(w, "{\"version\":\n")
		case 3: // silent past deadAfter: up long, but not delivering
			<-r.Context().Done()
		case 4: // steady: beats for longer than the steady time, then ends
			for end := time.Now().Add(steady + 100*ms); time.Now().Before(end); {
				time.Sleep(25 * ms)
				_, _ = fmt.Fprintf(w, "{\"version\":%d}\n", n)
				fl.Flush()
			}
		default:
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	cfg := CreateConfig()
	cfg.Endpoint, cfg.MinBackoff, cfg.MaxBackoff, cfg.DeadAfter = srv.URL, "10ms", "1s", "300ms"
	p, err := New(context.Background(), cfg, "sliceway")
	if err != nil {
		t.Fatal(err)
	}
	p.steady = steady
	var logs logLines
	logs.capture(p)
	var seen waits
	seen.record(p)
	ch := make(chan json.Marshaler)
	if err := p.Provide(ch); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Stop() }()
	for i := 1; i <= 6; i++ {
		want := fmt.Sprintf(`{"http":{"routers":{"r%d":{}}}}`, i)
		if got := receive(t, ch, 5*time.Second); got != want {
			t.Fatalf("stream %d: got %s, want %s", i, got, want)
		}
	}
	// The wait before stream 6 was taken before it started.
	want := []time.Duration{10 * ms, 20 * ms, 40 * ms, 10 * ms, 20 * ms}
	if got := seen.list(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("waits %v, want %v: back to minBackoff after the steady stream 4 only", got, want)
	}
	// The bad frame is told at error level once, and again after the
	// steady stream.
	if errs := logs.errors(); len(errs) != 2 {
		t.Errorf("errors %q, want the frame that is not JSON told twice", errs)
	}
}
