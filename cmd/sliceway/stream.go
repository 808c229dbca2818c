package main

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/sliceway/sliceway/config/dynamic"
)

// streamHeartbeat is how often an idle stream says it is alive: a client
// that hears nothing for three of them may take the stream for dead.
const streamHeartbeat = 15 * time.Second

// streams serves GET /api/config/stream: one line of JSON per frame, a
// full frame {"version":N,"configuration":{...}} at the start and at each
// new configuration, and a heartbeat {"version":N} when nothing else was
// sent for a while. A client that asks for them (?deltas=true) is sent a
// delta frame instead of a full one when little changed (streamdelta.go).
// A client is told of a new configuration through a channel of one slot
// and takes the newest when it is ready to write: a slow client skips the
// configurations it had no time for and never holds up the render loop or
// the other clients.
//
// Streams are bounded apart from the other connections (limit): at most
// max at once, a new one past it refused with 503 and counted, and a
// client that has not taken a frame within writeTimeout (it stopped
// reading and the socket's buffers are full) is dropped and counted, so
// that it frees its slot.
type streams struct {
	writeTimeout time.Duration // of one frame
	heartbeat    time.Duration
	limit        streamLimit

	mu      sync.Mutex
	version uint64
	conf    *dynamic.Configuration
	clients map[chan struct{}]struct{}
	deltas  deltaTexts
	done    chan struct{} // closed when serve shuts down
	closing sync.Once

	// encode writes a configuration's JSON: latest's, so that the streams
	// and the polls of /api/config share one text of each configuration.
	encode func(*dynamic.Configuration) ([]byte, error)
}

func newStreams(writeTimeout time.Duration, encode func(*dynamic.Configuration) ([]byte, error)) *streams {
	return &streams{writeTimeout: writeTimeout, heartbeat: streamHeartbeat, encode: encode,
		clients: make(map[chan struct{}]struct{}), done: make(chan struct{})}
}

// close ends every stream, so that a graceful shutdown does not wait for
// clients that never hang up.
func (s *streams) close() { s.closing.Do(func() { close(s.done) }) }

// streamHandler is the handler of /api/config/stream, or 404 when serve
// streams nothing.
func (l *latest) streamHandler() http.Handler {
	if l.streams == nil {
		return http.NotFoundHandler()
	}
	return l.streams
}

// publish makes c the newest configuration and wakes every client.
func (s *streams) publish(c *dynamic.Configuration) {
	if s == nil || c == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	s.conf = c
	for wake := range s.clients {
		select {
		case wake <- struct{}{}:
		default: // already woken: it will take the newest
		}
	}
}

// clientCount is how many clients are connected now, for /metrics.
func (s *streams) clientCount() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return float64(len(s.clients))
}

func (s *streams) newest() (uint64, *dynamic.Configuration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, s.conf
}

// subscribe adds a client, or returns nil when max are connected.
func (s *streams) subscribe() chan struct{} {
	wake := make(chan struct{}, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit.max > 0 && len(s.clients) >= s.limit.max {
		return nil
	}
	s.clients[wake] = struct{}{}
	if s.conf != nil {
		wake <- struct{}{}
	}
	return wake
}

func (s *streams) unsubscribe(wake chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.clients, wake)
}

func (s *streams) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	// The server's read timeout would end the request, and its context,
	// while the response goes on: there is nothing more to read.
	_ = rc.SetReadDeadline(time.Time{})
	wake := s.subscribe()
	if wake == nil {
		s.limit.refuse(w, r)
		return
	}
	defer s.unsubscribe(wake)
	// Counted in maxStreams now, not in maxConnections.
	s.limit.conns.streaming(connOf(r.Context()))

	h := w.Header()
	h.Set("Content-Type", "application/x-ndjson")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	wantDeltas := r.URL.Query().Get("deltas") == "true"
	var sent uint64
	var sentConf *dynamic.Configuration // what the client holds: version sent
	// frame writes one whole line and flushes it, within writeTimeout of
	// its start: the server's own deadline, from the request, is moved.
	// A frame not taken within writeTimeout is a stalled reader: dropped.
	frame := func(parts ...[]byte) bool {
		start := time.Now()
		if err := rc.SetWriteDeadline(start.Add(s.writeTimeout)); err != nil {
			return false
		}
		var err error
		for _, p := range parts {
			if _, err = w.Write(p); err != nil {
				break
			}
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			s.limit.dropped(r, err, time.Since(start), s.writeTimeout)
			return false
		}
		return true
	}
	heartbeat := func() bool {
		return frame([]byte(`{"version":` + strconv.FormatUint(sent, 10) + "}\n"))
	}
	// The headers go out at once, so the client knows it is connected
	// before the first configuration.
	if v, _ := s.newest(); v == 0 && !heartbeat() {
		return
	}
	ticker := time.NewTicker(s.heartbeat)
	defer ticker.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-ticker.C:
			if !heartbeat() {
				return
			}
		case <-wake:
			v, c := s.newest()
			if v == sent {
				continue
			}
			var parts [][]byte
			if wantDeltas && sentConf != nil {
				if delta := s.deltas.frame(sentConf, sent, c, v); delta != nil {
					parts = [][]byte{delta}
				}
			}
			if parts == nil {
				text, err := s.encode(c)
				if err != nil {
					// Nothing partial is sent: the client keeps what it has.
					continue
				}
				text = bytes.TrimRight(text, "\n") // the encoder ends its text with one
				parts = [][]byte{[]byte(`{"version":` + strconv.FormatUint(v, 10) + `,"configuration":`), text, []byte("}\n")}
			}
			if !frame(parts...) {
				return
			}
			sent, sentConf = v, c
			ticker.Reset(s.heartbeat)
		}
	}
}
