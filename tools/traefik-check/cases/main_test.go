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

func TestRequestsWithHeaders(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "canary.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`http:
  routers:
    main:
      rule: Host("shop.example") && PathPrefix("/")
      service: s
    by-header:
      rule: Host("shop.example") && PathPrefix("/") && Header("X-Canary", "always")
      service: s
    by-cookie:
      rule: Host("shop.example") && PathPrefix("/") && HeaderRegexp("Cookie", "(?:^|;)\\s*(?i:canary)=always(?:;|$)") && !Header("X-Canary", "never")
      service: s
    regex:
      rule: Host("shop.example") && PathRegexp("(?i)^/v1(/|$)(.*)")
      service: s
  middlewares:
    m:
      redirectScheme:
        scheme: https
  serversTransports:
    t:
      insecureSkipVerify: true
  services:
    s:
      loadBalancer:
        servers:
          - url: http://10.0.0.1:80
tls:
  options:
    o:
      clientAuth:
        clientAuthType: RequestClientCert
`), 0o644))
	c, err := load(path)
	require.NoError(t, err)
	assert.Equal(t, 1, c.Middlewares)
	assert.Equal(t, 1, c.ServersTransports)
	assert.Equal(t, 1, c.TLSOptions)
	for name, r := range c.Routers {
		assert.True(t, r.Parses, name)
	}

	find := func(path string, header map[string]string) request {
		t.Helper()
		for _, q := range c.Requests {
			if q.Host == "shop.example" && q.Path == path && assert.ObjectsAreEqual(header, q.Header) {
				return q
			}
		}
		t.Fatalf("no request for %s with %v", path, header)
		return request{}
	}
	assert.Equal(t, "main", find("/", nil).Router)
	assert.Equal(t, "by-header", find("/", map[string]string{"X-Canary": "always"}).Router)
	assert.Equal(t, "main", find("/", map[string]string{"X-Canary": "always-other"}).Router, "the value exactly")
	assert.Equal(t, "by-cookie", find("/", map[string]string{"Cookie": "canary=always;"}).Router)
	assert.Equal(t, "main", find("/", map[string]string{"Cookie": "canary=always;", "X-Canary": "never"}).Router,
		"all of a rule's headers at once: the cookie's router refuses X-Canary: never")
	assert.Equal(t, "regex", find("/v1/", nil).Router, "a path its regular expression matches")
	assert.Equal(t, "regex", find("/V1/", nil).Router, "in any case, as (?i) says")
	assert.Equal(t, "regex", find("/v1", nil).Router)
	assert.Equal(t, "main", find("/unknown", nil).Router)
}
