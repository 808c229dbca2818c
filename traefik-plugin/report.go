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

// reporter says why streams end at the level they deserve: a stream that
// worked and ended (serve restarted, a rolling update) and the first
// failures after it are routine, told at debug level; a refusal is told
// as an error at once, and any other failure once serve has been out of
// reach for outage. Each is told once at error level until the plugin
// streams again, and otherwise at debug level.
type reporter struct {
	name, url string
	outage    time.Duration
	debug     func(line string) // fmt.Println in Traefik
	errs      func(line string) // log.Println in Traefik

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
		r.errs(line + ": serve refuses this plugin's credentials (ca, cert and key, or tokenFile); Traefik keeps its last configuration")
		return
	case !isRefusal(err) && r.told == "" && now.Sub(r.since) >= r.outage:
		r.told = err.Error()
		r.errs(fmt.Sprintf("%s: no configuration from serve for %s; Traefik keeps its last one", line, now.Sub(r.since).Round(time.Second)))
		return
	}
	r.debug(line)
}
