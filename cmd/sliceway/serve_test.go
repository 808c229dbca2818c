package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
)

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, c.Write(&m))
	return m.GetCounter().GetValue()
}

func serveTestConfiguration(rule string) *dynamic.Configuration {
	return &dynamic.Configuration{HTTP: &dynamic.HTTPConfiguration{
		Routers:  map[string]*dynamic.Router{"r": {Rule: rule, Service: "s"}},
		Services: map[string]*dynamic.Service{"s": {LoadBalancer: dynamic.NewServersLoadBalancer()}},
	}}
}

// A configuration is written when it is first read, and only the newest:
// those that no poll read are never written.
func TestServeWritesTheConfigurationsThatAreRead(t *testing.T) {
	encoded := prometheus.NewCounter(prometheus.CounterOpts{Name: "encoded"})
	l := &latest{encoded: encoded}
	srv := httptest.NewServer(newServeMux(l, newMetrics(), func(h http.Handler) http.Handler { return h }))
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer func() { _ = res.Body.Close() }()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(body)
	}
	text := func(c *dynamic.Configuration) string {
		t.Helper()
		data, err := (&dynamic.JSONEncoder{}).Encode(c)
		require.NoError(t, err)
		return string(data)
	}

	code, _ := get("/api/config")
	assert.Equal(t, http.StatusServiceUnavailable, code, "before the first configuration")
	code, _ = get("/healthz")
	assert.Equal(t, http.StatusServiceUnavailable, code)

	a, b, c := serveTestConfiguration(`Path("/a")`), serveTestConfiguration(`Path("/b")`), serveTestConfiguration(`Path("/c")`)
	l.set(a)
	l.set(b)
	code, _ = get("/healthz")
	assert.Equal(t, http.StatusOK, code)
	assert.Zero(t, counterValue(t, encoded), "nothing read yet, nothing written")

	code, body := get("/api/config")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, text(b), body, "the newest")
	assert.Equal(t, 1.0, counterValue(t, encoded), "a was never read")
	_, body = get("/api/config")
	assert.Equal(t, text(b), body)
	assert.Equal(t, 1.0, counterValue(t, encoded), "the same configuration is written once")

	l.set(c)
	var wg sync.WaitGroup
	for range 8 { // Traefik replicas polling at once
		wg.Go(func() {
			_, body := get("/api/config")
			assert.Equal(t, text(c), body)
		})
	}
	wg.Wait()
	assert.Equal(t, 2.0, counterValue(t, encoded))
}
