//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// Hostile input through the command line: `sliceway render --manifests`
// on files a user (or an attacker with write access to a namespace) might
// hand it. Each case either renders a configuration without the bad part
// and reports it naming the file, object and field (exit 0), or rejects
// unusable input naming the file (exit 1); never a panic or stack trace,
// never a hang, never memory out of proportion to the input.

// hostileTimeout bounds one run of the binary.
const hostileTimeout = 30 * time.Second

// boundedResult is what a bounded run gives.
type boundedResult struct {
	runResult
	elapsed time.Duration
	maxRSS  int64 // bytes, the peak resident memory of the process
	// problems: what renderHostile's run logged, each written back as its
	// error reads (loggedProblems).
	problems string
}

// runBounded runs the binary as run does, killing it after timeout.
func runBounded(t *testing.T, timeout time.Duration, args ...string) boundedResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + cmd.Dir, "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	require.NoError(t, cmd.Start())
	peak := watchPeakRSS(cmd.Process.Pid)
	err := cmd.Wait()
	res := boundedResult{elapsed: time.Since(start), maxRSS: peak()}
	require.NoError(t, ctx.Err(), "sliceway %s did not finish within %s", strings.Join(args, " "), timeout)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		res.code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	res.stdout, res.stderr = stdout.String(), stderr.String()
	assert.NotContains(t, res.stderr, "goroutine ", "no stack trace")
	assert.NotContains(t, res.stderr, "panic:", "no panic")
	return res
}

// watchPeakRSS follows the peak resident memory of process pid (VmHWM in
// /proc, the high-water mark of its own memory) until the returned
// function is called, after the process ended, which returns the highest
// value read. The rusage of a child is no measure here: Go starts it with
// vfork, and Linux records the parent's high-water mark into the child's
// when it execs, so a large test process reads as a large child.
func watchPeakRSS(pid int) func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	read := func() {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				if err == nil && kb*1024 > peak.Load() {
					peak.Store(kb * 1024)
				}
			}
		}
	}
	go func() {
		defer close(stopped)
		for {
			read()
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		return peak.Load()
	}
}

// renderHostile renders the manifest files as JSON, within hostileTimeout.
func renderHostile(t *testing.T, files ...string) boundedResult {
	t.Helper()
	res := runBounded(t, hostileTimeout, "render", "--log.format=json", "--manifests="+strings.Join(files, ","))
	res.problems = loggedProblems(t, res.stderr)
	return res
}

// renderedConf is the part of the output these tests read.
type renderedConf struct {
	HTTP struct {
		Routers map[string]struct {
			Rule        string
			EntryPoints []string
			Middlewares []string
			Service     string
		}
		Services map[string]struct {
			LoadBalancer struct {
				Servers []struct{ URL string }
			}
		}
	}
}

func parseConf(t *testing.T, out string) renderedConf {
	t.Helper()
	var conf renderedConf
	require.NoError(t, json.Unmarshal([]byte(out), &conf), "the output is JSON")
	return conf
}

func (c renderedConf) servers(service string) []string {
	var urls []string
	for _, s := range c.HTTP.Services[service].LoadBalancer.Servers {
		urls = append(urls, s.URL)
	}
	return urls
}

// hostileService is a Service shop/web with an Ingress to it, to which the
// cases add their EndpointSlices.
const hostileService = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports: [{name: http, port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop}
spec:
  rules:
    - host: web.example
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`

func hostileSlice(name, addressType, port string, endpoints ...string) string {
	return fmt.Sprintf(`---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: %s, namespace: shop, labels: {kubernetes.io/service-name: web}}
addressType: %s
ports: [{name: http, port: %s}]
endpoints:
%s`, name, addressType, port, strings.Join(endpoints, ""))
}

func hostileEndpoint(addresses ...string) string {
	quoted := make([]string, len(addresses))
	for i, a := range addresses {
		quoted[i] = strconv.Quote(a)
	}
	return "  - addresses: [" + strings.Join(quoted, ", ") + "]\n"
}

func TestHostileInvalidAddresses(t *testing.T) {
	file := writeFile(t, t.TempDir(), "addresses.yaml", hostileService+
		hostileSlice("web-v4", "IPv4", "8080",
			hostileEndpoint("10.0.0.1", "10.0.0.999", "::1", "fd00::1", "", "garbage", "1.2.3", "10.0.0.0/8", " 10.0.0.3", "010.0.0.4", "10.0.0.2"))+
		hostileSlice("web-v6", "IPv6", "8080",
			hostileEndpoint("fd00::2", "10.0.0.5", "fd00::zz", "::ffff:10.0.0.6", "fe80::1%eth0", "[fd00::3]", "FD00::4")))
	res := renderHostile(t, file)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, []string{"http://10.0.0.1:8080", "http://10.0.0.2:8080", "http://[fd00::2]:8080", "http://[fd00::4]:8080"},
		parseConf(t, res.stdout).servers("shop-web-http"))
	for _, want := range []string{
		`EndpointSlice shop/web-v4: endpoints[0].addresses[1]: "10.0.0.999" is not a valid IPv4 address`,
		`EndpointSlice shop/web-v4: endpoints[0].addresses[2]: "::1" is not a valid IPv4 address: it is IPv6`,
		`EndpointSlice shop/web-v4: endpoints[0].addresses[4]: "" is not a valid IPv4 address`,
		`EndpointSlice shop/web-v4: endpoints[0].addresses[8]: " 10.0.0.3" is not a valid IPv4 address`,
		`EndpointSlice shop/web-v6: endpoints[0].addresses[1]: "10.0.0.5" is not a valid IPv6 address: it is IPv4`,
		`EndpointSlice shop/web-v6: endpoints[0].addresses[3]: "::ffff:10.0.0.6" is not a valid IPv6 address: it is an IPv4-mapped address`,
		`EndpointSlice shop/web-v6: endpoints[0].addresses[4]: "fe80::1%eth0" is not a valid IPv6 address: zones are not allowed`,
		`EndpointSlice shop/web-v6: endpoints[0].addresses[5]: "[fd00::3]" is not a valid IPv6 address`,
	} {
		assert.Contains(t, res.problems, want)
	}
}

func TestHostilePorts(t *testing.T) {
	file := writeFile(t, t.TempDir(), "ports.yaml", hostileService+
		hostileSlice("web-zero", "IPv4", "0", hostileEndpoint("10.0.1.1"))+
		hostileSlice("web-negative", "IPv4", "-1", hostileEndpoint("10.0.1.2"))+
		hostileSlice("web-huge", "IPv4", "70000", hostileEndpoint("10.0.1.3"))+
		hostileSlice("web-null", "IPv4", "null", hostileEndpoint("10.0.1.4"))+
		hostileSlice("web-zero-v6", "IPv6", "0", hostileEndpoint("fd00::1"))+
		hostileSlice("web-good", "IPv4", "8080", hostileEndpoint("10.0.1.5")))
	res := renderHostile(t, file)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, []string{"http://10.0.1.5:8080"}, parseConf(t, res.stdout).servers("shop-web-http"))
	for _, want := range []string{
		"EndpointSlice shop/web-zero: ports[0].port: port 0 is outside 1..65535",
		"EndpointSlice shop/web-negative: ports[0].port: port -1 is outside 1..65535",
		"EndpointSlice shop/web-huge: ports[0].port: port 70000 is outside 1..65535",
		`EndpointSlice shop/web-null: ports[0].port: port "http" has no number`,
		"EndpointSlice shop/web-zero-v6: ports[0].port: port 0 is outside 1..65535",
	} {
		assert.Contains(t, res.problems, want)
	}

	// A port that is not a number at all does not decode: the document is
	// an error naming the file and document, the rest is rendered, exit 1.
	bad := writeFile(t, t.TempDir(), "bad-port.yaml", hostileService+
		hostileSlice("web-string", "IPv4", `"http"`, hostileEndpoint("10.0.1.6"))+
		hostileSlice("web-float", "IPv4", "80.5", hostileEndpoint("10.0.1.7"))+
		hostileSlice("web-int64", "IPv4", "9223372036854775807", hostileEndpoint("10.0.1.8"))+
		hostileSlice("web-good", "IPv4", "8080", hostileEndpoint("10.0.1.5")))
	res = renderHostile(t, bad)
	assert.Equal(t, 1, res.code, res.stderr)
	for _, doc := range []string{"document 3:", "document 4:", "document 5:"} {
		assert.Contains(t, res.problems, bad+": "+doc)
	}
	assert.Equal(t, []string{"http://10.0.1.5:8080"}, parseConf(t, res.stdout).servers("shop-web-http"))
}

func TestHostileManyAddressesPerEndpoint(t *testing.T) {
	var ten, hundred []string
	for i := range 10 {
		ten = append(ten, fmt.Sprintf("10.1.0.%d", i+1))
	}
	for i := range 100 {
		hundred = append(hundred, fmt.Sprintf("10.2.0.%d", i+1))
	}
	file := writeFile(t, t.TempDir(), "many.yaml", hostileService+
		hostileSlice("web-1", "IPv4", "8080", hostileEndpoint(ten...), hostileEndpoint(hundred...)))
	res := renderHostile(t, file)
	require.Equal(t, 0, res.code, res.stderr)
	servers := parseConf(t, res.stdout).servers("shop-web-http")
	assert.Len(t, servers, 110)
	assert.Equal(t, "http://10.1.0.1:8080", servers[0])
	assert.Equal(t, "http://10.2.0.100:8080", servers[109])
}

func TestHostileHundredThousandEndpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 100,000 endpoints twice")
	}
	// One Service, 100 slices of 1,000 endpoints (the API's maximum per
	// slice), written in shuffled order.
	var b strings.Builder
	b.WriteString(hostileService)
	order := rand.New(rand.NewPCG(1, 2)).Perm(100)
	for _, s := range order {
		fmt.Fprintf(&b, "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: web-%03d, namespace: shop, labels: {kubernetes.io/service-name: web}}\naddressType: IPv4\nports: [{name: http, port: 8080}]\nendpoints:\n", s)
		for e := range 1000 {
			n := s*1000 + e + 1
			fmt.Fprintf(&b, "  - addresses: [10.%d.%d.%d]\n", n>>16&255, n>>8&255, n&255)
		}
	}
	file := writeFile(t, t.TempDir(), "big.yaml", b.String())

	first := runBounded(t, 2*time.Minute, "render", "--manifests="+file)
	require.Equal(t, 0, first.code, first.stderr)
	servers := parseConf(t, first.stdout).servers("shop-web-http")
	require.Len(t, servers, 100_000)
	assert.Equal(t, "http://10.0.0.1:8080", servers[0])
	assert.Equal(t, "http://10.1.134.160:8080", servers[len(servers)-1]) // 100,000 = 1<<16 + 134<<8 + 160
	assert.True(t, slices.IsSortedFunc(servers, func(a, b string) int {
		return netip.MustParseAddrPort(strings.TrimPrefix(a, "http://")).Compare(netip.MustParseAddrPort(strings.TrimPrefix(b, "http://")))
	}), "servers sorted numerically")
	assert.Less(t, first.maxRSS, int64(1<<30), "peak memory for a 3 MB manifest")
	t.Logf("100 slices of 1,000 endpoints: %s, peak memory %d MiB", first.elapsed, first.maxRSS>>20)

	second := runBounded(t, 2*time.Minute, "render", "--manifests="+file)
	require.Equal(t, 0, second.code, second.stderr)
	assert.True(t, first.stdout == second.stdout, "the same bytes on every run")
}

func TestHostileLongHostsAndPaths(t *testing.T) {
	host := strings.Repeat("h", 40_000) + ".example"
	path := "/" + strings.Repeat("p", 40_000)
	file := writeFile(t, t.TempDir(), "long.yaml", hostileService+
		hostileSlice("web-1", "IPv4", "8080", hostileEndpoint("10.0.0.1"))+fmt.Sprintf(`---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: long, namespace: shop}
spec:
  rules:
    - host: %s
      http:
        paths:
          - {path: %s, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
    - host: "*.%s"
      http:
        paths:
          - {path: /, pathType: Exact, backend: {service: {name: web, port: {name: http}}}}
`, host, path, host))

	t.Run("json", func(t *testing.T) {
		res := renderHostile(t, file)
		require.Equal(t, 0, res.code, res.stderr)
		conf := parseConf(t, res.stdout)
		var rules []string
		for _, r := range conf.HTTP.Routers {
			rules = append(rules, r.Rule)
		}
		assert.Contains(t, rules, `Host(`+strconv.Quote(host)+`) && PathPrefix(`+strconv.Quote(path)+`)`)
		assert.Contains(t, rules, `Host("web.example") && PathPrefix("/")`)
		assert.Len(t, rules, 3)
	})
	t.Run("yaml", func(t *testing.T) {
		res := runBounded(t, hostileTimeout, "render", "--manifests="+file, "--format=yaml")
		require.Equal(t, 0, res.code, res.stderr)
		var conf renderedConf
		require.NoError(t, yaml.Unmarshal([]byte(res.stdout), &conf))
		assert.Len(t, conf.HTTP.Routers, 3)
	})
}

func TestHostileAnnotationValues(t *testing.T) {
	// Quotes, backquotes, newlines and NUL bytes, written as YAML escapes.
	file := writeFile(t, t.TempDir(), "annotations.yaml", hostileService+
		hostileSlice("web-1", "IPv4", "8080", hostileEndpoint("10.0.0.1"))+`---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: names
  namespace: shop
  annotations:
    traefik.ingress.kubernetes.io/router.middlewares: "a\"b`+"`"+`c\nd\0e@file"
    traefik.ingress.kubernetes.io/router.entrypoints: "web\0,`+"`x`"+`"
spec:
  rules:
    - host: names.example
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: bad-priority
  namespace: shop
  annotations:
    traefik.ingress.kubernetes.io/router.priority: "1\0\n`+"`"+`\""
spec:
  rules:
    - host: priority.example
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: bad-tls
  namespace: shop
  annotations:
    traefik.ingress.kubernetes.io/router.tls: "true\0"
spec:
  rules:
    - host: tls.example
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`)
	res := renderHostile(t, file)
	require.Equal(t, 0, res.code, res.stderr)
	conf := parseConf(t, res.stdout)
	require.Len(t, conf.HTTP.Routers, 1, "the Ingresses with bad values are skipped")
	require.Contains(t, conf.HTTP.Routers, "shop-web-web-example")
	// Control characters are refused in every value, names included.
	assert.Contains(t, res.problems, `Ingress shop/names: metadata.annotations[traefik.ingress.kubernetes.io/router.entrypoints]: "web\x00,`+"`x`"+`" holds a control character (the Ingress is skipped)`)
	assert.Contains(t, res.problems, `Ingress shop/bad-priority: metadata.annotations[traefik.ingress.kubernetes.io/router.priority]: "1\x00\n`+"`"+`\"" holds a control character (the Ingress is skipped)`)
	assert.Contains(t, res.problems, `Ingress shop/bad-tls: metadata.annotations[traefik.ingress.kubernetes.io/router.tls]: "true\x00" holds a control character (the Ingress is skipped)`)
	// The log escapes what it quotes: one problem, one line.
	for _, line := range strings.Split(strings.TrimSpace(res.stderr), "\n") {
		assert.NotContains(t, line, "\x00")
	}
}

// billionLaughs is the classic YAML alias bomb: 9^9 strings from 1 KB.
const billionLaughs = `apiVersion: v1
kind: Service
metadata:
  name: lol
  namespace: shop
spec:
  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
  h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
  i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

func TestHostileAliasBomb(t *testing.T) {
	dir := t.TempDir()
	t.Run("billion laughs", func(t *testing.T) {
		file := writeFile(t, dir, "lol.yaml", billionLaughs)
		res := renderHostile(t, file)
		assert.Equal(t, 1, res.code, res.stderr)
		assert.Contains(t, res.problems, file+": document 1: the document expands past 16 MiB through YAML aliases")
		assert.Empty(t, res.stdout)
		assert.Less(t, res.elapsed, 10*time.Second, "fails fast")
		assert.Less(t, res.maxRSS, int64(512<<20), "without eating memory")
	})
	t.Run("next to good objects", func(t *testing.T) {
		file := writeFile(t, dir, "mixed.yaml", hostileService+hostileSlice("web-1", "IPv4", "8080", hostileEndpoint("10.0.0.1"))+"---\n"+billionLaughs)
		res := renderHostile(t, file)
		assert.Equal(t, 1, res.code, res.stderr)
		assert.Contains(t, res.problems, file+": document 4: the document expands past 16 MiB through YAML aliases")
		assert.Equal(t, []string{"http://10.0.0.1:8080"}, parseConf(t, res.stdout).servers("shop-web-http"))
	})
	t.Run("aliases of a long string", func(t *testing.T) {
		// 10,000 aliases of one 64 KiB string: a 96 KB file that expands
		// to 640 MB when converted to JSON.
		long := strings.Repeat("x", 64<<10)
		aliases := strings.TrimSuffix(strings.Repeat("*s,", 10_000), ",")
		file := writeFile(t, dir, "strings.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: bomb\n  namespace: shop\n  annotations:\n    s: &s \""+long+"\"\nspec:\n  x: ["+aliases+"]\n")
		res := renderHostile(t, file)
		assert.Equal(t, 1, res.code, res.stderr)
		assert.Contains(t, res.problems, file+": document 1:")
		assert.Less(t, res.maxRSS, int64(512<<20), "without eating memory")
	})
	t.Run("deep nesting", func(t *testing.T) {
		file := writeFile(t, dir, "deep.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: deep, namespace: shop}\nspec: "+strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)+"\n")
		res := renderHostile(t, file)
		assert.Equal(t, 1, res.code, res.stderr)
		assert.Contains(t, res.problems, file+": document 1: not valid YAML")
		assert.Less(t, res.elapsed, 10*time.Second)
	})
}

func TestHostileGarbage(t *testing.T) {
	dir := t.TempDir()
	garbage := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	good := writeFile(t, dir, "good.yaml", hostileService+hostileSlice("web-1", "IPv4", "8080", hostileEndpoint("10.0.0.1")))
	for _, tc := range []struct {
		name, content, want string
	}{
		{"binary", string(garbage), "not a text file (invalid UTF-8 or NUL bytes)"},
		{"nul", "apiVersion: v1\x00", "not a text file (invalid UTF-8 or NUL bytes)"},
		{"latin1", "apiVersion: v1\nkind: Service\nmetadata: {name: caf\xe9}\n", "not a text file (invalid UTF-8 or NUL bytes)"},
		{"text", "}{][:::\n- - -: {\n\t\tx", "document 1: not valid YAML"},
		{"not an object", "- a\n- b\n", "document 1: not a Kubernetes object: a mapping with apiVersion and kind is required"},
		{"scalar", "just words\n", "document 1: not a Kubernetes object: a mapping with apiVersion and kind is required"},
		{"no kind", "metadata: {name: x}\n", "document 1: not a Kubernetes object: apiVersion and kind are required"},
		{"unknown kind", "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: x}\n", "document 1: example.com/v1 Gadget is not used, skipped"},
		{"bad field type", "apiVersion: v1\nkind: Service\nmetadata: {name: [x]}\n", "document 1: v1 Service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.content)
			res := renderHostile(t, file)
			if tc.name != "unknown kind" {
				assert.Equal(t, 1, res.code, "unusable input")
			}
			assert.Contains(t, res.problems, file+": "+tc.want)

			// Next to a good file, the good one is still rendered.
			res = renderHostile(t, file, good)
			if tc.name != "unknown kind" {
				assert.Equal(t, 1, res.code, res.stderr)
			}
			assert.Contains(t, res.problems, file+": "+tc.want)
			assert.Equal(t, []string{"http://10.0.0.1:8080"}, parseConf(t, res.stdout).servers("shop-web-http"))
		})
	}
}

func TestHostileEmptyFiles(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", hostileService+hostileSlice("web-1", "IPv4", "8080", hostileEndpoint("10.0.0.1")))
	for name, content := range map[string]string{"empty": "", "blank": " \n\t\n\r\n"} {
		t.Run(name, func(t *testing.T) {
			file := writeFile(t, dir, name+".yaml", content)
			res := renderHostile(t, file)
			assert.Equal(t, 1, res.code)
			assert.Contains(t, res.problems, file+": the file is empty")
			assert.Empty(t, res.stdout)

			res = renderHostile(t, file, good)
			assert.Equal(t, 1, res.code)
			assert.Contains(t, res.problems, file+": the file is empty")
			assert.Equal(t, []string{"http://10.0.0.1:8080"}, parseConf(t, res.stdout).servers("shop-web-http"))
		})
	}
	t.Run("only comments and separators", func(t *testing.T) {
		file := writeFile(t, dir, "comments.yaml", "# nothing here\n---\n# nor here\n---\n")
		res := renderHostile(t, file)
		assert.Equal(t, 1, res.code)
		assert.Contains(t, res.problems, file+":")
	})
	t.Run("empty directory", func(t *testing.T) {
		empty := filepath.Join(dir, "nothing")
		require.NoError(t, os.MkdirAll(empty, 0o755))
		writeFile(t, empty, "README.txt", "not a manifest")
		res := renderHostile(t, empty)
		assert.Equal(t, 1, res.code)
		assert.Contains(t, res.problems, empty+": no .yaml, .yml, .json files in the directory")
	})
}

func TestHostileSameObjectTwice(t *testing.T) {
	dir := t.TempDir()
	slice := hostileSlice("web-1", "IPv4", "8080", hostileEndpoint("10.0.0.1"))
	other := hostileSlice("web-1", "IPv4", "9090", hostileEndpoint("10.9.9.9"))
	t.Run("in one file", func(t *testing.T) {
		file := writeFile(t, dir, "twice.yaml", hostileService+slice+other+"---\n"+hostileService)
		res := renderHostile(t, file)
		assert.Equal(t, 1, res.code, res.stderr)
		assert.Contains(t, res.problems, file+": document 4: EndpointSlice shop/web-1 is defined again (first in "+file+": document 3); this copy is skipped")
		assert.Contains(t, res.problems, file+": document 5: Service shop/web is defined again (first in "+file+": document 1); this copy is skipped")
		assert.Contains(t, res.problems, file+": document 6: Ingress shop/web is defined again (first in "+file+": document 2); this copy is skipped")
		assert.Equal(t, []string{"http://10.0.0.1:8080"}, parseConf(t, res.stdout).servers("shop-web-http"), "the first copy is used")
	})
	t.Run("in two files", func(t *testing.T) {
		first := writeFile(t, dir, "a.yaml", hostileService+slice)
		second := writeFile(t, dir, "b.yaml", other)
		res := renderHostile(t, first, second)
		assert.Equal(t, 1, res.code, res.stderr)
		assert.Contains(t, res.problems, second+": document 1: EndpointSlice shop/web-1 is defined again (first in "+first+": document 3); this copy is skipped")
		assert.Equal(t, []string{"http://10.0.0.1:8080"}, parseConf(t, res.stdout).servers("shop-web-http"))

		// The same file given twice is read twice: every object is a duplicate.
		res = renderHostile(t, first, first)
		assert.Equal(t, 1, res.code, res.stderr)
		assert.Contains(t, res.problems, first+": document 1: Service shop/web is defined again (first in "+first+": document 1)")
		assert.Equal(t, []string{"http://10.0.0.1:8080"}, parseConf(t, res.stdout).servers("shop-web-http"))
	})
}

// TestHostileIngressOutput: one Ingress of 465 KB, within Kubernetes'
// limits, whose 2,000 Prefix paths on one host would each copy its 252 KB
// router.middlewares annotation of 21,000 names: 588 MB of configuration
// before maxIngressOutput. It is skipped with an error naming it and the
// annotation; the Ingress next to it is routed, in a configuration and a
// process of a few megabytes.
func TestHostileIngressOutput(t *testing.T) {
	names := make([]string, 21_000)
	for i := range names {
		names[i] = fmt.Sprintf("m%05d@file", i)
	}
	var b strings.Builder
	b.WriteString(hostileService)
	b.WriteString(hostileSlice("web-1", "IPv4", "8080", hostileEndpoint("10.0.0.1")))
	fmt.Fprintf(&b, `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: wide
  namespace: shop
  annotations:
    traefik.ingress.kubernetes.io/router.middlewares: %q
spec:
  rules:
    - host: wide.example
      http:
        paths:
`, strings.Join(names, ","))
	for i := range 2_000 {
		fmt.Fprintf(&b, "          - {path: /section-%04d, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}\n", i)
	}
	require.InDelta(t, 465_000, b.Len(), 20_000, "the size of the finding")
	file := writeFile(t, t.TempDir(), "wide.yaml", b.String())

	res := renderHostile(t, file)
	require.Equal(t, 0, res.code, "%.2000s", res.stderr)
	assert.Less(t, len(res.stdout), 16<<20, "the configuration")
	conf := parseConf(t, res.stdout)
	assert.Contains(t, conf.HTTP.Routers, "shop-web-web-example", "the normal Ingress is routed")
	assert.Len(t, conf.HTTP.Routers, 1, "no router of the wide one")
	assert.Contains(t, res.problems, "Ingress shop/wide: metadata.annotations[traefik.ingress.kubernetes.io/router.middlewares]: 2000 routers would each copy the 251999 bytes of this annotation")
	assert.Contains(t, res.problems, "over maxIngressOutput (8388608 bytes) (the Ingress is skipped)")
	assert.Less(t, len(res.stderr), 4096, "no log line echoes the annotation")
	// Measured: 60-70 MiB (4.9 GiB and a 1 GB configuration before the bound).
	assert.Less(t, res.maxRSS, int64(200<<20), "peak memory")
	t.Logf("%d bytes of Ingress: %d bytes of configuration in %s, peak memory %d MiB", b.Len(), len(res.stdout), res.elapsed, res.maxRSS>>20)
}
