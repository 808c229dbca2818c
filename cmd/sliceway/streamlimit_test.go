package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
)

// openIdleStreams opens n connections to addr that each ask for the
// stream and never read a byte of the answer; they are closed at the end
// of the test.
func openIdleStreams(t *testing.T, addr string, n int) {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	for range n {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		require.NoError(t, err)
		conns = append(conns, c)
		_, err = c.Write([]byte("GET /api/config/stream HTTP/1.1\r\nHost: sliceway\r\n\r\n"))
		require.NoError(t, err)
	}
}

// probe is one kubelet probe: a new connection, an answer within a
// second.
func probe(url string) (int, error) {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	_ = res.Body.Close()
	return res.StatusCode, nil
}

// Streams that are never read cannot take the connections probes need:
// with 300 of them open, every /healthz and /metrics answers within a
// second, the streams past serve.maxStreams are refused with 503 and
// counted. With the defaults, and with limits far below the clients.
func TestServeProbesAnswerBesideIdleStreams(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		maxStreams int
	}{
		{"defaults", nil, 64},
		{"small limits", []string{"--serve.maxconnections=16", "--serve.maxstreams=8"}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := freePort(t)
			base := "http://" + addr
			p := startLive(t, append([]string{"serve", "--demo", "--serve.address=" + addr}, tc.args...)...)
			liveEventually(t, p, "/healthz", func() bool { code, err := probe(base + "/healthz"); return err == nil && code == http.StatusOK })

			const clients = 300
			openIdleStreams(t, addr, clients)
			// Each client streams, or is refused, or (past maxConnections)
			// is closed, before or after its refusal, to make room.
			var metrics string
			liveEventually(t, p, "every client streaming, refused or closed", func() bool {
				code, body, _, err := httpGet(t, base+"/metrics")
				metrics = body
				return err == nil && code == http.StatusOK &&
					metricValue(t, body, "sliceway_stream_clients") == float64(tc.maxStreams) &&
					metricValue(t, body, "sliceway_stream_requests_refused_total")+metricValue(t, body, "sliceway_serve_connections_evicted_total") >= clients-float64(tc.maxStreams)
			})
			assert.Positive(t, metricValue(t, metrics, "sliceway_stream_requests_refused_total"))

			for i := range 20 {
				for _, path := range []string{"/healthz", "/metrics"} {
					code, err := probe(base + path)
					require.NoError(t, err, "probe %d of %s beside %d idle streams", i, path, clients)
					require.Equal(t, http.StatusOK, code, "probe %d of %s", i, path)
				}
				time.Sleep(50 * time.Millisecond)
			}
			assert.Equal(t, 0, p.terminate(), p.stderr.String())
			assert.Contains(t, p.stderr.String(), "GET /api/config/stream refused: serve.maxStreams streams are open")
		})
	}
}

// A refused stream is told so and when to come back.
func TestStreamPastMaxStreamsIsRefused(t *testing.T) {
	s := newStreams(time.Minute, (&latest{}).encode)
	refused := prometheus.NewCounter(prometheus.CounterOpts{Name: "refused"})
	s.limit = streamLimit{max: 1, refused: refused}
	srv := httptest.NewServer(newServeMux(&latest{streams: s}, newMetrics(), func(h http.Handler) http.Handler { return h }))
	defer srv.Close()
	defer s.close()

	first, err := http.Get(srv.URL + "/api/config/stream")
	require.NoError(t, err)
	defer func() { _ = first.Body.Close() }()
	require.Equal(t, http.StatusOK, first.StatusCode)

	code, body, header, err := httpGet(t, srv.URL+"/api/config/stream")
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "serve.maxStreams (1)")
	assert.Equal(t, "10", header.Get("Retry-After"))
	assert.Equal(t, 1.0, counterValue(t, refused))

	_ = first.Body.Close()
	require.Eventually(t, func() bool { return s.clientCount() == 0 }, 5*time.Second, 10*time.Millisecond)
	code, _, _, err = httpGetStream(srv.URL + "/api/config/stream")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code, "a slot freed is taken again")
}

// httpGetStream opens a stream and closes it once the status came.
func httpGetStream(url string) (int, string, http.Header, error) {
	res, err := http.Get(url)
	if err != nil {
		return 0, "", nil, err
	}
	_ = res.Body.Close()
	return res.StatusCode, "", res.Header, nil
}

// A client that stops reading is dropped once a frame has waited
// writeTimeout for room in its socket, and counted; a client that hangs
// up is not counted as one.
func TestStreamDropsAStalledReader(t *testing.T) {
	big := []byte(`{"http":{"routers":{"r":{"rule":"Path(\"/` + strings.Repeat("x", 512<<10) + `\")","service":"s"}}}}` + "\n")
	s := newStreams(300*time.Millisecond, func(*dynamic.Configuration) ([]byte, error) { return big, nil })
	m := newMetrics()
	m.countStreams(s)
	s.limit = streamLimit{stalled: m.stalled}
	srv := httptest.NewServer(newServeMux(&latest{streams: s}, m, func(h http.Handler) http.Handler { return h }))
	defer srv.Close()
	defer s.close()

	// One that hangs up after its first frame.
	s.publish(serveTestConfiguration(`Path("/a")`))
	gone, err := http.Get(srv.URL + "/api/config/stream")
	require.NoError(t, err)
	_, err = bufio.NewReader(gone.Body).ReadString('\n')
	require.NoError(t, err)
	_ = gone.Body.Close()
	require.Eventually(t, func() bool { return s.clientCount() == 0 }, 5*time.Second, 10*time.Millisecond)

	// One that never reads, with a small receive window.
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	require.NoError(t, conn.(*net.TCPConn).SetReadBuffer(4096))
	_, err = fmt.Fprintf(conn, "GET /api/config/stream HTTP/1.1\r\nHost: sliceway\r\n\r\n")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return s.clientCount() == 1 }, 5*time.Second, 10*time.Millisecond)

	// New configurations until its buffers are full and a frame waits.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				s.publish(serveTestConfiguration(`Path("/b")`))
			}
		}
	})
	defer wg.Wait()
	defer close(stop)
	require.Eventually(t, func() bool { return counterValue(t, m.stalled) == 1 }, 20*time.Second, 20*time.Millisecond,
		"the stalled client is dropped and counted")
	require.Eventually(t, func() bool { return s.clientCount() == 0 }, 5*time.Second, 10*time.Millisecond, "its slot is free")
	code, body, _, err := httpGet(t, srv.URL+"/metrics")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, 1.0, metricValue(t, body, "sliceway_stream_clients_dropped_total"))
}

// fakeConn is a connection connLimit tracks; closing it is recorded.
type fakeConn struct {
	net.Conn
	mu     sync.Mutex
	closed bool
}

func (c *fakeConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

func (c *fakeConn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// A connection serving an admitted stream leaves the count: idle
// connections are closed to make room, never the newcomer, however many
// streams are open; when a stream ends its connection counts again.
func TestConnLimitCountsStreamsApart(t *testing.T) {
	evicted := prometheus.NewCounter(prometheus.CounterOpts{Name: "evicted"})
	l := newConnLimit(2, evicted)
	conn := func() *fakeConn { return &fakeConn{} }
	streams := []*fakeConn{conn(), conn(), conn()}
	for _, c := range streams {
		l.track(c, http.StateNew)
		l.track(c, http.StateActive)
		l.streaming(c)
	}
	idle1, idle2 := conn(), conn()
	l.track(idle1, http.StateNew)
	time.Sleep(time.Millisecond)
	l.track(idle2, http.StateNew)
	probe := conn()
	l.track(probe, http.StateNew)
	require.Eventually(t, idle1.isClosed, time.Second, time.Millisecond, "the longest waiting goes")
	assert.False(t, probe.isClosed(), "the newcomer stays: three streams do not count")
	assert.False(t, idle2.isClosed())
	for _, c := range streams {
		assert.False(t, c.isClosed(), "a stream is never closed")
	}
	assert.Equal(t, 1.0, counterValue(t, evicted))

	// Two streams end: their connections wait for a request, counted.
	time.Sleep(time.Millisecond)
	l.track(streams[0], http.StateIdle)
	l.track(streams[1], http.StateIdle)
	late := conn()
	l.track(late, http.StateNew)
	require.Eventually(t, func() bool { return idle2.isClosed() && probe.isClosed() && streams[0].isClosed() }, time.Second, time.Millisecond,
		"back to two counted: the three that waited longest go")
	assert.Equal(t, 4.0, counterValue(t, evicted))
	assert.False(t, streams[1].isClosed(), "waited the least of them")
	assert.False(t, late.isClosed())
	assert.False(t, streams[2].isClosed())
}
