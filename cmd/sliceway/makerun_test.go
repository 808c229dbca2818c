package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// makeRun runs the module's `make run` with GO standing for a go command
// whose build copies the binary of these tests to bin, so that the recipe
// itself is what is tested, without compiling anything.
func makeRun(t *testing.T, bin string) (stdout, stderr string) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	fakeGo := writeFile(t, t.TempDir(), "go", "#!/bin/sh\n# go build [-ldflags=...] -o OUT PKG: copy the binary built by TestMain to OUT; nothing else\n"+
		"[ \"$1\" = build ] || { echo \"not go build: $*\" >&2; exit 1; }\n"+
		"while [ $# -gt 0 ] && [ \"$1\" != -o ]; do shift; done\n"+
		"[ \"$1\" = -o ] || { echo \"no -o\" >&2; exit 1; }\n"+
		"cp \"$SLICEWAY_TEST_BINARY\" \"$2\"\n")
	require.NoError(t, os.Chmod(fakeGo, 0o755))
	cmd := exec.Command("make", "--no-print-directory", "run", "GO="+fakeGo, "SLICEWAY_BIN="+bin)
	cmd.Dir = "../.."
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "SLICEWAY_TEST_BINARY=" + binary}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), errOut.String())
	return out.String(), errOut.String()
}

func TestMakeRunPrintsOnlyTheJSON(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sliceway")

	// First run: no binary yet, so the build may be long and says so.
	stdout, stderr := makeRun(t, bin)
	var conf map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &conf), "stdout is the JSON alone:\n%s", stdout)
	assert.Contains(t, conf, "http")
	assert.Contains(t, stderr, "the first build compiles client-go")
	assert.Contains(t, stderr, "configuration read", "the logs go to stderr")

	// The binary is there: nothing said about the build.
	stdout, stderr = makeRun(t, bin)
	require.NoError(t, json.Unmarshal([]byte(stdout), &conf))
	assert.NotContains(t, stderr, "client-go")
}
