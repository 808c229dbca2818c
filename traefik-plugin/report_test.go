package slicewayplugin

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
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

	r.ended(true, errors.New("EOF"), 500*time.Millisecond, start)
	for i := 1; i <= 5; i++ { // serve restarting: 5 s of refused connections
		r.ended(false, down, time.Second, start.Add(time.Duration(i)*time.Second))
	}
	if errs.Len() != 0 || lines(&debug) != 6 {
		t.Fatalf("a restart of serve: %d debug lines, errors %q", lines(&debug), errs.String())
	}
	r.ended(false, down, 30*time.Second, start.Add(31*time.Second))
	r.ended(false, down, 30*time.Second, start.Add(61*time.Second))
	if lines(&errs) != 1 || !strings.Contains(errs.String(), "no configuration from serve for 30s") {
		t.Fatalf("out of reach for 30s: errors %q", errs.String())
	}

	r.ended(true, errors.New("EOF"), 500*time.Millisecond, start.Add(90*time.Second))
	errs.Reset()
	refused := fmt.Errorf("%w: %s", errRefused, "403 Forbidden")
	r.ended(false, refused, time.Second, start.Add(91*time.Second))
	r.ended(false, refused, 2*time.Second, start.Add(92*time.Second))
	if lines(&errs) != 1 || !strings.Contains(errs.String(), "403 Forbidden") || !strings.Contains(errs.String(), "refuses this plugin's credentials") {
		t.Fatalf("refused: errors %q", errs.String())
	}
	if !isRefusal(errors.New("remote error: tls: certificate required")) || isRefusal(down) {
		t.Fatal("a refused client certificate is a refusal, a refused connection is not")
	}
}
