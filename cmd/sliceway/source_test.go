package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runIn runs the binary as run does, in the given working directory.
func runIn(t *testing.T, dir string, env []string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := runResult{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		res.code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return res
}

// One source of configuration is used, and the start says which. A file
// found by the default search never silently replaces flags.
func TestConfigurationSourceIsSaid(t *testing.T) {
	dir := t.TempDir()
	manifests := writeFile(t, dir, "cluster/app.yaml", oneIngress)
	writeFile(t, dir, "sliceway.yaml", "demo: true\nformat: yaml\n")

	t.Run("a file found by the search, and flags: refused", func(t *testing.T) {
		res := runIn(t, dir, nil, "render", "--manifests="+manifests)
		assert.Equal(t, 1, res.code)
		assert.Empty(t, res.stdout, "nothing rendered from either source")
		for _, want := range []string{"sliceway.yaml", "found by the default search", "--manifests=" + manifests, "--configfile="} {
			assert.Contains(t, res.stderr, want)
		}
	})
	t.Run("a file found by the search alone", func(t *testing.T) {
		res := runIn(t, dir, nil, "render")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stderr, "configuration read file="+filepath.Join(dir, "sliceway.yaml")+" source=file")
		assert.Contains(t, res.stdout, "routers:", "YAML, as the file says")
	})
	t.Run("an explicit file wins over flags, and says so", func(t *testing.T) {
		res := runIn(t, dir, nil, "render", "--configfile="+filepath.Join(dir, "sliceway.yaml"), "--format=json")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stderr, "flags given beside --configfile are ignored")
		assert.Contains(t, res.stderr, "--format=json")
		assert.Contains(t, res.stdout, "routers:")
	})
	t.Run("the environment beside a file is said to be ignored", func(t *testing.T) {
		res := runIn(t, dir, []string{"SLICEWAY_FORMAT=json"}, "render")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stderr, "SLICEWAY_* environment variables are ignored")
	})
	empty := t.TempDir()
	t.Run("flags", func(t *testing.T) {
		res := runIn(t, empty, nil, "render", "--manifests="+manifests)
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stderr, "configuration read source=flags")
	})
	t.Run("environment", func(t *testing.T) {
		res := runIn(t, empty, []string{"SLICEWAY_MANIFESTS=" + manifests}, "render")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stderr, "configuration read source=environment")
	})
	t.Run("defaults", func(t *testing.T) {
		res := runIn(t, empty, nil, "render")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stderr, "configuration read source=defaults")
	})
}
