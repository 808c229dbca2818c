package traefike2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The harness's own pieces, without Traefik: they run in go test ./...,
// so a comparison that could never fail would show here.

func TestEchoStatus(t *testing.T) {
	for path, want := range map[string]int{
		"/": 200, "/status/404": 404, "/app/status/503": 503, "/status/404/more": 404,
		"/status/": 200, "/status/abc": 200, "/status/99": 200, "/status/600": 200, "/a/status/301/b/status/502": 502,
	} {
		assert.Equal(t, want, echoStatus(path), path)
	}
}

func TestEchoSleep(t *testing.T) {
	for path, want := range map[string]time.Duration{
		"/": 0, "/sleep/1500": 1500 * time.Millisecond, "/app/sleep/10/more": 10 * time.Millisecond,
		"/sleep/": 0, "/sleep/x": 0, "/sleep/-5": 0, "/sleep/999999": maxEchoSleep,
	} {
		assert.Equal(t, want, echoSleep(path), path)
	}
}

func TestTraefikDiff(t *testing.T) {
	var want config
	require.NoError(t, json.Unmarshal([]byte(`{
	  "routers": {"r": {"rule": "Host(\"a\")", "service": "s"}, "only-web": {"rule": "Path(\"/\")", "service": "s", "entryPoints": ["web"]}},
	  "services": {"s": {"loadBalancer": {"servers": [{"url": "http://127.0.0.1:2"}, {"url": "http://127.0.0.1:1"}]}}}}`), &want))
	running := func() config {
		var raw config
		require.NoError(t, json.Unmarshal([]byte(`{
		  "routers": {"web-r@http": {"rule": "Host(\"a\")"}, "websecure-r@http": {"rule": "Host(\"a\")"},
		    "only-web@http": {"rule": "Path(\"/\")"}, "api@internal": {"rule": "PathPrefix(\"/api\")"}},
		  "services": {"s@http": {"loadBalancer": {"servers": [{"url": "http://127.0.0.1:1"}, {"url": "http://127.0.0.1:2"}]}},
		    "api@internal": {}}}`), &raw))
		return raw
	}
	assert.Empty(t, traefikDiff(want, running()), "Traefik runs it all, the router split per entry point")

	raw := running()
	delete(raw.Routers, "web-r@http")
	delete(raw.Routers, "websecure-r@http")
	assert.Equal(t, []string{"router r is not in Traefik"}, traefikDiff(want, raw))

	raw = running()
	raw.Routers["old@http"] = router{Rule: "Path(\"/old\")"}
	raw.Routers["only-web@http"] = router{Rule: "Path(\"/x\")"}
	assert.Equal(t, []string{
		`router old@http is still in Traefik`,
		`router only-web@http: rule "Path(\"/x\")", sliceway's is "Path(\"/\")"`,
	}, traefikDiff(want, raw))

	raw = running()
	raw.Services["s@http"].LoadBalancer.Servers = raw.Services["s@http"].LoadBalancer.Servers[:1]
	raw.Services["gone@http"] = service{}
	assert.Equal(t, []string{
		"service gone@http is still in Traefik",
		"service s: servers [http://127.0.0.1:1], sliceway's are [http://127.0.0.1:1 http://127.0.0.1:2]",
	}, traefikDiff(want, raw))
}

func TestConfigDiff(t *testing.T) {
	a := `{"http": {"routers": {"r": {"rule": "Path(\"/\")", "service": "s"}}, "services": {"s": {}}}}`
	same, _ := configDiff([]byte(a), []byte(`{"http":{"services":{"s":{}},"routers":{"r":{"service":"s","rule":"Path(\"/\")"}}}}`))
	assert.True(t, same, "the same value, other key order and spacing")

	same, why := configDiff([]byte(a), []byte(`{"http": {"routers": {"r2": {"rule": "Path(\"/\")", "service": "s"}}, "services": {"s": {"x": 1}}}}`))
	assert.False(t, same)
	assert.Equal(t, "router r not served yet; router r2 still served; service s differs", why)

	same, why = configDiff([]byte(a), []byte(`{"http": {"routers": {"r": {"rule": "Path(\"/\")", "service": "s"}}, "services": {"s": {}}}, "tls": {}}`))
	assert.False(t, same)
	assert.Contains(t, why, "outside HTTP routers and services")
}

func TestRuleConcerns(t *testing.T) {
	host := "tls.e2e.test"
	assert.True(t, ruleConcerns(`Host("tls.e2e.test") && PathPrefix("/")`, host))
	assert.True(t, ruleConcerns(`HostRegexp("^tls\\.e2e\\.test$")`, host))
	assert.True(t, ruleConcerns(`PathPrefix("/")`, host), "a rule without a host matches every host")
	assert.False(t, ruleConcerns(`Host("prefix.e2e.test")`, host))
}

func TestRequestCheck(t *testing.T) {
	res := &Response{Status: 200, Header: http.Header{"Location": {"/x"}}, Backend: "a",
		Cookies: []*http.Cookie{{Name: "s", Value: "1"}},
		Echo:    &Echo{Backend: "a", Path: "/p", Host: "h", Header: http.Header{"X-A": {"1"}}}}
	certs := newCertificates()
	ns := "c"
	ok := Request{Location: "/x", Backend: "a", Path: "/p", UpstreamHost: "h", Cookies: map[string]string{"s": "*"},
		UpstreamHeaders: map[string]string{"x-a": "1"}, NoUpstreamHeaders: []string{"X-B"}, NoHeaders: []string{"X-Echo"}}
	assert.Empty(t, ok.check(res, certs, ns))

	bad := Request{Status: 404, Location: "/y", Backend: "b", Path: "/q", Cookies: map[string]string{"s": "2", "t": "*"},
		UpstreamHeaders: map[string]string{"X-A": "2"}, NoUpstreamHeaders: []string{"X-A"}, CertSecret: "cert"}
	assert.Equal(t, []string{
		"status 200, want 404",
		`Location "/x", want "/y"`,
		`cookie s="1", want "2"`,
		"no cookie t set",
		"answered by backend a, want backend b",
		`upstream path "/p", want "/q"`,
		`upstream header X-A: "1", want "2"`,
		`upstream header X-A: ["1"], want none`,
		"no certificate served (not https?)",
	}, bad.check(res, certs, ns))

	traefik := &Response{Status: 404}
	assert.Equal(t, []string{"answered by Traefik itself (no echo backend), which does not echo the request"},
		(&Request{Status: 404, Path: "/"}).check(traefik, certs, ns))
}

func TestCheckCases(t *testing.T) {
	req := []Request{{URL: "/"}}
	assert.NoError(t, checkCases([]Case{{Name: "a-1", Requests: req}, {Name: "b", Requests: req}}))
	assert.ErrorContains(t, checkCases([]Case{{Name: "Upper", Requests: req}}), "DNS label")
	assert.ErrorContains(t, checkCases([]Case{{Name: "a", Requests: req}, {Name: "a", Requests: req}}), "two cases")
	assert.ErrorContains(t, checkCases([]Case{{Name: "a"}}), "no requests")
	assert.NoError(t, checkCases(cases), "the suite's own cases")
}

func TestCheckStatuses(t *testing.T) {
	assert.Empty(t, checkStatuses(map[int]int{200: 2, 429: 4}, map[int]int{200: 2, 429: AtLeastOne}))
	assert.Equal(t, []string{
		"1 answers 503 Service Unavailable, want none",
		"3 answers 200, want 2",
		"no answer 429, want at least one",
	}, checkStatuses(map[int]int{200: 3, 503: 1}, map[int]int{200: 2, 429: AtLeastOne}))
}

func TestReports(t *testing.T) {
	log := []byte(`{"level":"info","message":"configuration read"}
{"level":"error","ingress":"a","namespace":"ns","field":"metadata.annotations[x]","message":"secret ns/s not found"}
{"level":"warn","ingress":"b","namespace":"ns","message":"no field"}
{"level":"error","ingress":"c","namespace":"other","message":"elsewhere"}
not json`)
	reports := parseReports(log)
	assert.Equal(t, []string{"metadata.annotations[x]: secret ns/s not found", "no field"}, reports["ns"])
	assert.Empty(t, missingReports(reports, "ns", []string{"x]: secret ns/s not found", "no field"}))
	assert.Equal(t, []string{"elsewhere"}, missingReports(reports, "ns", []string{"elsewhere"}), "another namespace's report")
}

func TestHoldsPath(t *testing.T) {
	assert.True(t, holdsPath("/hold"))
	assert.True(t, holdsPath("/app/hold/x"))
	assert.False(t, holdsPath("/holder"))
	assert.False(t, holdsPath("/"))
}

func TestNginxIngress(t *testing.T) {
	got := nginxIngress("web", "{{ .Host }}", "/x", "app", "cert", "canary", "true", "canary-by-header-pattern", `^a\d$`)
	assert.Equal(t, `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: {{ .Namespace }}
  annotations:
    nginx.ingress.kubernetes.io/canary: "true"
    nginx.ingress.kubernetes.io/canary-by-header-pattern: "^a\\d$"
spec:
  ingressClassName: nginx
  tls:
  - hosts: [{{ .Host }}]
    secretName: cert
  rules:
  - host: {{ .Host }}
    http:
      paths:
      - {path: /x, pathType: Prefix, backend: {service: {name: app, port: {name: http}}}}
`, got)
}
