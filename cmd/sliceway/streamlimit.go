package main

import (
	"errors"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// streamRetryAfter is what a refused stream client is told to wait before
// it tries again: long enough not to hammer a full server, short enough
// that a proxy which lost its stream is fed again soon.
const streamRetryAfter = 10 * time.Second

// streamLimit is the budget of /api/config/stream, apart from the
// connection limit: a stream holds its connection for as long as it
// lasts, so streams are bounded on their own (serve.maxStreams) and
// their connections leave connLimit's count while they stream. What must
// hold: however many clients open streams and never read them, a probe
// or a poll still finds a connection slot.
type streamLimit struct {
	max   int        // streams at once; 0: no bound (tests)
	conns *connLimit // told which connections stream; nil: none to tell

	refused prometheus.Counter // new streams refused at max; may be nil
	stalled prometheus.Counter // clients dropped for not reading; may be nil
	log     zerolog.Logger     // sampled: many clients may stall at once
}

// refuse answers a stream past max: 503, which a client retries, with
// when to.
func (l *streamLimit) refuse(w http.ResponseWriter, r *http.Request) {
	if l.refused != nil {
		l.refused.Inc()
	}
	l.log.Warn().Str("remote", r.RemoteAddr).Int("maxStreams", l.max).
		Msg("GET /api/config/stream refused: serve.maxStreams streams are open")
	w.Header().Set("Retry-After", strconv.Itoa(int(streamRetryAfter/time.Second)))
	http.Error(w, "too many streams: serve.maxStreams ("+strconv.Itoa(l.max)+") are open; try again later", http.StatusServiceUnavailable)
}

// dropped records a stream that ended on a failed write. A write that
// ran into its deadline (or took the whole of it) means the client did
// not take the frame in time: a stalled reader, counted. A client that
// hung up is not.
func (l *streamLimit) dropped(r *http.Request, err error, took, timeout time.Duration) {
	if !errors.Is(err, os.ErrDeadlineExceeded) && took < timeout {
		return
	}
	if l.stalled != nil {
		l.stalled.Inc()
	}
	l.log.Warn().Str("remote", r.RemoteAddr).Dur("writeTimeout", timeout).
		Msg("stream client dropped: it took no frame within serve.writeTimeout")
}
