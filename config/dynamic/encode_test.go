package dynamic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceJSON is what encoding/json writes, HTML escaping off.
func referenceJSON(t *testing.T, c *Configuration) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(c))
	return buf.String()
}

func checkEncode(t *testing.T, e *JSONEncoder, c *Configuration) {
	t.Helper()
	got, err := e.Encode(c)
	require.NoError(t, err)
	require.Equal(t, referenceJSON(t, c), string(got))
}

// encoderTestConfiguration has n routers and services of servers servers each.
func encoderTestConfiguration(n, servers int) *Configuration {
	c := &Configuration{HTTP: &HTTPConfiguration{Routers: map[string]*Router{}, Services: map[string]*Service{}}}
	for i := range n {
		name := fmt.Sprintf("ns-app-%d", i)
		lb := NewServersLoadBalancer()
		for j := range servers {
			lb.Servers = append(lb.Servers, Server{URL: fmt.Sprintf("http://10.%d.%d.%d:8080", i/250, i%250, j)})
		}
		c.HTTP.Services[name] = &Service{LoadBalancer: lb}
		c.HTTP.Routers[name] = &Router{Rule: fmt.Sprintf(`Host("a%d.example") && PathPrefix("/<&>")`, i), Service: name}
	}
	return c
}

// encoderEdgeCases are configurations with what an encoder could get
// wrong: nothing, empty maps, nil values, keys that need escapes or are
// long, invalid UTF-8, middlewares, transports, certificates.
func encoderEdgeCases() []*Configuration {
	zero := 0
	long := "default-app-" + strings.Repeat("a", 1100)
	return []*Configuration{
		nil,
		{},
		{HTTP: &HTTPConfiguration{}},
		{HTTP: &HTTPConfiguration{Routers: map[string]*Router{}, Middlewares: map[string]*Middleware{}}},
		{HTTP: &HTTPConfiguration{Routers: map[string]*Router{
			"a": nil, "é\u2028\"<": {Service: "x"}, "\xff": {Rule: "\xfe"}, long: {Priority: -2147483648, Service: "80"},
			"r10": {Service: "true"}, "r2": {EntryPoints: []string{"web", "websecure"}}, "R2x": {},
		}}},
		{HTTP: &HTTPConfiguration{
			Middlewares:       map[string]*Middleware{"m": {"headers": map[string]any{"b": 1, "a": "<"}}},
			ServersTransports: map[string]*ServersTransport{"t": {ServerName: "s", InsecureSkipVerify: true}},
			Services: map[string]*Service{"s": {LoadBalancer: &ServersLoadBalancer{
				Servers: []Server{{URL: "http://[fd00::1]:80", Weight: &zero, Fenced: true}},
			}}},
		}},
		{TLS: &TLSConfiguration{}},
		{TLS: &TLSConfiguration{Certificates: []*CertAndStores{nil, {
			Certificate: Certificate{CertFile: "-----BEGIN CERTIFICATE-----\nMIIB<x>\n\n  indented\n-----END CERTIFICATE-----\n", KeyFile: "k"},
			Stores:      []string{"default"},
		}}}},
		{TLS: &TLSConfiguration{Options: map[string]*TLSOptions{"nginx_b": {ClientAuth: &ClientAuth{
			CAFiles: []string{"-----BEGIN CERTIFICATE-----\nMIIB<x>\n-----END CERTIFICATE-----\n"}, ClientAuthType: "RequireAndVerifyClientCert",
		}}, "a": {}, "c": nil}}},
		{HTTP: &HTTPConfiguration{Routers: map[string]*Router{"r": {Service: "s", TLS: &RouterTLSConfig{Options: "o"}}}},
			TLS: &TLSConfiguration{
				Certificates: []*CertAndStores{{Certificate: Certificate{CertFile: "c", KeyFile: "k"}}},
				Options:      map[string]*TLSOptions{"o": {ClientAuth: &ClientAuth{CAFiles: []string{"ca1", "ca2"}, ClientAuthType: "VerifyClientCertIfGiven"}}},
			}},
		encoderTestConfiguration(50, 3),
	}
}

func TestJSONEncoderWritesWhatEncodingJSONWrites(t *testing.T) {
	var e JSONEncoder
	for _, c := range encoderEdgeCases() {
		checkEncode(t, &e, c)
		checkEncode(t, &e, c) // all of it kept
		checkEncode(t, &JSONEncoder{}, c)
	}
}

// followChanges gives check the configurations a provider sends one after
// another: they share what did not change; what changed is new. texts is
// what the encoder keeps, which must be only what the last one holds.
func followChanges(t *testing.T, texts *textCache, check func(*Configuration)) {
	c := encoderTestConfiguration(100, 2)
	check(c)

	// A load balancer changed: a new services map, the routers map shared.
	next := &Configuration{HTTP: &HTTPConfiguration{Routers: c.HTTP.Routers, Services: maps.Clone(c.HTTP.Services)}}
	lb := NewServersLoadBalancer()
	lb.Servers = []Server{{URL: "http://10.9.9.9:8080"}}
	next.HTTP.Services["ns-app-7"] = &Service{LoadBalancer: lb}
	check(next)
	assert.Len(t, texts.services, 100, "the replaced service's text is dropped")

	// A router renamed: the same pointer under another key.
	renamed := &Configuration{HTTP: &HTTPConfiguration{Routers: maps.Clone(next.HTTP.Routers), Services: next.HTTP.Services}}
	renamed.HTTP.Routers["ns-app-3-renamed"] = renamed.HTTP.Routers["ns-app-3"]
	delete(renamed.HTTP.Routers, "ns-app-3")
	check(renamed)

	// Back to the first configuration: its texts were dropped, and are
	// written again.
	check(c)
	assert.Len(t, texts.routers, 100)
	assert.Len(t, texts.services, 100)
}

func TestJSONEncoderFollowsChanges(t *testing.T) {
	var e JSONEncoder
	followChanges(t, &e.texts, func(c *Configuration) { checkEncode(t, &e, c) })
}

// The encoder writes the fields of these types itself: a field added to
// one of them must be added to it too.
func TestJSONEncoderKnowsEveryField(t *testing.T) {
	for typ, fields := range map[reflect.Type][]string{
		reflect.TypeFor[Configuration]():     {"HTTP", "TCP", "TLS"},
		reflect.TypeFor[HTTPConfiguration](): {"Routers", "Services", "Middlewares", "ServersTransports"},
		reflect.TypeFor[TLSConfiguration]():  {"Certificates", "Options"},
	} {
		var names []string
		for f := range typ.Fields() {
			names = append(names, f.Name)
		}
		assert.Equal(t, fields, names, "the fields of %s", typ)
	}
}

// The benchmarks encode 10,000 routers and services of 19 servers each (11
// MB of JSON, the size of the generated cluster of the provider's
// benchmarks): in full with encoding/json, and after one load balancer
// changed, with the encoder that saw the configuration before.
func BenchmarkJSONEncodeFull(b *testing.B) {
	c := encoderTestConfiguration(10000, 19)
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONEncoderAfterOneChange(b *testing.B) {
	var e JSONEncoder
	benchAfterOneChange(b, e.Encode)
}

// benchAfterOneChange encodes, after the configuration before, one in
// which a load balancer changed.
func benchAfterOneChange(b *testing.B, encode func(*Configuration) ([]byte, error)) {
	c := encoderTestConfiguration(10000, 19)
	if _, err := encode(c); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		next := &Configuration{HTTP: &HTTPConfiguration{Routers: c.HTTP.Routers, Services: maps.Clone(c.HTTP.Services)}}
		lb := NewServersLoadBalancer()
		lb.Servers = []Server{{URL: fmt.Sprintf("http://10.9.9.%d:8080", i%250)}}
		next.HTTP.Services[fmt.Sprintf("ns-app-%d", i%10000)] = &Service{LoadBalancer: lb}
		b.StartTimer()
		if _, err := encode(next); err != nil {
			b.Fatal(err)
		}
		c, i = next, i+1
	}
}

// MarshalYAML of the same configuration, and the YAML encoder after one
// change, for comparison with the JSON benchmarks.
func BenchmarkMarshalYAMLFull(b *testing.B) {
	c := encoderTestConfiguration(10000, 19)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MarshalYAML(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkYAMLEncoderAfterOneChange(b *testing.B) {
	var e YAMLEncoder
	benchAfterOneChange(b, e.Encode)
}

func BenchmarkYAMLEncoderFirst(b *testing.B) {
	c := encoderTestConfiguration(10000, 19)
	b.ReportAllocs()
	for b.Loop() {
		var e YAMLEncoder
		if _, err := e.Encode(c); err != nil {
			b.Fatal(err)
		}
	}
}

// Traefik's file and HTTP providers refuse a section that holds nothing
// ("http cannot be a standalone element"), and its HTTP provider then keeps
// the routes it had: every writer leaves such sections out.
func TestEmptySectionsAreLeftOut(t *testing.T) {
	cert := &CertAndStores{Certificate: Certificate{CertFile: "c", KeyFile: "k"}}
	for _, tc := range []struct {
		c              *Configuration
		json, yamlText string
	}{
		{&Configuration{}, "{}", "{}\n"},
		{&Configuration{HTTP: &HTTPConfiguration{}}, "{}", "{}\n"},
		{&Configuration{HTTP: &HTTPConfiguration{Routers: map[string]*Router{}, Services: map[string]*Service{}}, TLS: &TLSConfiguration{}}, "{}", "{}\n"},
		{&Configuration{HTTP: &HTTPConfiguration{}, TLS: &TLSConfiguration{Certificates: []*CertAndStores{cert}}},
			`{"tls":{"certificates":[{"certFile":"c","keyFile":"k"}]}}`, "tls:\n  certificates:\n    - certFile: c\n      keyFile: k\n"},
		{&Configuration{HTTP: &HTTPConfiguration{Services: map[string]*Service{"s": {}}}, TLS: &TLSConfiguration{}},
			`{"http":{"services":{"s":{}}}}`, "http:\n  services:\n    s: {}\n"},
		{&Configuration{TCP: &TCPConfiguration{Routers: map[string]*TCPRouter{}}}, "{}", "{}\n"},
		{&Configuration{HTTP: &HTTPConfiguration{Services: map[string]*Service{"s": {}}},
			TCP: &TCPConfiguration{Routers: map[string]*TCPRouter{"p": {Rule: "HostSNI(`a.example`)", Service: "p", TLS: &RouterTCPTLSConfig{Passthrough: true}}},
				Services: map[string]*TCPService{"p": {LoadBalancer: &TCPServersLoadBalancer{Servers: []TCPServer{{Address: "10.0.0.1:8443"}}}}}},
			TLS: &TLSConfiguration{Certificates: []*CertAndStores{cert}}},
			`{"http":{"services":{"s":{}}},"tcp":{"routers":{"p":{"service":"p","rule":"HostSNI(` + "`a.example`" + `)","tls":{"passthrough":true}}},"services":{"p":{"loadBalancer":{"servers":[{"address":"10.0.0.1:8443"}]}}}},"tls":{"certificates":[{"certFile":"c","keyFile":"k"}]}}`,
			"http:\n  services:\n    s: {}\ntcp:\n  routers:\n    p:\n      rule: HostSNI(`a.example`)\n      service: p\n      tls:\n        passthrough: true\n  services:\n    p:\n      loadBalancer:\n        servers:\n          - address: 10.0.0.1:8443\ntls:\n  certificates:\n    - certFile: c\n      keyFile: k\n"},
	} {
		data, err := json.Marshal(tc.c)
		require.NoError(t, err)
		assert.Equal(t, tc.json, string(data))
		data, err = json.Marshal(*tc.c)
		require.NoError(t, err)
		assert.Equal(t, tc.json, string(data), "a Configuration value too")
		data, err = (&JSONEncoder{}).Encode(tc.c)
		require.NoError(t, err)
		assert.Equal(t, tc.json+"\n", string(data))
		data, err = MarshalYAML(tc.c)
		require.NoError(t, err)
		assert.Equal(t, tc.yamlText, string(data))
		data, err = (&YAMLEncoder{}).Encode(tc.c)
		require.NoError(t, err)
		assert.Equal(t, tc.yamlText, string(data))
	}
	data, err := json.Marshal((*Configuration)(nil))
	require.NoError(t, err)
	assert.Equal(t, "null", string(data))
}
