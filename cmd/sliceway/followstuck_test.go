//go:build unix

package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A named pipe beside a good manifest is refused, naming it, without
// being opened (opening it would wait for a writer and freeze the
// following): the good manifest is rendered, and a later edit of it is
// still followed. serve's /healthz stays ok.
func TestFollowRefusesANamedPipe(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "class.yaml", followClass)
	writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.1"))
	pipe := filepath.Join(dir, "pipe.yaml")
	require.NoError(t, syscall.Mkfifo(pipe, 0o644))

	t.Run("watch", func(t *testing.T) {
		p := startLive(t, "watch", "--manifests="+dir)
		lines := readConfigLines(t, p)
		assert.Contains(t, lines.next("the first configuration"), server("10.0.0.1"))
		waitStderr(t, p, "file="+pipe, 1)
		assert.Regexp(t, `ERR a named pipe \(FIFO\), not a regular file: not read .*file=`+regexp.QuoteMeta(pipe), p.stderr.String())

		writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.2"))
		line := lines.next("the edit of a.yaml beside the pipe")
		assert.Contains(t, line, server("10.0.0.2"))
		assert.Equal(t, 0, p.terminate(), "stderr:\n%s", p.stderr.String())
	})
	t.Run("serve", func(t *testing.T) {
		writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.3"))
		addr := freePort(t)
		p := startLive(t, "serve", "--manifests="+dir, "--serve.address="+addr)
		config := func() string { return servedConfig(t, addr) }
		liveEventually(t, p, "the good manifest", func() bool { return strings.Contains(config(), `"http://10.0.0.3:8080"`) })
		writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.4"))
		liveEventually(t, p, "the edit beside the pipe", func() bool { return strings.Contains(config(), `"http://10.0.0.4:8080"`) })
		code, body, _, err := httpGet(t, "http://"+addr+"/healthz")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, code, body)
		assert.Contains(t, p.stderr.String(), "file="+pipe)
		assert.Equal(t, 0, p.terminate(), "stderr:\n%s", p.stderr.String())
	})
}

// A read of the manifests that does not return (a file system that
// hangs) makes /healthz fail, naming what it waits on, so that kubelet
// restarts a process that no longer follows; when it returns, /healthz is
// ok again. The monitor logs both.
func TestFollowStuckReadFailsHealthz(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "class.yaml", followClass)
	good := writeFile(t, dir, "a.yaml", followSite("a", "10.0.0.1"))
	var log liveBuffer
	f, errs, err := followManifests([]string{dir}, manifests.IsUsedKind, zerolog.New(&log))
	require.NoError(t, err)
	require.Zero(t, errs)
	defer func() { _ = f.Close() }()
	f.stuckAfter = 200 * time.Millisecond

	release := make(chan struct{})
	read := f.readSet
	f.readSet = func() (bool, []*manifests.Error) {
		name := good
		f.readingName.Store(&name)
		<-release
		return read()
	}
	l := &latest{health: f.health}
	l.set(serveTestConfiguration(`Path("/a")`))
	srv := httptest.NewServer(newServeMux(l, newMetrics(), func(h http.Handler) http.Handler { return h }))
	defer srv.Close()
	healthz := func() (int, string) {
		code, body, _, err := httpGet(t, srv.URL+"/healthz")
		require.NoError(t, err)
		return code, body
	}
	code, _ := healthz()
	require.Equal(t, http.StatusOK, code)

	ctx := t.Context()
	go f.monitor(ctx)
	updated := make(chan struct{})
	go func() {
		f.update()
		close(updated)
	}()
	require.Eventually(t, func() bool { code, _ := healthz(); return code == http.StatusServiceUnavailable }, 5*time.Second, 20*time.Millisecond)
	code, body := healthz()
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "following the manifests is stuck: the read of "+good+" has not returned for")
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "the manifests are no longer followed") }, 5*time.Second, 20*time.Millisecond)

	close(release)
	<-updated
	code, _ = healthz()
	assert.Equal(t, http.StatusOK, code, "the read returned")
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "following the manifests again") }, 5*time.Second, 20*time.Millisecond)
}
