package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionCommandAndFlag(t *testing.T) {
	res := run(t, nil, "version")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "Version:      ")
	assert.Contains(t, res.stdout, "Go version:   go1.")
	assert.Contains(t, res.stdout, "OS/Arch:      ")
	assert.Empty(t, res.stderr)

	flag := run(t, nil, "--version")
	require.Equal(t, 0, flag.code, flag.stderr)
	assert.Equal(t, res.stdout, flag.stdout, "--version prints what version does")
	assert.NotContains(t, flag.stdout, "Usage:", "not the help")

	bad := run(t, nil, "version", "--short")
	assert.Equal(t, 1, bad.code)
	assert.Contains(t, bad.stderr, `unexpected argument "--short"`)
}

// An unknown command or root flag is named, with the one meant when it
// is near; not the help and "command not found".
func TestUnknownCommandAndRootFlag(t *testing.T) {
	for args, want := range map[string]string{
		"versoin":    `unknown command "versoin"; did you mean version?`,
		"rendr":      `unknown command "rendr"; did you mean render?`,
		"frobnicate": `unknown command "frobnicate" (the commands: render, watch, serve, version)`,
		"--verison":  "unknown flag --verison; did you mean --version?",
		"--demo":     "unknown flag --demo (a command's flags follow it",
	} {
		res := run(t, nil, strings.Fields(args)...)
		assert.Equal(t, 1, res.code, args)
		assert.Contains(t, res.stderr, want, args)
		assert.NotContains(t, res.stdout, "Usage:", args)
	}
}

// makeBuild runs the module's `make build` with the real go command,
// into dir, with the make variables vars.
func makeBuild(t *testing.T, dir string, vars ...string) string {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	bin := filepath.Join(dir, "sliceway")
	cmd := exec.Command("make", append([]string{"--no-print-directory", "build", "GO=go", "SLICEWAY_BIN=" + bin}, vars...)...)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return bin
}

// `make build` stamps the version into the binary: `sliceway version`
// prints it, and the API server sees it in the user agent.
func TestMakeBuildStampsTheVersion(t *testing.T) {
	bin := makeBuild(t, t.TempDir(), "VERSION=v9.8.7-test")

	out, err := exec.Command(bin, "version").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "Version:      v9.8.7-test\n")

	agents := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case agents <- r.UserAgent():
		default:
		}
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "render", "--providers.kubernetesingress.endpoint="+srv.URL)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + cmd.Dir, "PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()
	select {
	case agent := <-agents:
		assert.Equal(t, "sliceway/v9.8.7-test", agent)
	case <-time.After(30 * time.Second):
		t.Fatalf("no request reached the API server; stderr:\n%s", stderr.String())
	}
}

// Without VERSION, `make build` stamps what git describe says (the tag,
// else the commit).
func TestMakeBuildVersionDefaultsToGitDescribe(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	described, err := exec.Command("git", "-C", "../..", "describe", "--tags", "--always", "--dirty").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	cmd := exec.Command("make", "--no-print-directory", "-n", "build")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), `-ldflags="-X github.com/sliceway/sliceway/provider/kubernetes/ingress.Version=`+strings.TrimSpace(string(described))+`"`)
}
