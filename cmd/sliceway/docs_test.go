package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// testedTraefikVersion is the Traefik version the project's checks run
// (tools/traefik-check/run's TRAEFIK_VERSION default).
func testedTraefikVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../tools/traefik-check/run")
	require.NoError(t, err)
	m := regexp.MustCompile(`TRAEFIK_VERSION:-(v[0-9.]+)\}`).FindSubmatch(data)
	require.NotNil(t, m, "tools/traefik-check/run sets no default TRAEFIK_VERSION")
	return string(m[1])
}

// The sidecar runs the Traefik the project tests, not a floating tag
// that moves under the user; and the guide says, where it adds
// --core.strictTLSOptions, which Traefik it needs (an older one exits at
// start).
func TestSidecarPinsTheTestedTraefik(t *testing.T) {
	data, err := os.ReadFile("../../docs/manifests/sidecar.yaml")
	require.NoError(t, err)
	var images []string
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		var dep appsv1.Deployment
		if yaml.Unmarshal(doc, &dep) != nil || dep.Kind != "Deployment" {
			continue
		}
		for _, c := range dep.Spec.Template.Spec.Containers {
			if strings.HasPrefix(c.Image, "traefik:") {
				images = append(images, c.Image)
			}
		}
	}
	assert.Equal(t, []string{"traefik:" + testedTraefikVersion(t)}, images)

	guide, err := os.ReadFile("../../docs/migrating-from-ingress-nginx.md")
	require.NoError(t, err)
	_, step4, ok := strings.Cut(string(guide), "\n### 4. ")
	require.True(t, ok, "the guide has no step 4")
	step4, _, _ = strings.Cut(step4, "\n### ")
	require.Contains(t, step4, "--core.strictTLSOptions=true")
	assert.Contains(t, step4, "v3.7.11 or later", "step 4 adds --core.strictTLSOptions without the Traefik it needs")
}

// The Traefik command getting-started gives for `make demo` defines every
// entry point the demo's routers name: Traefik logs an error for each
// router on an entry point it lacks.
func TestGettingStartedTraefikDefinesTheDemoEntryPoints(t *testing.T) {
	doc, err := os.ReadFile("../../docs/getting-started.md")
	require.NoError(t, err)
	var command string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if strings.Contains(block[1], "make demo ARGS=--output") && strings.Contains(block[1], "traefik ") {
			command = strings.ReplaceAll(block[1], "\\\n", " ")
		}
	}
	require.NotEmpty(t, command, "no Traefik command for make demo in docs/getting-started.md")
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`--entryPoints\.([A-Za-z0-9_-]+)\.address=`).FindAllStringSubmatch(command, -1) {
		defined[m[1]] = true
	}

	// make demo's manifests (DEMO_MANIFESTS), with its DEMO_FLAGS.
	manifests, err := filepath.Abs("../../fixtures/demo/manifests.yaml")
	require.NoError(t, err)
	res := run(t, nil, "render", "--manifests="+manifests,
		"--providers.kubernetesingress.allowfqdnendpoints=true", "--providers.kubernetesingress.allowloopbackendpoints=true")
	require.Equal(t, 0, res.code, res.stderr)
	var conf struct {
		HTTP struct {
			Routers map[string]struct {
				EntryPoints []string `json:"entryPoints"`
			} `json:"routers"`
		} `json:"http"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &conf))
	named := 0
	for name, r := range conf.HTTP.Routers {
		for _, ep := range r.EntryPoints {
			named++
			assert.True(t, defined[ep], "router %s names entry point %s, which the Traefik command of getting-started.md does not define", name, ep)
		}
	}
	require.NotZero(t, named, "the demo names no entry point: the test checks nothing")
}

// The long builds of make demo, make kubectl and make image say what they
// do first, as make run does, rather than leave a silent terminal for
// minutes. GO is a go command that says it ran and fails, so that nothing
// is built and the line must come before it.
func TestMakeSaysWhatItBuildsFirst(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	fakeGo := writeFile(t, t.TempDir(), "go", "#!/bin/sh\necho \"fake go $*\" >&2\nexit 1\n")
	require.NoError(t, os.Chmod(fakeGo, 0o755))
	for target, want := range map[string]string{
		"demo":    "make demo: building the control plane",
		"kubectl": "make kubectl: building kubectl",
		"image":   "make image: building sliceway",
	} {
		cmd := exec.Command("make", "--no-print-directory", "-s", target, "GO="+fakeGo, "VERSION=v0.0.0-test")
		cmd.Dir = "../.."
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.Error(t, cmd.Run(), target)
		lines := strings.Split(stderr.String(), "\n")
		assert.True(t, strings.HasPrefix(lines[0], want), "make %s: the first line is %q", target, lines[0])
		assert.Contains(t, stderr.String(), "fake go ", "make %s ran no go command", target)
	}
}
