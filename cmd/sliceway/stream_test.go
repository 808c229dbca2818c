package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/pki"
)

type streamFrame struct {
	Version       uint64          `json:"version"`
	Configuration json.RawMessage `json:"configuration"`
}

// readFrames decodes the stream's lines onto a channel, each checked to
// be one whole JSON value.
func readFrames(t *testing.T, res *http.Response) <-chan streamFrame {
	t.Helper()
	frames := make(chan streamFrame, 64)
	go func() {
		defer close(frames)
		lines := bufio.NewScanner(res.Body)
		lines.Buffer(nil, 64<<20)
		for lines.Scan() {
			var f streamFrame
			if err := json.Unmarshal(lines.Bytes(), &f); err != nil {
				t.Errorf("a frame that is not one JSON value: %v: %.200s", err, lines.Text())
				return
			}
			frames <- f
		}
	}()
	return frames
}

func nextFrame(t *testing.T, frames <-chan streamFrame, within time.Duration) streamFrame {
	t.Helper()
	select {
	case f, ok := <-frames:
		require.True(t, ok, "the stream ended")
		return f
	case <-time.After(within):
		t.Fatalf("no frame within %s", within)
		return streamFrame{}
	}
}

// A new configuration reaches every open stream at once, as a full frame
// of the same text /api/config serves; an idle stream beats; a client
// that does not read holds up neither publish nor the other clients, and
// gets the newest when it reads again.
func TestStreamSendsEachNewConfiguration(t *testing.T) {
	s := newStreams(time.Minute, (&latest{}).encode)
	s.heartbeat = 200 * time.Millisecond
	l := &latest{streams: s}
	srv := httptest.NewServer(newServeMux(l, newMetrics(), func(h http.Handler) http.Handler { return h }))
	defer srv.Close()
	defer s.close() // else Close waits for the streams
	text := func(c *dynamic.Configuration) string {
		t.Helper()
		data, err := (&dynamic.JSONEncoder{}).Encode(c)
		require.NoError(t, err)
		return strings.TrimSpace(string(data))
	}
	open := func() (*http.Response, <-chan streamFrame) {
		t.Helper()
		res, err := http.Get(srv.URL + "/api/config/stream")
		require.NoError(t, err)
		t.Cleanup(func() { _ = res.Body.Close() })
		require.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "application/x-ndjson", res.Header.Get("Content-Type"))
		return res, readFrames(t, res)
	}

	_, early := open()
	f := nextFrame(t, early, time.Second)
	assert.Equal(t, streamFrame{}, f, "before any configuration: a heartbeat of version 0")

	a, b := serveTestConfiguration(`Path("/a")`), serveTestConfiguration(`Path("/b")`)
	l.set(a)
	s.publish(a)
	f = nextFrame(t, early, time.Second)
	assert.Equal(t, uint64(1), f.Version)
	assert.JSONEq(t, text(a), string(f.Configuration))

	_, late := open()
	f = nextFrame(t, late, time.Second)
	assert.Equal(t, uint64(1), f.Version, "a new client starts with the newest, whole")
	assert.JSONEq(t, text(a), string(f.Configuration))

	// A client that stops reading: publish must not wait for it.
	stuck, err := http.Get(srv.URL + "/api/config/stream")
	require.NoError(t, err)
	defer func() { _ = stuck.Body.Close() }()

	published := make(chan struct{})
	go func() {
		for range 50 {
			s.publish(serveTestConfiguration(`Path("/` + strings.Repeat("x", 4000) + `")`))
		}
		l.set(b)
		s.publish(b)
		close(published)
	}()
	select {
	case <-published:
	case <-time.After(5 * time.Second):
		t.Fatal("publish waited for a client")
	}
	for _, frames := range []<-chan streamFrame{early, late} {
		for {
			f = nextFrame(t, frames, 2*time.Second)
			if f.Version == 52 && f.Configuration != nil {
				break
			}
			require.Less(t, f.Version, uint64(52))
		}
		assert.JSONEq(t, text(b), string(f.Configuration), "the last configuration, whole")
		f = nextFrame(t, frames, time.Second)
		assert.Equal(t, streamFrame{Version: 52}, f, "then a heartbeat naming it")
	}
	// The stuck client reads at last: its frames are whole and end with
	// the newest.
	lines := bufio.NewScanner(stuck.Body)
	lines.Buffer(nil, 64<<20)
	var last streamFrame
	for last.Version != 52 && lines.Scan() {
		last = streamFrame{}
		require.NoError(t, json.Unmarshal(lines.Bytes(), &last), "a whole frame")
	}
	assert.Equal(t, uint64(52), last.Version)
	assert.JSONEq(t, text(b), string(last.Configuration))
}

// Through the real binary, over HTTPS with a bearer token: the stream
// needs the credentials /api/config needs, its first frame is what
// /api/config serves, and it outlives serve's read and write timeouts
// (2s here), beating every 15s.
func TestServeStreamsOverHTTPS(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "server CA")
	certPEM, keyPEM := ca.issue(t, "sliceway", pki.ServerAuth)
	addr := freePort(t)
	base := "https://" + addr
	p := startLive(t, "serve", "--demo", "--serve.address="+addr,
		"--serve.tls.cert="+writePEM(t, dir, "tls.crt", certPEM), "--serve.tls.key="+writePEM(t, dir, "tls.key", keyPEM),
		"--serve.tokenfile="+writePEM(t, dir, "token", []byte("stream-token")),
		"--serve.readtimeout=2s", "--serve.writetimeout=2s")
	c := tlsClient(ca)
	liveEventually(t, p, "/healthz", func() bool {
		res, err := c.Get(base + "/healthz")
		if err != nil {
			return false
		}
		_ = res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	for name, header := range map[string][]string{"no token": nil, "a wrong token": {"Authorization", "Bearer guess"}} {
		code, body, _ := fetch(t, c, base+"/api/config/stream", header...)
		assert.Equal(t, http.StatusUnauthorized, code, name)
		assert.NotContains(t, body, "configuration", name)
	}
	code, want, _ := fetch(t, c, base+"/api/config", "Authorization", "Bearer stream-token")
	require.Equal(t, http.StatusOK, code)

	req, err := http.NewRequest(http.MethodGet, base+"/api/config/stream", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer stream-token")
	streaming := tlsClient(ca)
	streaming.Timeout = 0
	res, err := streaming.Do(req)
	require.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	require.Equal(t, http.StatusOK, res.StatusCode)
	frames := readFrames(t, res)
	f := nextFrame(t, frames, 10*time.Second)
	assert.Equal(t, uint64(1), f.Version)
	assert.JSONEq(t, want, string(f.Configuration), "the first frame is /api/config")
	f = nextFrame(t, frames, 20*time.Second)
	assert.Equal(t, streamFrame{Version: 1}, f, "a heartbeat, past both timeouts")
	assert.Equal(t, 0, p.terminate(), p.stderr.String())
}

// TestStreamClientsInMetrics: /metrics says how many clients the stream
// has, as they come and go.
func TestStreamClientsInMetrics(t *testing.T) {
	s := newStreams(time.Minute, (&latest{}).encode)
	m := newMetrics()
	m.countStreams(s)
	srv := httptest.NewServer(newServeMux(&latest{streams: s}, m, func(h http.Handler) http.Handler { return h }))
	defer srv.Close()
	defer s.close()
	clients := func() float64 {
		t.Helper()
		code, body, _, err := httpGet(t, srv.URL+"/metrics")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, code)
		return metricValue(t, body, "sliceway_stream_clients")
	}
	require.Zero(t, clients())
	var open []*http.Response
	for range 2 {
		res, err := http.Get(srv.URL + "/api/config/stream")
		require.NoError(t, err)
		nextFrame(t, readFrames(t, res), time.Second) // connected: the first heartbeat came
		open = append(open, res)
	}
	require.Equal(t, 2.0, clients())
	_ = open[0].Body.Close()
	require.Eventually(t, func() bool { return clients() == 1 }, 5*time.Second, 10*time.Millisecond, "a client that hung up is gone")
	_ = open[1].Body.Close()
	require.Eventually(t, func() bool { return clients() == 0 }, 5*time.Second, 10*time.Millisecond)
}
