package dynamic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
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

func TestJSONEncoderWritesWhatEncodingJSONWrites(t *testing.T) {
	var e JSONEncoder
	zero := 0
	for _, c := range []*Configuration{
		nil,
		{},
		{HTTP: &HTTPConfiguration{}},
		{HTTP: &HTTPConfiguration{Routers: map[string]*Router{}, Middlewares: map[string]*Middleware{}}},
		{HTTP: &HTTPConfiguration{Routers: map[string]*Router{"a": nil, "é\u2028\"<": {Service: "x"}, "\xff": {Rule: "\xfe"}}}},
		{HTTP: &HTTPConfiguration{
			Middlewares:       map[string]*Middleware{"m": {"headers": map[string]any{"b": 1, "a": "<"}}},
			ServersTransports: map[string]*ServersTransport{"t": {ServerName: "s", InsecureSkipVerify: true}},
			Services: map[string]*Service{"s": {LoadBalancer: &ServersLoadBalancer{
				Servers: []Server{{URL: "http://[fd00::1]:80", Weight: &zero, Fenced: true}},
			}}},
		}},
		{TLS: &TLSConfiguration{}},
		{TLS: &TLSConfiguration{Certificates: []*CertAndStores{nil, {Certificate: Certificate{CertFile: "-----BEGIN\n<x>\n", KeyFile: "k"}, Stores: []string{"default"}}}}},
		encoderTestConfiguration(50, 3),
	} {
		checkEncode(t, &e, c)
		checkEncode(t, &e, c) // all of it kept
		checkEncode(t, &JSONEncoder{}, c)
	}
}

// The configurations a provider sends one after another share what did not
// change; what changed is new. The encoder writes each as a whole encoding
// would, and keeps only the texts of the last one.
func TestJSONEncoderFollowsChanges(t *testing.T) {
	var e JSONEncoder
	c := encoderTestConfiguration(100, 2)
	checkEncode(t, &e, c)

	// A load balancer changed: a new services map, the routers map shared.
	next := &Configuration{HTTP: &HTTPConfiguration{Routers: c.HTTP.Routers, Services: maps.Clone(c.HTTP.Services)}}
	lb := NewServersLoadBalancer()
	lb.Servers = []Server{{URL: "http://10.9.9.9:8080"}}
	next.HTTP.Services["ns-app-7"] = &Service{LoadBalancer: lb}
	checkEncode(t, &e, next)
	assert.Len(t, e.services, 100, "the replaced service's text is dropped")

	// A router renamed: the same pointer under another key.
	renamed := &Configuration{HTTP: &HTTPConfiguration{Routers: maps.Clone(next.HTTP.Routers), Services: next.HTTP.Services}}
	renamed.HTTP.Routers["zz-renamed"] = renamed.HTTP.Routers["ns-app-3"]
	delete(renamed.HTTP.Routers, "ns-app-3")
	checkEncode(t, &e, renamed)

	// Back to the first configuration: its texts were dropped, and are
	// written again.
	checkEncode(t, &e, c)
	assert.Len(t, e.routers, 100)
	assert.Len(t, e.services, 100)
}

// The encoder writes the fields of these types itself: a field added to
// one of them must be added to it too.
func TestJSONEncoderKnowsEveryField(t *testing.T) {
	for typ, fields := range map[reflect.Type][]string{
		reflect.TypeFor[Configuration]():     {"HTTP", "TLS"},
		reflect.TypeFor[HTTPConfiguration](): {"Routers", "Services", "Middlewares", "ServersTransports"},
		reflect.TypeFor[TLSConfiguration]():  {"Certificates"},
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
	c := encoderTestConfiguration(10000, 19)
	var e JSONEncoder
	if _, err := e.Encode(c); err != nil {
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
		if _, err := e.Encode(next); err != nil {
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
	c := encoderTestConfiguration(10000, 19)
	var e YAMLEncoder
	if _, err := e.Encode(c); err != nil {
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
		if _, err := e.Encode(next); err != nil {
			b.Fatal(err)
		}
		c, i = next, i+1
	}
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
