package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequestsFollowTraefiksOrder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "conf.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`http:
  routers:
    a:
      rule: Host("a.example") && PathPrefix("/")
      service: s
    a-api:
      rule: Host("a.example") && PathPrefix("/api")
      service: s
    b:
      rule: Host("b.example") && Path("/x")
      service: s
    b-same-length:
      rule: Host("b.example") && Path("/y")
      service: s
    b-tied:
      rule: Host("b.example") && Path("/x")
      service: s
      entryPoints: [web]
    wild:
      rule: HostRegexp("^[a-zA-Z0-9-]+\\.w\\.example$") && PathPrefix("/")
      service: s
      tls: {}
    bad:
      rule: Host("unclosed
      service: s
  services:
    s:
      loadBalancer:
        servers:
          - url: http://10.0.0.1:80
`), 0o644))
	c, err := load(path)
	require.NoError(t, err)
	assert.True(t, c.Routers["a"].Parses)
	assert.False(t, c.Routers["bad"].Parses)
	assert.Equal(t, 1, c.Services)
	assert.Len(t, c.Routers, 7)
	assert.NotContains(t, c.JSON, `"http":{}`)

	find := func(tls bool, host, path string) request {
		t.Helper()
		for _, q := range c.Requests {
			if q.TLS == tls && q.Host == host && q.Path == path {
				return q
			}
		}
		t.Fatalf("no request for %s%s (tls %v)", host, path, tls)
		return request{}
	}
	assert.Equal(t, "a-api", find(false, "a.example", "/api/x").Router, "the longer rule first")
	assert.Equal(t, "a", find(false, "A.EXAMPLE", "/").Router, "hosts in any case")
	assert.Equal(t, "a-api", find(false, "a.example:8443", "/apix").Router, "a plain prefix, as in Traefik; the port left out")
	assert.Equal(t, "b-same-length", find(false, "b.example", "/y").Router)
	q := find(false, "b.example", "/x")
	assert.Empty(t, q.Router)
	assert.Equal(t, []string{"b", "b-tied"}, q.Tied, "equal priorities that both match")
	assert.Equal(t, "wild", find(true, "one.w.example", "/").Router)
	assert.Empty(t, find(true, "a.b.w.example", "/").Router, "one label only")
	assert.Empty(t, find(false, "unknown.example", "/").Router)
}

func TestRequestsOfASpecification(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "conformance.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"configuration":{"http":{"routers":{"r":{"rule":"PathPrefix(\"/\")","service":"s"}}}},
"requests":[{"entryPoint":"web","host":"x.example","path":"/a","service":"s"}]}`), 0o644))
	c, err := load(path)
	require.NoError(t, err)
	assert.Contains(t, c.Requests, request{EntryPoint: "web", Host: "x.example", Path: "/a", Service: "s"})

	require.NoError(t, os.WriteFile(path, []byte(`{"configuration":{},"requests":[{"host":"x.example","path":"/a"}]}`), 0o644))
	_, err = load(path)
	require.ErrorContains(t, err, "no service")
}
