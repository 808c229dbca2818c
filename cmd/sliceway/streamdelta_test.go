package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
)

// deltaTestConfiguration has n routers and services, r0..r(n-1) and
// s0..s(n-1).
func deltaTestConfiguration(n int) *dynamic.Configuration {
	c := &dynamic.Configuration{HTTP: &dynamic.HTTPConfiguration{Routers: map[string]*dynamic.Router{}, Services: map[string]*dynamic.Service{}}}
	for i := range n {
		c.HTTP.Routers[fmt.Sprint("r", i)] = &dynamic.Router{Rule: fmt.Sprintf(`Path("/%d")`, i), Service: fmt.Sprint("s", i)}
		lb := dynamic.NewServersLoadBalancer()
		lb.Servers = []dynamic.Server{{URL: fmt.Sprintf("http://10.0.0.%d:80", i)}}
		c.HTTP.Services[fmt.Sprint("s", i)] = &dynamic.Service{LoadBalancer: lb}
	}
	return c
}

// next is c with the values of the new maps: what the provider's patch
// gives, every unchanged value the same pointer.
func next(c *dynamic.Configuration, change func(h *dynamic.HTTPConfiguration)) *dynamic.Configuration {
	h := &dynamic.HTTPConfiguration{Routers: maps.Clone(c.HTTP.Routers), Services: maps.Clone(c.HTTP.Services)}
	change(h)
	return &dynamic.Configuration{HTTP: h, TLS: c.TLS}
}

func TestDiffConfigurations(t *testing.T) {
	a := deltaTestConfiguration(8)
	lb := dynamic.NewServersLoadBalancer()
	lb.Servers = []dynamic.Server{{URL: "http://10.0.1.1:80"}}
	changed := &dynamic.Service{LoadBalancer: lb}
	b := next(a, func(h *dynamic.HTTPConfiguration) {
		h.Services["s3"] = changed
		delete(h.Routers, "r7")
	})
	d := diffConfigurations(a, b)
	require.NotNil(t, d)
	assert.Equal(t, map[string]*dynamic.Service{"s3": changed}, d.Services)
	assert.Equal(t, map[string]*dynamic.Router{"r7": nil}, d.Routers, "a removed router is null")
	assert.Nil(t, d.Rest, "nothing else changed")

	cert := &dynamic.CertAndStores{Certificate: dynamic.Certificate{CertFile: "c", KeyFile: "k"}}
	withCert := next(b, func(*dynamic.HTTPConfiguration) {})
	withCert.TLS = &dynamic.TLSConfiguration{Certificates: []*dynamic.CertAndStores{cert}}
	d = diffConfigurations(b, withCert)
	require.NotNil(t, d)
	assert.Empty(t, d.Routers)
	assert.Empty(t, d.Services)
	require.NotNil(t, d.Rest, "a new certificate: the rest is sent whole")
	assert.Equal(t, withCert.TLS, d.Rest.TLS)
	assert.Equal(t, &configDelta{}, diffConfigurations(withCert, next(withCert, func(*dynamic.HTTPConfiguration) {})), "nothing changed: an empty delta")

	most := next(a, func(h *dynamic.HTTPConfiguration) {
		for k := range h.Services {
			h.Services[k] = &dynamic.Service{LoadBalancer: dynamic.NewServersLoadBalancer()}
		}
	})
	assert.Nil(t, diffConfigurations(a, most), "half of the entries changed: a full frame is cheaper")
}

type deltaTestFrame struct {
	Version       uint64          `json:"version"`
	Base          uint64          `json:"base"`
	Configuration json.RawMessage `json:"configuration"`
	Delta         *struct {
		Routers  map[string]json.RawMessage `json:"routers"`
		Services map[string]json.RawMessage `json:"services"`
		Rest     json.RawMessage            `json:"rest"`
	} `json:"delta"`
}

// A client that asks for deltas gets a full frame first, then a delta
// onto the version it holds when little changed, and a full frame when
// much did; a client that does not ask gets full frames only.
func TestStreamSendsDeltas(t *testing.T) {
	s := newStreams(time.Minute, (&latest{}).encode)
	l := &latest{streams: s}
	srv := httptest.NewServer(newServeMux(l, newMetrics(), func(h http.Handler) http.Handler { return h }))
	defer srv.Close()
	defer s.close()
	open := func(query string) <-chan deltaTestFrame {
		t.Helper()
		res, err := http.Get(srv.URL + "/api/config/stream" + query)
		require.NoError(t, err)
		t.Cleanup(func() { _ = res.Body.Close() })
		frames := make(chan deltaTestFrame, 16)
		go func() {
			defer close(frames)
			lines := bufio.NewScanner(res.Body)
			lines.Buffer(nil, 16<<20)
			for lines.Scan() {
				var f deltaTestFrame
				if err := json.Unmarshal(lines.Bytes(), &f); err != nil {
					t.Errorf("a frame that is not one JSON value: %v", err)
					return
				}
				if f.Configuration != nil || f.Delta != nil {
					frames <- f
				}
			}
		}()
		return frames
	}
	take := func(frames <-chan deltaTestFrame) deltaTestFrame {
		t.Helper()
		select {
		case f, ok := <-frames:
			require.True(t, ok, "the stream ended")
			return f
		case <-time.After(5 * time.Second):
			t.Fatal("no frame within 5s")
			return deltaTestFrame{}
		}
	}
	encode := func(v any) string {
		t.Helper()
		data, err := json.Marshal(v)
		require.NoError(t, err)
		return string(data)
	}

	a := deltaTestConfiguration(8)
	s.publish(a)
	withDeltas, without := open("?deltas=true"), open("")
	for _, frames := range []<-chan deltaTestFrame{withDeltas, without} {
		f := take(frames)
		assert.Equal(t, uint64(1), f.Version)
		assert.NotNil(t, f.Configuration, "the first frame is full")
	}

	lb := dynamic.NewServersLoadBalancer()
	lb.Servers = []dynamic.Server{{URL: "http://10.0.1.1:80"}}
	changed := &dynamic.Service{LoadBalancer: lb}
	b := next(a, func(h *dynamic.HTTPConfiguration) {
		h.Services["s3"] = changed
		delete(h.Routers, "r7")
	})
	s.publish(b)
	f := take(withDeltas)
	assert.Equal(t, uint64(2), f.Version)
	assert.Equal(t, uint64(1), f.Base, "onto the version the client holds")
	assert.Nil(t, f.Configuration)
	require.NotNil(t, f.Delta)
	assert.Equal(t, map[string]json.RawMessage{"s3": json.RawMessage(encode(changed))}, f.Delta.Services)
	assert.Equal(t, map[string]json.RawMessage{"r7": json.RawMessage("null")}, f.Delta.Routers)
	assert.Nil(t, f.Delta.Rest)
	f = take(without)
	assert.Equal(t, uint64(2), f.Version)
	assert.Nil(t, f.Delta, "a client that did not ask gets no delta")
	assert.NotNil(t, f.Configuration)

	c := deltaTestConfiguration(8) // every value a new pointer
	s.publish(c)
	f = take(withDeltas)
	assert.Equal(t, uint64(3), f.Version)
	assert.Nil(t, f.Delta, "everything changed: a full frame")
	text, err := (&dynamic.JSONEncoder{}).Encode(c)
	require.NoError(t, err)
	assert.JSONEq(t, string(text), string(f.Configuration))
}
