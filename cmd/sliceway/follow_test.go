package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const followClass = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: traefik
spec:
  controller: traefik.io/ingress-controller
`

// followSite is a manifest of one site: an Ingress for host
// <name>.example, its Service and an EndpointSlice with one address.
func followSite(name, address string) string {
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %[1]s
spec:
  ingressClassName: traefik
  rules:
    - host: %[1]s.example
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: %[1]s, port: {number: 80}}}
---
`, name) + siteBackend(name, address)
}

// siteBackend is the Service of a site and an EndpointSlice with one
// address.
func siteBackend(name, address string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %[1]s
spec:
  ports:
    - port: 80
      targetPort: 8080
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %[1]s-1
  labels:
    kubernetes.io/service-name: %[1]s
addressType: IPv4
ports:
  - port: 8080
endpoints:
  - addresses: [%[2]q]
`, name, address)
}

// server is how an address shows in a configuration.
func server(address string) string { return `"url":"http://` + address + `:8080"` }

// configLines reads the configurations a watch prints, one per line.
type configLines struct {
	t     *testing.T
	p     *liveProcess
	lines chan string
}

func readConfigLines(t *testing.T, p *liveProcess) *configLines {
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		scanner := bufio.NewScanner(p.stdout)
		scanner.Buffer(nil, 16<<20)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
	}()
	return &configLines{t: t, p: p, lines: lines}
}

// next returns the next configuration.
func (c *configLines) next(what string) string {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		require.True(c.t, ok, "stdout closed while waiting for %s; stderr:\n%s", what, c.p.stderr.String())
		return line
	case <-time.After(liveTimeout):
		c.t.Fatalf("no configuration within %s while waiting for %s; stderr:\n%s", liveTimeout, what, c.p.stderr.String())
	}
	return ""
}

// until returns the first configuration that holds: a save that changes
// several objects may give a configuration for each as they arrive.
func (c *configLines) until(what string, holds func(string) bool) string {
	c.t.Helper()
	for range 20 {
		if line := c.next(what); holds(line) {
			return line
		}
	}
	c.t.Fatalf("20 configurations and none with %s", what)
	return ""
}

func has(parts ...string) func(string) bool {
	return func(line string) bool {
		for _, p := range parts {
			if !strings.Contains(line, p) {
				return false
			}
		}
		return true
	}
}

// waitStderr waits until stderr holds s n times.
func waitStderr(t *testing.T, p *liveProcess, s string, n int) {
	t.Helper()
	liveEventually(t, p, fmt.Sprintf("%q %d times on stderr", s, n), func() bool {
		return strings.Count(p.stderr.String(), s) >= n
	})
}

func TestWatchFollowsTheManifests(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "class.yaml", followClass)
	a := writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.1"))
	b := writeFile(t, dir, filepath.Join("sub", "b.yaml"), followSite("b", "10.0.1.1"))
	p := startLive(t, "watch", "--manifests="+dir, "--log.level=debug")
	lines := readConfigLines(t, p)

	first := lines.next("the first configuration")
	assert.True(t, has(server("10.0.0.1"), server("10.0.1.1"))(first), first)

	// Each marker changes one object of b.yaml, so it gives exactly one
	// configuration: the next one after a change that must give none.
	marker := 1
	markB := func() string {
		marker++
		address := fmt.Sprintf("10.0.1.%d", marker)
		writeFile(t, dir, filepath.Join("sub", "b.yaml"), followSite("b", address))
		return server(address)
	}

	t.Run("edited in place", func(t *testing.T) {
		writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.2"))
		line := lines.next("the edit of a.yaml")
		assert.True(t, has(server("10.0.0.2"), server("10.0.1.1"))(line), line)
		assert.NotContains(t, line, server("10.0.0.1"))
	})
	t.Run("written beside and renamed over, as editors save", func(t *testing.T) {
		writeFile(t, dir, "a.yaml.new", followSite("a", "10.0.0.3"))
		require.NoError(t, os.Rename(filepath.Join(dir, "a.yaml.new"), a))
		line := lines.next("a.yaml renamed over")
		assert.Contains(t, line, server("10.0.0.3"))
	})
	t.Run("broken: an error names the file and document, the last good objects stay", func(t *testing.T) {
		broken := strings.Replace(followSite("a", "10.0.0.9"), "kind: Service\n", "kind: Service\nspec: [\n", 1)
		writeFile(t, dir, "a.yaml", broken)
		// The file and the document are fields of the line, the message
		// says what is wrong.
		waitStderr(t, p, "document=2 file="+a, 1)
		assert.Regexp(t, `ERR not valid YAML: .* document=2 file=`+regexp.QuoteMeta(a), p.stderr.String())
		assert.Regexp(t, `WRN the objects of its last version that could be used stay until it is fixed .*file=`+regexp.QuoteMeta(a), p.stderr.String())
		want := markB()
		line := lines.next("the marker after the broken file")
		assert.True(t, has(want, server("10.0.0.3"))(line), "no configuration for the broken file, a's objects kept: %s", line)
	})
	t.Run("fixed: taken, and said", func(t *testing.T) {
		writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.4"))
		line := lines.next("the fixed a.yaml")
		assert.Contains(t, line, server("10.0.0.4"))
		waitStderr(t, p, "reads without errors again file="+a, 1)
		assert.Regexp(t, `INF reads without errors again file=`+regexp.QuoteMeta(a), p.stderr.String())
	})
	t.Run("touched or written unchanged: no configuration", func(t *testing.T) {
		quiet := "manifests read again: no change"
		before := strings.Count(p.stderr.String(), quiet)
		later := time.Now().Add(time.Minute)
		require.NoError(t, os.Chtimes(a, later, later))
		writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.4"))
		waitStderr(t, p, quiet, before+1)
		want := markB()
		line := lines.next("the marker after the touch")
		assert.Contains(t, line, want, "the touch gave no configuration")
	})
	t.Run("a new file in a watched directory adds its objects", func(t *testing.T) {
		writeFile(t, dir, filepath.Join("sub", "deeper", "c.yaml"), followSite("c", "10.0.2.1"))
		lines.until("the objects of c.yaml", has(`Host(\"c.example\")`, server("10.0.2.1")))
	})
	t.Run("deleted: its objects go", func(t *testing.T) {
		require.NoError(t, os.Remove(b))
		line := lines.until("b.yaml's objects gone", func(line string) bool {
			return !strings.Contains(line, "b.example") && !strings.Contains(line, "10.0.1.")
		})
		assert.Contains(t, line, server("10.0.0.4"))
		assert.Contains(t, line, server("10.0.2.1"))
	})
	t.Run("a directory removed, then made again, is followed again", func(t *testing.T) {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, "sub")))
		lines.until("the objects of sub/ gone", func(line string) bool {
			return !strings.Contains(line, "c.example") && !strings.Contains(line, "10.0.2.")
		})
		writeFile(t, dir, filepath.Join("sub", "b.yaml"), followSite("b", "10.0.3.1"))
		lines.until("b.yaml back", has(`Host(\"b.example\")`, server("10.0.3.1")))
		writeFile(t, dir, filepath.Join("sub", "b.yaml"), followSite("b", "10.0.3.2"))
		line := lines.next("the edit in the new directory")
		assert.Contains(t, line, server("10.0.3.2"))
	})

	assert.Equal(t, 0, p.terminate(), "stderr:\n%s", p.stderr.String())
}

func TestServeFollowsTheManifests(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "class.yaml", followClass)
	writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.1"))
	addr := freePort(t)
	p := startLive(t, "serve", "--manifests="+dir, "--serve.address="+addr)
	config := func() string { return servedConfig(t, addr) }
	liveEventually(t, p, "the first configuration", func() bool { return strings.Contains(config(), `"http://10.0.0.1:8080"`) })

	writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.2"))
	liveEventually(t, p, "the edit of a.yaml", func() bool { return strings.Contains(config(), `"http://10.0.0.2:8080"`) })
	assert.Equal(t, 0, p.terminate(), "stderr:\n%s", p.stderr.String())
}

func TestWatchWithoutFollowingReadsTheManifestsOnce(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "class.yaml", followClass)
	writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.1"))
	p := startLive(t, "watch", "--manifests="+dir, "--followmanifests=false")
	lines := readConfigLines(t, p)
	assert.Contains(t, lines.next("the configuration"), server("10.0.0.1"))
	assert.NotContains(t, p.stderr.String(), "following the manifests")
	assert.Equal(t, 0, p.terminate(), "stderr:\n%s", p.stderr.String())
}

// servedConfig is what serve at addr answers to GET /api/config, "" until
// it answers 200.
func servedConfig(t *testing.T, addr string) string {
	t.Helper()
	code, body, _, err := httpGet(t, "http://"+addr+"/api/config")
	if err != nil || code != http.StatusOK {
		return ""
	}
	return body
}
