package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Dockerfile at the repository's root builds the image that make
// image builds: the same compiler flags, the binary at the same place, the
// same user.
func TestDockerfileAgreesWithTheImageBuilder(t *testing.T) {
	instructions := dockerfileInstructions(t, "../../Dockerfile")

	var build string
	for _, in := range instructions {
		if strings.HasPrefix(in, "RUN ") && strings.Contains(in, "go build") {
			require.Empty(t, build, "two go build commands in the Dockerfile")
			build = in
		}
	}
	require.NotEmpty(t, build, "no RUN ... go build in the Dockerfile")
	assert.Contains(t, build, "CGO_ENABLED=0")
	// The Dockerfile's build argument stands for the version.
	for _, f := range buildFlags("$VERSION") {
		// As a shell word: a value with spaces is quoted.
		if k, v, ok := strings.Cut(f, "="); ok && strings.Contains(v, " ") {
			f = k + `="` + v + `"`
		}
		assert.Contains(t, build, " "+f+" ", "the Dockerfile's go build lacks %s", f)
	}
	assert.True(t, strings.HasSuffix(build, " -o /out/sliceway ./cmd/sliceway"), build)

	assert.Contains(t, instructions, "COPY --from=build /out/sliceway "+entrypoint)
	assert.Contains(t, instructions, "USER "+userSpec)
	assert.Contains(t, instructions, `ENTRYPOINT ["`+entrypoint+`"]`)
	// distroless's nonroot is 65532 too, with ownership of nothing it runs.
	assert.Contains(t, instructions, "FROM gcr.io/distroless/static:nonroot")
}

// dockerfileInstructions are the Dockerfile's instructions, one a string,
// continuation lines joined and comments dropped.
func dockerfileInstructions(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") || (line == "" && cur.Len() == 0) {
			continue
		}
		more := strings.HasSuffix(line, `\`)
		cur.WriteString(strings.TrimSpace(strings.TrimSuffix(line, `\`)))
		if more {
			cur.WriteString(" ")
			continue
		}
		out = append(out, cur.String())
		cur.Reset()
	}
	require.Zero(t, cur.Len(), "the Dockerfile ends in a continuation")
	return out
}

// .dockerignore keeps out of the build context only what cmd/sliceway is
// not built from: every source and embedded file of its packages in this
// repository, and go.mod and go.sum, are in it.
func TestDockerignoreKeepsWhatTheBuildReads(t *testing.T) {
	patterns := dockerignorePatterns(t, "../../.dockerignore")

	cmd := exec.Command("go", "list", "-deps", "-json=Dir,GoFiles,EmbedFiles,Module", "./cmd/sliceway")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	root, err := filepath.Abs("../..")
	require.NoError(t, err)

	inputs := []string{"go.mod", "go.sum"}
	dec := json.NewDecoder(&stdout)
	for range 10000 { // a package a value; far fewer than this
		var pkg struct {
			Dir                 string
			GoFiles, EmbedFiles []string
			Module              *struct{ Main bool }
		}
		err := dec.Decode(&pkg)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if pkg.Module == nil || !pkg.Module.Main {
			continue // the standard library, or a module go mod download fetches
		}
		dir, err := filepath.Rel(root, pkg.Dir)
		require.NoError(t, err)
		for _, f := range append(pkg.GoFiles, pkg.EmbedFiles...) {
			inputs = append(inputs, filepath.ToSlash(filepath.Join(dir, f)))
		}
	}
	require.Contains(t, inputs, "fixtures/demo/manifests.yaml", "the demo is embedded: go list should name it")
	for _, in := range inputs {
		if p := ignoredBy(patterns, in); p != "" {
			t.Errorf(".dockerignore's %q keeps %s, which the build reads, out of the context", p, in)
		}
	}
}

// dockerignorePatterns are the file's patterns. The test knows Docker's
// plain patterns (path.Match syntax, from the context's root); it fails
// on the others rather than misjudge them.
func dockerignorePatterns(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	var patterns []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.TrimSpace(sc.Text())
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		require.False(t, strings.HasPrefix(p, "!") || strings.Contains(p, "**"),
			".dockerignore: %q: exceptions and ** are beyond this test; extend it", p)
		_, err := path.Match(p, "")
		require.NoError(t, err, ".dockerignore: %q", p)
		patterns = append(patterns, path.Clean(strings.TrimPrefix(p, "/")))
	}
	require.NoError(t, sc.Err())
	return patterns
}

// ignoredBy is the pattern that excludes file (slash-separated, from the
// context's root), or "": Docker excludes a file when a pattern matches it
// or one of the directories above it.
func ignoredBy(patterns []string, file string) string {
	for _, p := range patterns {
		for prefix := file; prefix != "."; prefix = path.Dir(prefix) {
			if ok, _ := path.Match(p, prefix); ok {
				return p
			}
		}
	}
	return ""
}
