package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/internal/loopback"
)

// TestLocalMutualTLSRecipe runs the shell block of "Trying it on one
// machine" in docs/manifests/README.md as a user would (openssl, this
// binary as sliceway, curl), on a free port instead of 8443: the recipe
// must make a working mutual-TLS serve, refuse a client without a
// certificate and hand the configuration to one with it.
func TestLocalMutualTLSRecipe(t *testing.T) {
	for _, tool := range []string{"openssl", "curl", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the recipe needs %s: %v", tool, err)
		}
	}
	doc, err := os.ReadFile("../../docs/manifests/README.md")
	require.NoError(t, err)
	block := regexp.MustCompile("(?s)### Trying it on one machine\n.*?```sh\n(.*?)```").FindSubmatch(doc)
	require.NotNil(t, block, "no sh block under \"Trying it on one machine\"")
	script := string(block[1])
	require.Contains(t, script, "127.0.0.1:8443")
	port, err := loopback.FreePort()
	require.NoError(t, err)
	script = strings.ReplaceAll(script, "127.0.0.1:8443", "127.0.0.1:"+strconv.Itoa(port))

	bin := t.TempDir()
	require.NoError(t, os.Symlink(binary, filepath.Join(bin, "sliceway")))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-c", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The recipe starts serve in the background: on a timeout the whole
	// group goes, serve included.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "the recipe failed:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())

	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 2, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	assert.Equal(t, "401", lines[0], "no client certificate")
	assert.True(t, strings.HasPrefix(lines[1], `{"http":`), "the configuration for Traefik's certificate: %s", lines[1])
	for _, f := range []string{"ca.crt", "tls.crt", "tls.key", "client.crt", "client.key"} {
		assert.FileExists(t, filepath.Join(cmd.Dir, f))
	}
}
