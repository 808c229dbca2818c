package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/sliceway/sliceway/config/dynamic"
)

// A delta frame tells a client that asked for them (?deltas=true) what
// changed since the configuration it was sent last:
//
//	{"version":N,"base":M,"delta":{"routers":{...},"services":{...},"rest":{...}}}
//
// routers and services hold the entries that are new or changed, and null
// for those removed; rest, when present, is the whole configuration but its
// routers and services (middlewares, servers transports, the tcp section,
// certificates),
// which replaces the client's. A client applies a delta only onto version
// base; the stream never sends one onto anything else.
type configDelta struct {
	Routers  map[string]*dynamic.Router  `json:"routers,omitempty"`
	Services map[string]*dynamic.Service `json:"services,omitempty"`
	Rest     *dynamic.Configuration      `json:"rest,omitempty"`
}

// deltaShare is the most a delta may change, as a part of the routers and
// services of the new configuration, for it to be sent instead of the
// whole: beyond it the full text, which the encoder mostly copies, costs
// about as much to write and less for the client to take in.
const deltaShare = 4 // a quarter

// diffConfigurations is the delta from old to c, or nil when a full frame
// is the cheaper one. Values are compared by pointer: the provider keeps
// the pointers of what did not change and never modifies a configuration
// it sent, so an equal pointer is an equal value (a new pointer to an
// equal value is sent again, which is only wasteful).
func diffConfigurations(old, c *dynamic.Configuration) *configDelta {
	oh, nh := httpOf(old), httpOf(c)
	d := &configDelta{Routers: diffMaps(oh.Routers, nh.Routers), Services: diffMaps(oh.Services, nh.Services)}
	if (len(d.Routers)+len(d.Services))*deltaShare > max(len(nh.Routers)+len(nh.Services), 1) {
		return nil
	}
	if !sameMap(oh.Middlewares, nh.Middlewares) || !sameMap(oh.ServersTransports, nh.ServersTransports) || !sameCertificates(old.TLS, c.TLS) || !sameTCP(old, c) {
		d.Rest = &dynamic.Configuration{TLS: c.TLS, TCP: c.TCP, HTTP: &dynamic.HTTPConfiguration{Middlewares: nh.Middlewares, ServersTransports: nh.ServersTransports}}
	}
	return d
}

// sameTCP says whether old and c have the same TCP section: the same
// pointers (the provider keeps the section's pointer while it does not
// change), or both empty.
func sameTCP(old, c *dynamic.Configuration) bool {
	var a, b *dynamic.TCPConfiguration
	if old != nil {
		a = old.TCP
	}
	if c != nil {
		b = c.TCP
	}
	if a == nil || b == nil {
		return (a == nil || len(a.Routers)+len(a.Services) == 0) && (b == nil || len(b.Routers)+len(b.Services) == 0)
	}
	return a == b || sameMap(a.Routers, b.Routers) && sameMap(a.Services, b.Services)
}

func httpOf(c *dynamic.Configuration) *dynamic.HTTPConfiguration {
	if c == nil || c.HTTP == nil {
		return &dynamic.HTTPConfiguration{}
	}
	return c.HTTP
}

// diffMaps is what a client holding old needs to hold c: the entries that
// are new or another pointer, and nil for those gone.
func diffMaps[T comparable](old, c map[string]T) map[string]T {
	var zero T
	var d map[string]T
	put := func(k string, v T) {
		if d == nil {
			d = make(map[string]T)
		}
		d[k] = v
	}
	for k, v := range c {
		if was, ok := old[k]; !ok || was != v {
			put(k, v)
		}
	}
	for k := range old {
		if _, ok := c[k]; !ok {
			put(k, zero)
		}
	}
	return d
}

func sameMap[T comparable](a, b map[string]T) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sameCertificates(a, b *dynamic.TLSConfiguration) bool {
	var ac, bc []*dynamic.CertAndStores
	if a != nil {
		ac = a.Certificates
	}
	if b != nil {
		bc = b.Certificates
	}
	return slices.Equal(ac, bc)
}

// deltaTexts keeps the text of the last delta frame written, so that the
// clients that were all sent one configuration (the usual case) share the
// work of the next.
type deltaTexts struct {
	mu       sync.Mutex
	from, to *dynamic.Configuration
	text     []byte // nil: a full frame is cheaper
}

// frame is the delta frame from old (version base) to c (version v), nil
// when a full frame should be sent instead.
func (t *deltaTexts) frame(old *dynamic.Configuration, base uint64, c *dynamic.Configuration, v uint64) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.from != old || t.to != c {
		t.from, t.to, t.text = old, c, nil
		if d := diffConfigurations(old, c); d != nil {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // as the full text is written
			if err := enc.Encode(d); err == nil {
				t.text = bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
			}
		}
	}
	if t.text == nil {
		return nil
	}
	out := make([]byte, 0, len(t.text)+64)
	out = append(out, `{"version":`...)
	out = strconv.AppendUint(out, v, 10)
	out = append(out, `,"base":`...)
	out = strconv.AppendUint(out, base, 10)
	out = append(out, `,"delta":`...)
	out = append(out, t.text...)
	return append(out, "}\n"...)
}
