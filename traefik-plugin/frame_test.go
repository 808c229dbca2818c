package slicewayplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// endlessReader is a server that never ends its line: 'x' after 'x', up
// to most bytes (so that a reader that does not stop ends the test, and
// fails it, instead of eating the machine's memory).
type endlessReader struct{ read, most int }

func (e *endlessReader) Read(b []byte) (int, error) {
	if e.read >= e.most {
		return 0, io.EOF
	}
	n := len(b)
	if n > e.most-e.read {
		n = e.most - e.read
	}
	for i := range b[:n] {
		b[i] = 'x'
	}
	e.read += n
	return n, nil
}

// On a line that never ends, the reader stops once it passed the limit:
// it has read at most the limit and its own buffer from the server, and
// holds no line.
func TestFrameReaderBoundsEndlessLine(t *testing.T) {
	for _, c := range []struct {
		limit, buffer int
		text          string
	}{
		{limit: 4096, buffer: 4097, text: "4KiB"},       // a small limit: a buffer of the limit
		{limit: 3 << 20, buffer: 1 << 20, text: "3MiB"}, // a larger one: a buffer of 1 MiB
	} {
		src := &endlessReader{most: 64 << 20}
		line, err := newFrameReader(src, c.limit, c.text).next()
		if !errors.Is(err, errFrameTooLarge) || line != nil {
			t.Fatalf("limit %d: %d bytes and %v, want errFrameTooLarge", c.limit, len(line), err)
		}
		if !strings.Contains(err.Error(), "maxFrameSize, "+c.text) {
			t.Errorf("limit %d: the error does not name the option and its value: %v", c.limit, err)
		}
		if src.read > c.limit+c.buffer {
			t.Errorf("limit %d: %d bytes read from the server, more than the limit and the buffer (%d)", c.limit, src.read, c.limit+c.buffer)
		}
	}
}

// Lines up to the limit are read whole, also across the reader's buffer;
// one byte more ends the stream; a line cut short is never a line.
func TestFrameReaderLines(t *testing.T) {
	long := `{"configuration":{"x":"` + strings.Repeat("y", (5<<20)/2) + `"}}`
	frames := newFrameReader(strings.NewReader(long+"\n{\"version\":1}\n12345678901\n"), 3<<20, "3MiB")
	for _, want := range []string{long, `{"version":1}`} {
		line, err := frames.next()
		if err != nil || string(line) != want {
			t.Fatalf("got %d bytes and %v, want a line of %d bytes", len(line), err, len(want))
		}
	}
	frames = newFrameReader(strings.NewReader("12345678\n123456789\n"), 8, "8")
	if line, err := frames.next(); err != nil || string(line) != "12345678" {
		t.Fatalf("a line of the limit: %q, %v", line, err)
	}
	if _, err := frames.next(); !errors.Is(err, errFrameTooLarge) {
		t.Fatalf("a line one byte over the limit: %v", err)
	}
	frames = newFrameReader(strings.NewReader(`{"version":2,"configuration":{`), 1<<10, "1KiB")
	if line, err := frames.next(); err != io.EOF || line != nil {
		t.Fatalf("a line cut short: %q, %v", line, err)
	}
}

func TestByteSize(t *testing.T) {
	for text, want := range map[string]int{
		"": 256 << 20, "256MiB": 256 << 20, "1024": 1024, "4KiB": 4096, "2 GiB": 2 << 30,
		"10MB": 10_000_000, "512B": 512,
	} {
		got, _, err := byteSize("maxFrameSize", text, defaultMaxFrameSize)
		if err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", text, got, err, want)
		}
	}
	for _, text := range []string{"0", "-1", "1.5MiB", "MiB", "ten", "9999999999999GiB"} {
		if _, _, err := byteSize("maxFrameSize", text, defaultMaxFrameSize); err == nil || !strings.Contains(err.Error(), "maxFrameSize") {
			t.Errorf("%q: %v, want an error naming maxFrameSize", text, err)
		}
	}
	cfg := CreateConfig()
	cfg.Endpoint, cfg.MaxFrameSize = "https://serve:8443", "lots"
	if _, err := New(context.Background(), cfg, "sliceway"); err == nil {
		t.Error("a maxFrameSize of lots was accepted")
	}
}

// A server that sends a good frame and then one endless line: Traefik
// gets the good frames only; the plugin drops each stream once the line
// passes maxFrameSize (the server sees the connection closed long before
// it has written what it would), reconnects, and tells the error once.
func TestProviderDropsEndlessFrame(t *testing.T) {
	const (
		limit = 64 << 10
		// What the server may write past the limit before it sees the
		// connection closed: the plugin's buffer (the limit again) and
		// loopback's socket buffers, a few MB.
		slack = 16 << 20
		// What it writes at most: a plugin that reads without bound
		// reads it all, and the test fails without using more memory.
		most = 64 << 20
	)
	type endless struct {
		written int
		closed  bool
	}
	ends := make(chan endless, 4)
	var streams atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := streams.Add(1)
		fl := w.(http.Flusher)
		_, _ = fmt.Fprintf(w, "{\"version\":%d,\"configuration\":{\"http\":{\"routers\":{\"r%d\":{}}}}}\n", n, n)
		fl.Flush()
		if n >= 3 {
			<-r.Context().Done()
			return
		}
		chunk := bytes.Repeat([]byte("x"), 32<<10)
		e := endless{}
		for e.written < most && !e.closed {
			if _, err := w.Write(chunk); err != nil || r.Context().Err() != nil {
				e.closed = true
				break
			}
			fl.Flush()
			e.written += len(chunk)
		}
		ends <- e
	}))
	defer srv.Close()
	cfg := CreateConfig()
	cfg.Endpoint, cfg.MinBackoff, cfg.MaxFrameSize = srv.URL, "10ms", "64KiB"
	p, err := New(context.Background(), cfg, "sliceway")
	if err != nil {
		t.Fatal(err)
	}
	var logs logLines
	logs.capture(p)
	ch := make(chan json.Marshaler)
	if err := p.Provide(ch); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Stop() }()
	for i := 1; i <= 3; i++ {
		want := fmt.Sprintf(`{"http":{"routers":{"r%d":{}}}}`, i)
		if got := receive(t, ch, 5*time.Second); got != want {
			t.Fatalf("stream %d: got %s, want %s", i, got, want)
		}
	}
	for i := 1; i <= 2; i++ {
		e := <-ends

		if !e.closed || e.written > limit+slack {
			t.Errorf("endless line %d: %d bytes written, connection closed: %v; want closed within %d bytes", i, e.written, e.closed, limit+slack)
		}
	}
	errs := logs.errors()
	if len(errs) != 1 || !strings.Contains(errs[0], "maxFrameSize, 64KiB (65536 bytes)") {
		t.Errorf("two streams dropped for the size of a line: errors %q, want one naming maxFrameSize and its value", errs)
	}
}
