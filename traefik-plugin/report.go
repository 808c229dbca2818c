package slicewayplugin

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Traefik gives its plugin interpreter a standard output it logs at debug
// level and a standard error it logs at error level. The interpreter
// sends fmt.Print* to the first and the log package to the second; os.Stdout
// and os.Stderr stay the process's own.

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

// isBreach says whether err is a frame no sliceway serve writes: a line
// over maxFrameSize, or one that is not JSON. It returns the kind, told
// once, and what the user can do.
func isBreach(err error) (kind, advice string) {
	switch {
	case errors.Is(err, errFrameTooLarge):
		return errFrameTooLarge.Error(), "raise maxFrameSize if serve's configurations are this large"
	case errors.Is(err, errBadFrame):
		return errBadFrame.Error(), "is endpoint a sliceway serve?"
	}
	return "", ""
}

// reporter says why streams end at the level they deserve: a stream that
// worked and ended (serve restarted, a rolling update) and the first
// failures after it are routine, told at debug level; a refusal and a
// frame no serve writes (too large, not JSON) are told as errors at once,
// and any other failure once serve has handed on no configuration for
// outage. Each kind is told once at error level until a stream is steady
// again (not merely after a configuration: a server that sends one and
// then a bad frame would be told of at every retry), and otherwise at
// debug level.
type reporter struct {
	name, url string
	outage    time.Duration
	debug     func(line string) // fmt.Println in Traefik
	errs      func(line string) // log.Println in Traefik

	since time.Time       // the first failure since a configuration was handed on; zero: none
	told  map[string]bool // the kinds told at error level since the last steady stream
}

// ended reports the end of a stream: how it went, why, and the time
// before the next one.
func (r *reporter) ended(end ending, err error, wait time.Duration, now time.Time) {
	if end.steady || r.told == nil {
		r.told = map[string]bool{}
	}
	if end.got {
		r.since = time.Time{}
	} else if r.since.IsZero() {
		r.since = now
	}
	line := fmt.Sprintf("plugin-%s: the stream of %s ended (%v); again in %s", r.name, r.url, err, wait)
	kind, advice := isBreach(err)
	switch {
	case err == nil:
	case isRefusal(err):
		kind, advice = err.Error(), "serve refuses this plugin's credentials (ca, cert and key, or tokenFile)"
	case kind != "":
	case !end.got && len(r.told) == 0 && now.Sub(r.since) >= r.outage:
		kind, advice = "outage", fmt.Sprintf("no configuration from serve for %s", now.Sub(r.since).Round(time.Second))
	}
	if kind == "" || r.told[kind] {
		r.debug(line)
		return
	}
	r.told[kind] = true
	r.errs(line + ": " + advice + "; Traefik keeps its last configuration")
}
