package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/pki"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

const (
	ns       = "shop"
	waitFor  = 10 * time.Second // upper bound of every poll
	pollStep = 5 * time.Millisecond
)

// testBackend is an HTTP server on 127.0.0.1 that answers with its name and
// the Host it received.
type testBackend struct {
	name string
	srv  *httptest.Server
	port int
}

func startBackend(t *testing.T, name string, delay time.Duration) *testBackend {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			time.Sleep(delay)
		}
		w.Header().Set("X-Seen-Host", r.Host)
		w.Header().Set("X-Seen-Proto", r.Header.Get("X-Forwarded-Proto"))
		_, _ = io.WriteString(w, name)
	}))
	t.Cleanup(srv.Close)
	port, err := strconv.Atoi(srv.URL[strings.LastIndexByte(srv.URL, ':')+1:])
	require.NoError(t, err)
	return &testBackend{name: name, srv: srv, port: port}
}

// Manifests.

const ingressClass = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: sliceway
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: traefik.io/ingress-controller
`

func serviceManifest(name string, annotations ...string) string {
	var ann string
	if len(annotations) > 0 {
		ann = "  annotations:\n"
		for i := 0; i+1 < len(annotations); i += 2 {
			ann += fmt.Sprintf("    traefik.ingress.kubernetes.io/%s: %q\n", annotations[i], annotations[i+1])
		}
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %s
  namespace: %s
%sspec:
  ipFamilies: [IPv4]
  ports:
    - name: http
      port: 80
`, name, ns, ann)
}

// condition of the one endpoint of a slice.
type condition string

const (
	ready       condition = "{ready: true, serving: true, terminating: false}"
	terminating condition = "{ready: false, serving: true, terminating: true}"
)

// sliceManifest is an EndpointSlice of service with one endpoint, the
// backend at 127.0.0.1 (slices carry one port set, and each backend has its
// own port, so one slice per backend).
func sliceManifest(service string, b *testBackend, cond condition) string {
	return fmt.Sprintf(`apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %s-%s
  namespace: %s
  labels:
    kubernetes.io/service-name: %s
addressType: IPv4
ports:
  - name: http
    port: %d
    protocol: TCP
endpoints:
  - addresses: ["127.0.0.1"]
    conditions: %s
`, service, b.name, ns, service, b.port, cond)
}

type ingressPath struct {
	host, path, pathType, service string
}

func ingressManifest(name string, paths ...ingressPath) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %s
  namespace: %s
spec:
  rules:
`, name, ns)
	for _, p := range paths {
		fmt.Fprintf(&b, `    - host: %s
      http:
        paths:
          - path: %s
            pathType: %s
            backend:
              service:
                name: %s
                port:
                  name: http
`, p.host, p.path, p.pathType, p.service)
	}
	return b.String()
}

// writeManifests writes the documents into a file of a new directory and
// returns the directory.
func writeManifests(t *testing.T, docs ...string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cluster.yaml"), []byte(strings.Join(docs, "---\n")), 0o644))
	return dir
}

// fakeCluster serves the manifests of dir as an in-memory cluster whose
// objects the test then changes through the clientset.
func fakeCluster(t *testing.T, dir string) kubernetes.Interface {
	t.Helper()
	objs, problems := manifests.Read([]string{dir}, manifests.IsUsedKind)
	require.Empty(t, problems)
	cs, problems := manifests.NewFakeCluster(objs)
	require.Empty(t, problems)
	return cs
}

// startProxy runs the proxy in-process on 127.0.0.1 (with loopback
// endpoints allowed, since the backends listen there) until the test ends,
// and waits for its first configuration.
func startProxy(t *testing.T, cfg *Configuration, cs kubernetes.Interface) *instance {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	cfg.Providers.KubernetesIngress.AllowLoopbackEndpoints = true
	logger := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)
	ctx, cancel := context.WithCancel(context.Background())
	inst, err := run(ctx, cfg, logger, cs)
	if err != nil {
		cancel()
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, inst.Wait())
	})
	waitApplied(t, inst, 1)
	return inst
}

// waitApplied waits until at least n configurations were applied.
func waitApplied(t *testing.T, inst *instance, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return inst.Applied() >= n }, waitFor, pollStep,
		"configuration %d never applied (applied: %d)", n, inst.Applied())
}

type response struct {
	status   int
	body     string
	seenHost string
	cookies  []*http.Cookie
}

type client struct {
	t    *testing.T
	addr string
	hc   *http.Client
}

func newClient(t *testing.T, inst *instance) *client {
	hc := &http.Client{Timeout: waitFor, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	t.Cleanup(hc.CloseIdleConnections)
	return &client{t: t, addr: inst.Addr, hc: hc}
}

// do sends GET path with Host host to the proxy (always on 127.0.0.1).
func (c *client) do(host, path string, cookies ...*http.Cookie) (response, error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+c.addr+path, nil)
	if err != nil {
		return response{}, err
	}
	req.Host = host
	for _, ck := range cookies {
		req.AddCookie(ck)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return response{}, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, err
	}
	return response{status: res.StatusCode, body: string(body), seenHost: res.Header.Get("X-Seen-Host"), cookies: res.Cookies()}, nil
}

func (c *client) get(host, path string, cookies ...*http.Cookie) response {
	c.t.Helper()
	res, err := c.do(host, path, cookies...)
	require.NoError(c.t, err)
	return res
}

// tally sends n requests and counts the answers by body ("404", "503" for
// answers that are not 200).
func (c *client) tally(host, path string, n int) map[string]int {
	c.t.Helper()
	counts := map[string]int{}
	for range n {
		res := c.get(host, path)
		if res.status != http.StatusOK {
			counts[strconv.Itoa(res.status)]++
			continue
		}
		counts[res.body]++
	}
	return counts
}

// updateSlice changes an EndpointSlice through the clientset.
func updateSlice(t *testing.T, cs kubernetes.Interface, name string, change func(*discoveryv1.EndpointSlice)) {
	t.Helper()
	ctx := context.Background()
	s, err := cs.DiscoveryV1().EndpointSlices(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	change(s)
	_, err = cs.DiscoveryV1().EndpointSlices(ns).Update(ctx, s, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// setCondition gives the one endpoint of a slice new conditions.
func setCondition(ready, serving, terminating bool) func(*discoveryv1.EndpointSlice) {
	return func(s *discoveryv1.EndpointSlice) {
		s.Endpoints[0].Conditions = discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating}
	}
}

// changeAndWait applies a change and waits for the configuration it makes.
func changeAndWait(t *testing.T, inst *instance, cs kubernetes.Interface, slice string, change func(*discoveryv1.EndpointSlice)) {
	t.Helper()
	before := inst.Applied()
	updateSlice(t, cs, slice, change)
	waitApplied(t, inst, before+1)
}

func TestRoutesByHostAndPath(t *testing.T) {
	web, api, exact := startBackend(t, "web", 0), startBackend(t, "api", 0), startBackend(t, "exact", 0)
	dir := writeManifests(t,
		ingressClass,
		serviceManifest("web"), sliceManifest("web", web, ready),
		serviceManifest("api"), sliceManifest("api", api, ready),
		serviceManifest("exact", "service.passhostheader", "false"), sliceManifest("exact", exact, ready),
		ingressManifest("shop",
			ingressPath{"shop.test", "/", "Prefix", "web"},
			ingressPath{"shop.test", "/api", "Prefix", "api"},
			ingressPath{"exact.test", "/only", "Exact", "exact"},
		),
	)
	// Through --manifests, as the binary runs.
	cfg := newConfiguration()
	cfg.Manifests = []string{dir}
	c := newClient(t, startProxy(t, cfg, nil))

	for _, tc := range []struct {
		host, path string
		status     int
		body       string
	}{
		{"shop.test", "/", 200, "web"},
		{"shop.test", "/cart", 200, "web"},
		{"shop.test", "/api", 200, "api"},       // the longer rule is tried first
		{"shop.test", "/api/items", 200, "api"}, //
		{"SHOP.test", "/api", 200, "api"},       // hosts match case-insensitively
		{"shop.test:8081", "/api", 200, "api"},  // and without their port
		{"exact.test", "/only", 200, "exact"},
		{"exact.test", "/only/", 404, ""},
		{"exact.test", "/", 404, ""},
		{"unknown.test", "/", 404, ""},
	} {
		res := c.get(tc.host, tc.path)
		assert.Equal(t, tc.status, res.status, "%s%s", tc.host, tc.path)
		if tc.status == 200 {
			assert.Equal(t, tc.body, res.body, "%s%s", tc.host, tc.path)
		}
	}

	// passHostHeader: true by default, so the server sees the client's Host;
	// false sends the server's own host.
	assert.Equal(t, "shop.test", c.get("shop.test", "/").seenHost)
	assert.Equal(t, fmt.Sprintf("127.0.0.1:%d", exact.port), c.get("exact.test", "/only").seenHost)
}

func TestBalancesRoundRobinOverReadyEndpoints(t *testing.T) {
	a, b, c := startBackend(t, "a", 0), startBackend(t, "b", 0), startBackend(t, "c", 0)
	dir := writeManifests(t, ingressClass, serviceManifest("web"),
		sliceManifest("web", a, ready), sliceManifest("web", b, ready), sliceManifest("web", c, ready),
		ingressManifest("web", ingressPath{"web.test", "/", "Prefix", "web"}))
	cfg := newConfiguration()
	cfg.Manifests = []string{dir}
	cl := newClient(t, startProxy(t, cfg, nil))

	assert.Equal(t, map[string]int{"a": 10, "b": 10, "c": 10}, cl.tally("web.test", "/", 30))
}

func TestRemovedEndpointStopsReceivingTraffic(t *testing.T) {
	a, b := startBackend(t, "a", 0), startBackend(t, "b", 0)
	cs := fakeCluster(t, writeManifests(t, ingressClass, serviceManifest("web"),
		sliceManifest("web", a, ready), sliceManifest("web", b, ready),
		ingressManifest("web", ingressPath{"web.test", "/", "Prefix", "web"})))
	inst := startProxy(t, newConfiguration(), cs)
	c := newClient(t, inst)
	require.Equal(t, map[string]int{"a": 10, "b": 10}, c.tally("web.test", "/", 20))

	changeAndWait(t, inst, cs, "web-b", func(s *discoveryv1.EndpointSlice) { s.Endpoints = nil })
	assert.Equal(t, map[string]int{"a": 20}, c.tally("web.test", "/", 20))

	// And back.
	changeAndWait(t, inst, cs, "web-b", func(s *discoveryv1.EndpointSlice) {
		s.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{"127.0.0.1"}}}
	})
	assert.Equal(t, map[string]int{"a": 10, "b": 10}, c.tally("web.test", "/", 20))
}

func TestServingTerminatingEndpointIsAFallback(t *testing.T) {
	r, term := startBackend(t, "ready", 0), startBackend(t, "terminating", 0)
	cs := fakeCluster(t, writeManifests(t, ingressClass, serviceManifest("web"),
		sliceManifest("web", r, ready), sliceManifest("web", term, terminating),
		ingressManifest("web", ingressPath{"web.test", "/", "Prefix", "web"})))
	inst := startProxy(t, newConfiguration(), cs) // terminatingEndpoints: fallback, the default
	c := newClient(t, inst)

	// A ready endpoint exists: the terminating one is fenced and gets nothing.
	assert.Equal(t, map[string]int{"ready": 20}, c.tally("web.test", "/", 20))

	// Nothing is ready any more: the terminating one serves (KEP-1669).
	changeAndWait(t, inst, cs, "web-ready", setCondition(false, false, false))
	assert.Equal(t, map[string]int{"terminating": 20}, c.tally("web.test", "/", 20))

	// Ready again: fenced again.
	changeAndWait(t, inst, cs, "web-ready", setCondition(true, true, false))
	assert.Equal(t, map[string]int{"ready": 20}, c.tally("web.test", "/", 20))
}

func TestFencedServerNeverGetsANewRequest(t *testing.T) {
	r, term := startBackend(t, "ready", 0), startBackend(t, "terminating", 0)
	cs := fakeCluster(t, writeManifests(t, ingressClass, serviceManifest("web"),
		sliceManifest("web", r, ready), sliceManifest("web", term, terminating),
		ingressManifest("web", ingressPath{"web.test", "/", "Prefix", "web"})))
	cfg := newConfiguration()
	cfg.Providers.KubernetesIngress.TerminatingEndpoints = "fence"
	inst := startProxy(t, cfg, cs)
	c := newClient(t, inst)
	assert.Equal(t, map[string]int{"ready": 20}, c.tally("web.test", "/", 20))

	// Only the fenced server is left: no new request goes to it.
	changeAndWait(t, inst, cs, "web-ready", setCondition(false, false, false))
	assert.Equal(t, map[string]int{"503": 5}, c.tally("web.test", "/", 5))
}

func TestStickySessionsFinishOnAFencedServer(t *testing.T) {
	a, b := startBackend(t, "a", 0), startBackend(t, "b", 0)
	cs := fakeCluster(t, writeManifests(t, ingressClass,
		serviceManifest("web", "service.sticky.cookie", "true", "service.sticky.cookie.name", "sid"),
		sliceManifest("web", a, ready), sliceManifest("web", b, ready),
		ingressManifest("web", ingressPath{"web.test", "/", "Prefix", "web"})))
	inst := startProxy(t, newConfiguration(), cs)
	c := newClient(t, inst)

	first := c.get("web.test", "/")
	require.Equal(t, http.StatusOK, first.status)
	require.Len(t, first.cookies, 1)
	sid := first.cookies[0]
	assert.Equal(t, "sid", sid.Name)
	assert.Equal(t, "/", sid.Path)
	for range 5 {
		res := c.get("web.test", "/", sid)
		assert.Equal(t, first.body, res.body, "a session stays on its server")
		assert.Empty(t, res.cookies, "an existing session gets no new cookie")
	}

	// The session's server starts terminating while the other is ready: it
	// is fenced, finishes the session, and gets no new one.
	other := map[string]string{"a": "b", "b": "a"}[first.body]
	changeAndWait(t, inst, cs, "web-"+first.body, setCondition(false, true, true))
	for range 5 {
		assert.Equal(t, first.body, c.get("web.test", "/", sid).body)
	}
	assert.Equal(t, map[string]int{other: 10}, c.tally("web.test", "/", 10))

	// A cookie naming no server of the service starts a new session.
	res := c.get("web.test", "/", &http.Cookie{Name: "sid", Value: "gone"})
	assert.Equal(t, other, res.body)
	require.Len(t, res.cookies, 1)
	assert.NotEqual(t, sid.Value, res.cookies[0].Value)
}

func TestConfigurationSwapsUnderLoadDropNoRequest(t *testing.T) {
	// The backends take a moment, so that requests are in flight during
	// the swaps.
	a, b, c := startBackend(t, "a", time.Millisecond), startBackend(t, "b", time.Millisecond), startBackend(t, "c", time.Millisecond)
	cs := fakeCluster(t, writeManifests(t, ingressClass, serviceManifest("web"),
		sliceManifest("web", a, ready), sliceManifest("web", b, ready), sliceManifest("web", c, ready),
		ingressManifest("web", ingressPath{"web.test", "/", "Prefix", "web"})))
	inst := startProxy(t, newConfiguration(), cs)
	cl := newClient(t, inst)

	const workers = 8
	var stop atomic.Bool
	var total atomic.Int64
	var mu sync.Mutex
	failures := map[string]int{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for !stop.Load() {
				res, err := cl.do("web.test", "/")
				total.Add(1)
				outcome := ""
				switch {
				case err != nil:
					outcome = "error: " + err.Error()
				case res.status != http.StatusOK:
					outcome = "status " + strconv.Itoa(res.status)
				case res.body != "a" && res.body != "b" && res.body != "c":
					outcome = "body " + res.body
				}
				if outcome != "" {
					mu.Lock()
					failures[outcome]++
					mu.Unlock()
				}
			}
		})
	}

	// Take c out and put it back, and make b terminating and ready again:
	// every swap keeps a ready server.
	changes := []struct {
		slice  string
		change func(*discoveryv1.EndpointSlice)
	}{
		{"web-c", func(s *discoveryv1.EndpointSlice) { s.Endpoints = nil }},
		{"web-b", setCondition(false, true, true)},
		{"web-c", func(s *discoveryv1.EndpointSlice) {
			s.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{"127.0.0.1"}}}
		}},
		{"web-b", setCondition(true, true, false)},
		{"web-a", setCondition(false, false, false)},
		{"web-a", setCondition(true, true, false)},
	}
	start := inst.Applied()
	for _, ch := range changes {
		before := total.Load()
		changeAndWait(t, inst, cs, ch.slice, ch.change)
		// Let some requests run on the new table before the next swap.
		require.Eventually(t, func() bool { return total.Load() >= before+workers*5 }, waitFor, time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()

	assert.Equal(t, start+int64(len(changes)), inst.Applied(), "each change is one configuration")
	assert.Empty(t, failures, "of %d requests", total.Load())
	assert.Greater(t, total.Load(), int64(len(changes)*workers*5))
}

func TestNoConfigurationYetIs503(t *testing.T) {
	px := newProxy(zerolog.Nop())
	rec := httptest.NewRecorder()
	px.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://web.test/", nil))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
}

func TestRouteOrder(t *testing.T) {
	lb := dynamic.NewServersLoadBalancer()
	lb.Servers = []dynamic.Server{{URL: "http://10.0.0.1:80"}}
	conf := &dynamic.Configuration{HTTP: &dynamic.HTTPConfiguration{
		Routers: map[string]*dynamic.Router{
			"short":          {Rule: `PathPrefix("/")`, Service: "web"},
			"same-length":    {Rule: `PathPrefix("/")`, Service: "web"},
			"long":           {Rule: `Host("web.test") && PathPrefix("/api")`, Service: "web"},
			"explicit":       {Rule: `PathPrefix("/")`, Priority: 1000, Service: "web"},
			"explicit-low":   {Rule: `Host("web.test") && PathPrefix("/api/v1/items")`, Priority: 3, Service: "web@kubernetes"},
			"default-router": {Rule: `PathPrefix("/")`, Priority: math.MinInt32, Service: "web"},
			"tls":            {Rule: `Host("web.test") && Path("/api")`, Priority: 2000, Service: "web", TLS: &dynamic.RouterTLSConfig{}},
			"bad-rule":       {Rule: `ClientIP("10.0.0.0/8")`, Service: "web"},
			"no-service":     {Rule: `PathPrefix("/")`, Service: "missing"},
			"other-provider": {Rule: `PathPrefix("/")`, Service: "web@file"},
		},
		Services: map[string]*dynamic.Service{"web": {LoadBalancer: lb}},
	}}
	tbl := newProxy(zerolog.Nop()).build(conf)
	var names []string
	for _, r := range tbl.routes {
		names = append(names, r.name)
	}
	// Explicit priorities and rule lengths compare on one scale, as in
	// Traefik; equal priorities are ordered by name. Routers that cannot be
	// served (a rule that does not parse, a missing service) are left out.
	assert.Equal(t, []string{"tls", "explicit", "long", "same-length", "short", "explicit-low", "default-router"}, names)
	assert.Equal(t, "explicit", tbl.match(false, "web.test", "/api").name, "TLS routers do not serve plain HTTP")
	assert.Equal(t, "tls", tbl.match(true, "web.test", "/api").name)
	assert.Nil(t, tbl.match(true, "web.test", "/api/v1"), "nor plain routers TLS")
	assert.Nil(t, (&table{}).match(false, "web.test", "/"))
}

func TestPickNeverChoosesAFencedServer(t *testing.T) {
	zero, two := 0, 2
	lb := dynamic.NewServersLoadBalancer()
	lb.Servers = []dynamic.Server{
		{URL: "http://10.0.0.1:80", Fenced: true, Weight: &zero},
		{URL: "http://10.0.0.2:80", Weight: &zero}, // weight 0 alone fences too
		{URL: "http://10.0.0.6:80", Fenced: true},  // and fenced alone
		{URL: "http://10.0.0.3:80"},
		{URL: "http://10.0.0.4:80", Weight: &two},
		{URL: "ftp://10.0.0.5:21"}, // not usable
	}
	px := newProxy(zerolog.Nop())
	svc := px.buildService("web", lb, new(atomic.Uint64))
	counts := map[string]int{}
	for range 30 {
		b, cookie, err := svc.pick(httptest.NewRequest(http.MethodGet, "/", nil))
		require.NoError(t, err)
		assert.Nil(t, cookie)
		counts[b.url]++
	}
	assert.Equal(t, map[string]int{"http://10.0.0.3:80": 10, "http://10.0.0.4:80": 20}, counts)

	lb.Servers = lb.Servers[:3]
	_, _, err := px.buildService("web", lb, new(atomic.Uint64)).pick(httptest.NewRequest(http.MethodGet, "/", nil))
	assert.ErrorIs(t, err, errNoServer)
}

func TestRoundRobinPositionSurvivesASwap(t *testing.T) {
	lb := dynamic.NewServersLoadBalancer()
	lb.Servers = []dynamic.Server{{URL: "http://10.0.0.1:80"}, {URL: "http://10.0.0.2:80"}}
	conf := &dynamic.Configuration{HTTP: &dynamic.HTTPConfiguration{
		Routers:  map[string]*dynamic.Router{"r": {Rule: `PathPrefix("/")`, Service: "web"}},
		Services: map[string]*dynamic.Service{"web": {LoadBalancer: lb}},
	}}
	px := newProxy(zerolog.Nop())
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	var got []string
	for range 3 {
		px.apply(conf) // the same service in a new table each time
		b, _, err := px.current.Load().routes[0].svc.pick(req)
		require.NoError(t, err)
		got = append(got, b.url)
	}
	assert.Equal(t, []string{"http://10.0.0.1:80", "http://10.0.0.2:80", "http://10.0.0.1:80"}, got)
}

func TestCommandLoadsFlags(t *testing.T) {
	cmd := command(io.Discard)
	args := []string{
		"--listen=127.0.0.1:9999",
		"--manifests=/a,/b",
		"--log.level=debug",
		"--providers.kubernetesingress.allowloopbackendpoints=true",
		"--providers.kubernetesingress.terminatingendpoints=fence",
	}
	for _, l := range cmd.Resources {
		done, err := l.Load(args, cmd)
		require.NoError(t, err)
		if done {
			break
		}
	}
	cfg := cmd.Configuration.(*Configuration)
	assert.Equal(t, "127.0.0.1:9999", cfg.Listen)
	assert.Equal(t, []string{"/a", "/b"}, cfg.Manifests)
	assert.Equal(t, "debug", cfg.Log.Level)
	p := cfg.Providers.KubernetesIngress
	assert.True(t, p.AllowLoopbackEndpoints)
	assert.Equal(t, "fence", p.TerminatingEndpoints)
	assert.Equal(t, "primary", p.IPFamily, "defaults are kept")
}

func TestRunRefusesBadOptions(t *testing.T) {
	cfg := newConfiguration()
	cfg.Listen = "127.0.0.1:0"
	cfg.Providers.KubernetesIngress.TerminatingEndpoints = "sometimes"
	_, err := run(context.Background(), cfg, zerolog.Nop(), nil)
	require.ErrorContains(t, err, "providers.kubernetesIngress.terminatingEndpoints")

	cfg = newConfiguration()
	cfg.Listen = "127.0.0.1:0"
	cfg.Manifests = []string{filepath.Join(t.TempDir(), "missing.yaml")}
	_, err = run(context.Background(), cfg, zerolog.Nop(), nil)
	require.ErrorContains(t, err, "no usable object")
}

// selfSignedPEM makes a certificate for host and its key, in PEM.
func selfSignedPEM(t *testing.T, host string) (certPEM, keyPEM []byte) {
	t.Helper()
	cert, err := pki.SelfSigned(pki.Request{CommonName: host, Hosts: []string{host}, Usage: pki.ServerAuth, NotAfter: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	return cert.CertPEM(), cert.KeyPEM()
}

func TestTLSRoutersServeHTTPSWithTheirCertificate(t *testing.T) {
	web := startBackend(t, "web", 0)
	certPEM, keyPEM := selfSignedPEM(t, "secure.test")
	secret := fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  name: secure-tls
  namespace: %s
type: kubernetes.io/tls
data:
  tls.crt: %s
  tls.key: %s
`, ns, base64.StdEncoding.EncodeToString(certPEM), base64.StdEncoding.EncodeToString(keyPEM))
	ing := fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: secure
  namespace: %s
  annotations:
    traefik.ingress.kubernetes.io/router.tls: "true"
spec:
  tls:
    - hosts: [secure.test]
      secretName: secure-tls
  rules:
    - host: secure.test
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: web
                port:
                  name: http
`, ns)
	cfg := newConfiguration()
	cfg.Manifests = []string{writeManifests(t, ingressClass, secret, serviceManifest("web"), sliceManifest("web", web, ready), ing)}
	cfg.ListenTLS = "127.0.0.1:0"
	inst := startProxy(t, cfg, nil)

	https := func(serverName string, roots *x509.CertPool) (*http.Response, error) {
		tr := &http.Transport{TLSClientConfig: &tls.Config{ServerName: serverName, RootCAs: roots, InsecureSkipVerify: roots == nil}}
		defer tr.CloseIdleConnections()
		req, err := http.NewRequest(http.MethodGet, "https://"+inst.TLSAddr+"/", nil)
		require.NoError(t, err)
		req.Host = serverName
		res, err := (&http.Client{Transport: tr, Timeout: waitFor}).Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
		}
		return res, err
	}

	// The router's certificate, from its Secret, is served for its host.
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(certPEM))
	res, err := https("secure.test", roots)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "https", res.Header.Get("X-Seen-Proto"))

	// Another name gets the default certificate, and no router.
	res, err = https("other.test", nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	assert.Equal(t, "EMBEDPROXY DEFAULT CERT", res.TLS.PeerCertificates[0].Subject.CommonName)

	// A TLS router does not serve plain HTTP.
	assert.Equal(t, http.StatusNotFound, newClient(t, inst).get("secure.test", "/").status)
}

func TestServiceWithoutUsableServer(t *testing.T) {
	down := startBackend(t, "down", 0)
	down.srv.Close() // its port now refuses connections
	empty := startBackend(t, "empty", 0)
	cs := fakeCluster(t, writeManifests(t, ingressClass,
		serviceManifest("down"), sliceManifest("down", down, ready),
		serviceManifest("empty"), sliceManifest("empty", empty, ready),
		ingressManifest("web",
			ingressPath{"down.test", "/", "Prefix", "down"},
			ingressPath{"empty.test", "/", "Prefix", "empty"})))
	cfg := newConfiguration()
	cfg.Providers.KubernetesIngress.AllowEmptyServices = true
	inst := startProxy(t, cfg, cs)
	c := newClient(t, inst)

	assert.Equal(t, http.StatusBadGateway, c.get("down.test", "/").status, "a server that cannot be reached")
	assert.Equal(t, http.StatusOK, c.get("empty.test", "/").status)
	changeAndWait(t, inst, cs, "empty-empty", func(s *discoveryv1.EndpointSlice) { s.Endpoints = nil })
	assert.Equal(t, http.StatusServiceUnavailable, c.get("empty.test", "/").status, "a service kept without servers")
}

func TestCertificateForName(t *testing.T) {
	exact, wild := &tls.Certificate{}, &tls.Certificate{}
	certs := certificates{"shop.example": exact, "*.example": wild}
	assert.Same(t, exact, certs.get("SHOP.example."))
	assert.Same(t, wild, certs.get("blog.example"))
	assert.Nil(t, certs.get("a.blog.example"), "a wildcard covers one label")
	assert.Nil(t, certs.get("example"))
	assert.Nil(t, certs.get(""))
}
