package main

import (
	"context"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/sliceway/sliceway/config/static"
)

// connLimit keeps at most max connections open, streams aside. When a new
// one comes past the limit, the connections that have waited longest
// without a request in progress (idle between requests, or new and not
// yet sending) are closed: idle or silent clients cannot hold every slot,
// so a probe or a proxy's poll always gets in. Connections serving a
// request are never closed; if all are busy, the new one is.
//
// A stream of /api/config/stream is a request that never ends: were it
// counted here, streams that are never read would hold every slot and no
// probe would get in. An admitted stream's connection is counted in
// serve.maxStreams instead (streamLimit), and leaves this count while it
// streams; it comes back when its response ends and it waits for another
// request. So the process holds at most maxConnections + maxStreams
// connections, and streams can never take the slots probes need.
type connLimit struct {
	max     int
	evicted prometheus.Counter

	mu    sync.Mutex
	conns map[net.Conn]connSlot
}

type connSlot struct {
	busy   bool
	stream bool      // serving an admitted stream: counted in maxStreams, not here
	since  time.Time // of the last change between busy and waiting
}

func newConnLimit(max int, evicted prometheus.Counter) *connLimit {
	return &connLimit{max: max, evicted: evicted, conns: make(map[net.Conn]connSlot)}
}

// track is the server's ConnState hook.
func (l *connLimit) track(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	var victims []net.Conn
	switch state {
	case http.StateNew:
		l.conns[c] = connSlot{since: time.Now()}
		victims = l.excess(c)
	case http.StateActive:
		l.conns[c] = connSlot{busy: true, since: time.Now()}
	case http.StateIdle:
		l.conns[c] = connSlot{since: time.Now()}
	case http.StateHijacked, http.StateClosed:
		delete(l.conns, c)
	}
	for _, v := range victims {
		delete(l.conns, v)
	}
	l.mu.Unlock()
	for _, v := range victims {
		l.evicted.Inc()
		// Closing a TLS connection writes an alert; not on the new
		// connection's goroutine.
		go func() { _ = v.Close() }()
	}
}

// streaming moves c, whose request has been admitted as a stream, out of
// the count: the stream budget bounds it now. Its next state change
// (idle when the stream ends, or closed) brings it back or removes it.
func (l *connLimit) streaming(c net.Conn) {
	if l == nil || c == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if slot, ok := l.conns[c]; ok {
		slot.stream = true
		l.conns[c] = slot
	}
}

// excess chooses the connections to close so that at most max are
// counted after newcomer came: the ones without a request in progress
// that have waited longest, else the newcomer alone. More than one when
// streams that ended came back into the count past the limit.
func (l *connLimit) excess(newcomer net.Conn) []net.Conn {
	counted := 0
	var waiting []net.Conn
	for c, slot := range l.conns {
		if slot.stream {
			continue
		}
		counted++
		if c != newcomer && !slot.busy {
			waiting = append(waiting, c)
		}
	}
	over := counted - l.max
	if over <= 0 {
		return nil
	}
	if len(waiting) < over {
		// Closing the waiting ones would not make room: the newcomer goes,
		// and the others keep what they have.
		return []net.Conn{newcomer}
	}
	slices.SortFunc(waiting, func(a, b net.Conn) int { return l.conns[a].since.Compare(l.conns[b].since) })
	return waiting[:over]
}

// connKey is the request context's key of its connection (ConnContext),
// which the stream handler hands to connLimit.streaming.
type connKey struct{}

func connOf(ctx context.Context) net.Conn {
	c, _ := ctx.Value(connKey{}).(net.Conn)
	return c
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
		ConnContext:       func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) },
		ErrorLog:          log.New(serverLogWriter{logger.Sample(&zerolog.BurstSampler{Burst: 10, Period: time.Minute})}, "", 0),
	}
}

// serverLogWriter turns the lines of Go's server log into warnings.
type serverLogWriter struct{ log zerolog.Logger }

func (w serverLogWriter) Write(p []byte) (int, error) {
	w.log.Warn().Str("component", "http").Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}
