package slicewayplugin

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Routine ends of streams go to debug; a refusal is an error at once; any
// other failure an error once it lasted the outage; each error once.
func TestReporterLevels(t *testing.T) {
	var debug, errs bytes.Buffer
	to := func(b *bytes.Buffer) func(string) { return func(line string) { b.WriteString(line + "\n") } }
	r := &reporter{name: "sliceway", url: "https://serve:8443/api/config/stream", outage: 30 * time.Second, debug: to(&debug), errs: to(&errs)}
	start := time.Unix(1_000_000, 0)
	lines := func(b *bytes.Buffer) int { return strings.Count(b.String(), "\n") }
	down := errors.New(`Get "https://serve:8443/api/config/stream": dial tcp: connect: connection refused`)

	r.ended(ending{got: true, steady: true}, errors.New("EOF"), 500*time.Millisecond, start)
	for i := 1; i <= 5; i++ { // serve restarting: 5 s of refused connections
		r.ended(ending{}, down, time.Second, start.Add(time.Duration(i)*time.Second))
	}
	if errs.Len() != 0 || lines(&debug) != 6 {
		t.Fatalf("a restart of serve: %d debug lines, errors %q", lines(&debug), errs.String())
	}
	r.ended(ending{}, down, 30*time.Second, start.Add(31*time.Second))
	r.ended(ending{}, down, 30*time.Second, start.Add(61*time.Second))
	if lines(&errs) != 1 || !strings.Contains(errs.String(), "no configuration from serve for 30s") {
		t.Fatalf("out of reach for 30s: errors %q", errs.String())
	}

	r.ended(ending{got: true, steady: true}, errors.New("EOF"), 500*time.Millisecond, start.Add(90*time.Second))
	errs.Reset()
	refused := fmt.Errorf("%w: %s", errRefused, "403 Forbidden")
	r.ended(ending{}, refused, time.Second, start.Add(91*time.Second))
	r.ended(ending{}, refused, 2*time.Second, start.Add(92*time.Second))
	if lines(&errs) != 1 || !strings.Contains(errs.String(), "403 Forbidden") || !strings.Contains(errs.String(), "refuses this plugin's credentials") {
		t.Fatalf("refused: errors %q", errs.String())
	}
	if !isRefusal(errors.New("remote error: tls: certificate required")) || isRefusal(down) {
		t.Fatal("a refused client certificate is a refusal, a refused connection is not")
	}
}

// A frame no serve writes is an error at once, once per kind, even when
// each stream first handed on a configuration; told again only after a
// steady stream.
func TestReporterBreachesOncePerKind(t *testing.T) {
	var debug, errs bytes.Buffer
	to := func(b *bytes.Buffer) func(string) { return func(line string) { b.WriteString(line + "\n") } }
	r := &reporter{name: "sliceway", url: "https://serve:8443/api/config/stream", outage: 30 * time.Second, debug: to(&debug), errs: to(&errs)}
	start := time.Unix(1_000_000, 0)
	lines := func(b *bytes.Buffer) int { return strings.Count(b.String(), "\n") }
	large := fmt.Errorf("%w: serve sent a line of more than maxFrameSize, 1MiB (1048576 bytes), and the stream was dropped", errFrameTooLarge)
	bad := fmt.Errorf("%w: invalid character 'x'", errBadFrame)

	for i := 0; i < 10; i++ { // a good frame, then a line too long: a retry flood
		r.ended(ending{got: true}, large, time.Second, start.Add(time.Duration(i)*time.Second))
	}
	if lines(&errs) != 1 || !strings.Contains(errs.String(), "maxFrameSize, 1MiB") || !strings.Contains(errs.String(), "raise maxFrameSize") {
		t.Fatalf("ten streams dropped for their size: errors %q", errs.String())
	}
	r.ended(ending{got: true}, bad, time.Second, start.Add(11*time.Second))
	r.ended(ending{got: true}, bad, time.Second, start.Add(12*time.Second))
	if lines(&errs) != 2 || !strings.Contains(errs.String(), "not JSON") {
		t.Fatalf("a frame that is not JSON, another kind: errors %q", errs.String())
	}
	if lines(&debug) != 10 {
		t.Fatalf("each retry after the first of its kind: %d debug lines, want 10", lines(&debug))
	}
	r.ended(ending{got: true, steady: true}, errors.New("EOF"), time.Second, start.Add(60*time.Second))
	r.ended(ending{got: true}, large, time.Second, start.Add(61*time.Second))
	if lines(&errs) != 3 {
		t.Fatalf("a line too long after a steady stream is told again: errors %q", errs.String())
	}
}

// logLines collects the lines a provider logs, from its goroutine.
type logLines struct {
	mu          sync.Mutex
	debug, errs []string
}

// capture sends p's logs to l.
func (l *logLines) capture(p *Provider) {
	p.report.debug = func(line string) { l.mu.Lock(); l.debug = append(l.debug, line); l.mu.Unlock() }
	p.report.errs = func(line string) { l.mu.Lock(); l.errs = append(l.errs, line); l.mu.Unlock() }
}

// errors returns the lines logged at error level so far.
func (l *logLines) errors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errs...)
}
