//go:build unix

package manifests

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Only regular files, or symlinks to them, are read: a named pipe (whose
// open would wait for a writer), a socket or a device under the
// manifests, directly or through a symlink, is refused with an error
// naming it, and the rest is read. A read that waits forever fails the
// test instead of hanging it.
func TestReadManifestsRefusesFilesThatAreNotRegular(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "good.yaml"), svcDoc("good"))
	writeFile(t, filepath.Join(dir, "target", "linked.txt"), svcDoc("linked"))
	require.NoError(t, os.Symlink(filepath.Join(dir, "target", "linked.txt"), filepath.Join(dir, "linked.yaml")))
	pipe := filepath.Join(dir, "pipe.yaml")
	require.NoError(t, syscall.Mkfifo(pipe, 0o644))
	pipeLink := filepath.Join(dir, "pipe-link.yaml")
	require.NoError(t, os.Symlink(pipe, pipeLink))
	device := filepath.Join(dir, "device.yaml")
	require.NoError(t, os.Symlink(os.DevNull, device))
	// A socket's path is short; the directory's may not be.
	sockDir, err := os.MkdirTemp("", "sock")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	ln, err := net.Listen("unix", filepath.Join(sockDir, "s.yaml"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	socket := filepath.Join(dir, "socket.yaml")
	require.NoError(t, os.Symlink(filepath.Join(sockDir, "s.yaml"), socket))

	type result struct {
		objs     []Object
		problems []*Error
	}
	done := make(chan result, 1)
	go func() {
		objs, problems := Read([]string{dir, pipe}, IsUsedKind)
		done <- result{objs, problems}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading the manifests waits on a file that is not regular")
	}

	var got []string
	for _, o := range res.objs {
		got = append(got, filepath.Base(o.File)+": "+objRef(t, o))
	}
	assert.Equal(t, []string{"good.yaml: Service /good @1", "linked.yaml: Service /linked @1"}, got, "a symlink to a regular file is read")
	refused := map[string]string{}
	for _, p := range res.problems {
		require.False(t, p.Warning, p.Error())
		refused[p.File] = p.Err.Error()
	}
	const tail = ", not a regular file: not read (manifests are read from regular files, or symlinks to them)"
	assert.Equal(t, map[string]string{
		pipe:     "a named pipe (FIFO)" + tail, // said once, though named twice
		pipeLink: "a named pipe (FIFO)" + tail,
		device:   "a device" + tail,
		socket:   "a socket" + tail,
	}, refused)
	assert.Len(t, res.problems, 4, "%q", problemLines(res.problems))
}

// A file that a following read finds turned into a named pipe is refused
// like an unreadable one: its last objects stay, and the next read does
// not wait on it either.
func TestManifestSetFileBecomesANamedPipe(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	writeFile(t, file, svcDoc("a"))
	set := NewSet([]string{dir}, IsUsedKind)
	var named []string
	set.OnRead(func(name string) { named = append(named, name) })
	changed, problems := set.Read()
	require.True(t, changed)
	require.Empty(t, problems)
	assert.Equal(t, []string{dir, file}, named, "each path and file is told before it is read")

	require.NoError(t, os.Remove(file))
	require.NoError(t, syscall.Mkfifo(file, 0o644))
	done := make(chan []*Error, 1)
	go func() {
		_, problems := set.Read()
		done <- problems
	}()
	select {
	case problems = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the read waits on the named pipe")
	}
	assert.Equal(t, []string{
		"error: " + file + ": a named pipe (FIFO), not a regular file: not read (manifests are read from regular files, or symlinks to them)",
		"warning: " + file + ": the objects of its last version that could be used stay until it is fixed",
	}, problemLines(problems))
	assert.Len(t, set.Objects(), 1)
}
