package slicewayplugin

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Traefik logs what a plugin writes to its standard output at debug
// level and what it writes to its standard error at error level.

// errRefused wraps an answer of serve that trying again will not change
// until someone changes the credentials: 401 or 403. (A sentinel, not an
// error type: errors.As fails on the interpreter's types.)
var errRefused = errors.New("refused")

// isRefusal says whether err is a refusal: serve's status, or a TLS
// handshake that one side refused.
func isRefusal(err error) bool {
	if errors.Is(err, errRefused) {
		return true
	}
	text := err.Error()
	return strings.Contains(text, "remote error: tls:") || strings.Contains(text, "x509:") || strings.Contains(text, "tls: failed to verify")
}

// reporter says why streams end at the level they deserve: a stream that
// worked and ended (serve restarted, a rolling update) and the first
// failures after it are routine, told at debug level; a refusal is told
// as an error at once, and any other failure once serve has been out of
// reach for outage. Each is told once at error level until the plugin
// streams again, and otherwise at debug level.
type reporter struct {
	name, url string
	outage    time.Duration
	debug     io.Writer
	errs      io.Writer

	since time.Time // the first failure since the last stream that worked; zero: none
	told  string    // the error told at error level since then
}

// ended reports the end of a stream: got says whether it handed on a
// configuration; wait is the time before the next one.
func (r *reporter) ended(got bool, err error, wait time.Duration, now time.Time) {
	if got {
		r.since, r.told = time.Time{}, ""
	} else if r.since.IsZero() {
		r.since = now
	}
	line := fmt.Sprintf("plugin-%s: the stream of %s ended (%v); again in %s", r.name, r.url, err, wait)
	switch {
	case got || err == nil:
	case isRefusal(err) && r.told != err.Error():
		r.told = err.Error()
		fmt.Fprintf(r.errs, "%s: serve refuses this plugin's credentials (ca, cert and key, or tokenFile); Traefik keeps its last configuration\n", line)
		return
	case !isRefusal(err) && r.told == "" && now.Sub(r.since) >= r.outage:
		r.told = err.Error()
		fmt.Fprintf(r.errs, "%s: no configuration from serve for %s; Traefik keeps its last one\n", line, now.Sub(r.since).Round(time.Second))
		return
	}
	fmt.Fprintln(r.debug, line)
}
