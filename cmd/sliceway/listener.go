package main

import (
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/sliceway/sliceway/config/static"
)

// connLimit keeps at most max connections open. When a new one comes past
// the limit, the connection that has waited longest without a request in
// progress (idle between requests, or new and not yet sending) is closed:
// idle or silent clients cannot hold every slot, so a probe or a proxy's
// poll always gets in. Connections serving a request are never closed; if
// all are busy, the new one is.
type connLimit struct {
	max     int
	evicted prometheus.Counter

	mu    sync.Mutex
	conns map[net.Conn]connSlot
}

type connSlot struct {
	busy  bool
	since time.Time // of the last change between busy and waiting
}

func newConnLimit(max int, evicted prometheus.Counter) *connLimit {
	return &connLimit{max: max, evicted: evicted, conns: make(map[net.Conn]connSlot)}
}

// track is the server's ConnState hook.
func (l *connLimit) track(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	var victim net.Conn
	switch state {
	case http.StateNew:
		l.conns[c] = connSlot{since: time.Now()}
		if len(l.conns) > l.max {
			victim = l.oldestWaiting(c)
		}
	case http.StateActive:
		l.conns[c] = connSlot{busy: true, since: time.Now()}
	case http.StateIdle:
		l.conns[c] = connSlot{since: time.Now()}
	case http.StateHijacked, http.StateClosed:
		delete(l.conns, c)
	}
	if victim != nil {
		delete(l.conns, victim)
	}
	l.mu.Unlock()
	if victim != nil {
		l.evicted.Inc()
		// Closing a TLS connection writes an alert; not on the new
		// connection's goroutine.
		go func() { _ = victim.Close() }()
	}
}

// oldestWaiting is the connection without a request in progress that has
// waited longest, else the newcomer.
func (l *connLimit) oldestWaiting(newcomer net.Conn) net.Conn {
	victim := newcomer
	var since time.Time
	for c, slot := range l.conns {
		if c == newcomer || slot.busy {
			continue
		}
		if victim == newcomer || slot.since.Before(since) {
			victim, since = c, slot.since
		}
	}
	return victim
}

// newHTTPServer is serve's server: its timeouts, its connection limit and
// Go's own server errors (TLS handshakes that fail, bad requests) logged
// through the configured logger, so they follow log.format.
func newHTTPServer(opts *static.Serve, handler http.Handler, limit *connLimit, logger zerolog.Logger) *http.Server {
	readTimeout := time.Duration(opts.ReadTimeout)
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: min(readTimeout, 10*time.Second),
		ReadTimeout:       readTimeout,
		WriteTimeout:      time.Duration(opts.WriteTimeout),
		IdleTimeout:       time.Duration(opts.IdleTimeout),
		MaxHeaderBytes:    64 << 10,
		ConnState:         limit.track,
		ErrorLog:          log.New(serverLogWriter{logger.Sample(&zerolog.BurstSampler{Burst: 10, Period: time.Minute})}, "", 0),
	}
}

// serverLogWriter turns the lines of Go's server log into warnings.
type serverLogWriter struct{ log zerolog.Logger }

func (w serverLogWriter) Write(p []byte) (int, error) {
	w.log.Warn().Str("component", "http").Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}
