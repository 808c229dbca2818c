package main

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/internal/pki"
)

// tlsFixture is the manifests of a cluster with a TLS Secret, by absolute
// path: the binary runs in a directory of its own.
func tlsFixture(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs("../../fixtures/tls-secret/manifests.yaml")
	require.NoError(t, err)
	return path
}

// tlsClient is a client of serve over HTTPS that trusts ca and presents
// the given certificates; it opens a connection per request, so that a
// rotated server certificate is seen.
func tlsClient(ca *testCA, certs ...tls.Certificate) *http.Client {
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots, Certificates: certs},
		DisableKeepAlives: true,
	}}
}

// fetch is one GET: status, body and the CommonName of the server's
// certificate ("" over plain HTTP).
func fetch(t *testing.T, c *http.Client, url string, header ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	server := ""
	if res.TLS != nil {
		server = res.TLS.PeerCertificates[0].Subject.CommonName
	}
	return res.StatusCode, string(body), server
}

// answersOK tells whether GET url answers 200 through c.
func answersOK(c *http.Client, url string) bool {
	res, err := c.Get(url)
	if err != nil {
		return false
	}
	_ = res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// serverFlags writes a server certificate the ca signs for 127.0.0.1, and
// its key, into dir, and returns the flags that give them to serve.
func serverFlags(t *testing.T, dir string, ca *testCA, name string) []string {
	t.Helper()
	certPEM, keyPEM := ca.issue(t, name, pki.ServerAuth)
	return []string{"--serve.tls.cert=" + writePEM(t, dir, "tls.crt", certPEM), "--serve.tls.key=" + writePEM(t, dir, "tls.key", keyPEM)}
}

// The configuration of the TLS fixture holds a private key: over mutual
// TLS only a client with a certificate of the client CA gets it; probes
// and metrics need no certificate; the server's certificate is read again
// when its files are replaced.
func TestServeMutualTLS(t *testing.T) {
	dir := t.TempDir()
	serverCA, clientCA, otherCA := newTestCA(t, "server CA"), newTestCA(t, "client CA"), newTestCA(t, "other CA")
	certPEM, keyPEM := serverCA.issue(t, "sliceway-1", pki.ServerAuth)
	cert, key := writePEM(t, dir, "tls.crt", certPEM), writePEM(t, dir, "tls.key", keyPEM)
	cas := writePEM(t, dir, "ca.crt", clientCA.CertPEM())

	addr := freePort(t)
	base := "https://" + addr
	p := startLive(t, "serve", "--manifests="+tlsFixture(t), "--serve.address="+addr,
		"--serve.tls.cert="+cert, "--serve.tls.key="+key, "--serve.tls.clientca="+cas)

	anonymous := tlsClient(serverCA)
	traefik := tlsClient(serverCA, clientCA.clientPair(t, "traefik"))
	stranger := tlsClient(serverCA, otherCA.clientPair(t, "traefik"))
	serverOnly := tlsClient(serverCA, serverCA.clientPair(t, "traefik")) // the server's CA is not the clients'

	liveEventually(t, p, "/healthz over HTTPS without a client certificate", func() bool { return answersOK(anonymous, base+"/healthz") })
	code, body, server := fetch(t, traefik, base+"/api/config")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "PRIVATE KEY", "the fixture's key, for the proxy")
	assert.Equal(t, "sliceway-1", server)

	for name, c := range map[string]*http.Client{"no certificate": anonymous, "another CA": stranger, "the server's CA": serverOnly} {
		code, body, _ := fetch(t, c, base+"/api/config")
		want := http.StatusForbidden
		if name == "no certificate" {
			want = http.StatusUnauthorized
		}
		assert.Equal(t, want, code, name)
		assert.NotContains(t, body, "PRIVATE KEY", name)
		assert.NotContains(t, body, "BEGIN", name)
	}
	code, metrics, _ := fetch(t, anonymous, base+"/metrics")
	require.Equal(t, http.StatusOK, code, "metrics need no certificate")
	assert.Contains(t, metrics, `sliceway_serve_requests_denied_total{reason="no_certificate"} 1`)
	assert.Contains(t, metrics, `sliceway_serve_requests_denied_total{reason="bad_certificate"} 2`)

	// Plain HTTP on the HTTPS port gets nothing either.
	plain := &http.Client{Timeout: 5 * time.Second}
	if res, err := plain.Get("http://" + addr + "/api/config"); err == nil {
		data, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		assert.NotContains(t, string(data), "PRIVATE KEY")
		assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	}

	// Rotation in place, as cert-manager does it: new files, same paths.
	certPEM, keyPEM = serverCA.issue(t, "sliceway-2", pki.ServerAuth)
	writePEM(t, dir, "tls.key", keyPEM)
	writePEM(t, dir, "tls.crt", certPEM)
	liveEventually(t, p, "the rotated server certificate", func() bool {
		_, _, server := fetch(t, traefik, base+"/healthz")
		return server == "sliceway-2"
	})
	code, body, _ = fetch(t, traefik, base+"/api/config")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "PRIVATE KEY")
	assert.Contains(t, p.stderr.String(), "serve.tls.cert and serve.tls.key read again")
	assert.Equal(t, 0, p.terminate(), p.stderr.String())
}

// A bearer token guards /api/config over HTTPS; the token file is read
// again when it changes.
func TestServeBearerToken(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "server CA")
	tokenFile := writePEM(t, dir, "token", []byte("first-token\n"))
	addr := freePort(t)
	base := "https://" + addr
	p := startLive(t, append([]string{"serve", "--manifests=" + tlsFixture(t), "--serve.address=" + addr, "--serve.tokenfile=" + tokenFile},
		serverFlags(t, dir, ca, "sliceway")...)...)
	c := tlsClient(ca)
	liveEventually(t, p, "/healthz without a token", func() bool { return answersOK(c, base+"/healthz") })
	for name, header := range map[string][]string{
		"no header":    nil,
		"wrong token":  {"Authorization", "Bearer second-token"},
		"a prefix":     {"Authorization", "Bearer first"},
		"basic scheme": {"Authorization", "Basic Zmlyc3QtdG9rZW4="},
	} {
		code, body, _ := fetch(t, c, base+"/api/config", header...)
		assert.Equal(t, http.StatusUnauthorized, code, name)
		assert.NotContains(t, body, "PRIVATE KEY", name)
	}
	code, body, _ := fetch(t, c, base+"/api/config", "Authorization", "Bearer first-token")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "PRIVATE KEY")

	writePEM(t, dir, "token", []byte("second-token"))
	liveEventually(t, p, "the new token", func() bool {
		code, _, _ := fetch(t, c, base+"/api/config", "Authorization", "Bearer second-token")
		return code == http.StatusOK
	})
	code, _, _ = fetch(t, c, base+"/api/config", "Authorization", "Bearer first-token")
	assert.Equal(t, http.StatusUnauthorized, code, "the old token no longer works")
	_, metrics, _ := fetch(t, c, base+"/metrics")
	assert.Contains(t, metrics, `sliceway_serve_requests_denied_total{reason="no_token"} 2`)
	assert.Contains(t, metrics, `sliceway_serve_requests_denied_total{reason="bad_token"}`)
	assert.Equal(t, 0, p.terminate(), p.stderr.String())
}

// Without credentials serve listens on loopback only: another address is
// refused at start, naming the options, unless serve.insecure is set,
// which is said at every start.
func TestServeSafeByDefault(t *testing.T) {
	t.Run("the default address is loopback", func(t *testing.T) {
		// Whether 8080 is free here or not, the address is in the log or
		// in the error.
		p := startLive(t, "serve", "--demo")
		liveEventually(t, p, "the listening address", func() bool {
			return strings.Contains(p.stderr.String(), "127.0.0.1:8080")
		})
		assert.NotContains(t, p.stderr.String(), "insecure")
	})
	port := strings.TrimPrefix(freePort(t), "127.0.0.1")
	for _, address := range []string{port, "0.0.0.0" + port, "[::]" + port} {
		res := run(t, nil, "serve", "--demo", "--serve.address="+address)
		assert.Equal(t, 1, res.code, address)
		for _, option := range []string{"serve.address", "serve.tls.clientCA", "serve.tokenFile", "serve.insecure=true", "private keys"} {
			assert.Contains(t, res.stderr, option, address)
		}
	}
	dir := t.TempDir()
	res := run(t, nil, "serve", "--demo", "--serve.address="+port, "--serve.tokenfile="+writePEM(t, dir, "token", []byte("t")))
	assert.Equal(t, 1, res.code, "a token without TLS would cross the network in clear")
	assert.Contains(t, res.stderr, "serve.tls.cert")

	p := startLive(t, "serve", "--demo", "--serve.address=0.0.0.0"+port, "--serve.insecure=true", "--log.format=json")
	liveEventually(t, p, "/healthz", func() bool {
		code, _, _, err := httpGet(t, "http://127.0.0.1"+port+"/healthz")
		return err == nil && code == http.StatusOK
	})
	assert.Contains(t, p.stderr.String(), `"level":"warn"`)
	assert.Contains(t, p.stderr.String(), "serve.insecure=true")
	assert.Equal(t, 0, p.terminate(), p.stderr.String())
}

// Idle clients cannot starve the others: past serve.maxConnections the
// longest-waiting connections are closed, and /healthz still answers.
// Go's own server errors come out through the logger, as JSON here.
func TestServeHardenedListener(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, "server CA")
	addr := freePort(t)
	base := "https://" + addr
	// With 64 file descriptors, 220 open connections would leave none for
	// accepting a probe's, were they all kept.
	p := startProcess(t, "sh", append([]string{"-c", `ulimit -n 64 && exec "$0" "$@"`, binary,
		"serve", "--demo", "--serve.address=" + addr, "--serve.maxconnections=8", "--log.format=json"},
		serverFlags(t, dir, ca, "sliceway")...)...)
	c := tlsClient(ca)
	healthy := func() bool { return answersOK(c, base+"/healthz") }
	liveEventually(t, p, "/healthz", healthy)
	// 200 connections that never start a handshake, then 20 keep-alive
	// clients that made a request and went quiet; the test's bound: 220
	// sockets.
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			_ = c.Close()
		}
	}()
	for range 200 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		idle = append(idle, c)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	for range 20 {
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots})
		require.NoError(t, err)
		_, err = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		idle = append(idle, c)
	}
	for range 5 {
		assert.True(t, healthy(), "/healthz answers with 220 idle connections open")
	}
	code, metrics, _ := fetch(t, c, base+"/metrics")
	require.Equal(t, http.StatusOK, code)
	assert.GreaterOrEqual(t, metricValue(t, metrics, "sliceway_serve_connections_evicted_total"), 200.0)

	// A handshake Go's server rejects is logged by it, through the logger.
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, _ = io.WriteString(conn, "\x16\x03\x01\x00\x05hello")
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.ReadAll(conn)
	_ = conn.Close()
	liveEventually(t, p, "the TLS handshake error in the log", func() bool {
		return strings.Contains(p.stderr.String(), "TLS handshake error")
	})
	assert.Equal(t, 0, p.terminate(), p.stderr.String())
	for _, line := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
		assert.True(t, strings.HasPrefix(line, "{"), "every log line is JSON: %s", line)
		if strings.Contains(line, "TLS handshake error") {
			assert.Contains(t, line, `"component":"http"`)
			assert.Contains(t, line, `"level":"warn"`)
		}
	}
}

// watch writes its file 0600 whatever the umask (outputMode may widen it)
// and removes the temporary files a killed run left.
func TestWatchOutputFileMode(t *testing.T) {
	for _, tc := range []struct {
		args []string
		mode os.FileMode
	}{{nil, 0o600}, {[]string{"--outputmode=0640"}, 0o640}} {
		dir := t.TempDir()
		file := filepath.Join(dir, "dynamic.yaml")
		stale := filepath.Join(dir, ".dynamic.yaml.tmp-123456")
		require.NoError(t, os.WriteFile(stale, []byte("keys of a killed run"), 0o644))
		p := startLive(t, append([]string{"watch", "--demo", "--output=" + file}, tc.args...)...)
		liveEventually(t, p, "the output file", func() bool {
			_, err := os.Stat(file)
			return err == nil
		})
		info, err := os.Stat(file)
		require.NoError(t, err)
		assert.Equal(t, tc.mode, info.Mode().Perm(), tc.args)
		assert.NoFileExists(t, stale, "the stale temporary file is removed")
		assert.Equal(t, 0, p.terminate(), p.stderr.String())
	}
	res := run(t, nil, "watch", "--demo", "--output=x.yaml", "--outputmode=0044")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, `outputMode "0044"`)
}
