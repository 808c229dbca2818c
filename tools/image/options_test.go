package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// valid is a command line parseOptions accepts; each case below spoils it.
var valid = []string{"-version", "v1", "-revision", "abc", "-created", "1", "-tarball", "out.tar", "-platforms", "linux/amd64", "-load-platform", "linux/amd64"}

func TestOptionsAcceptValid(t *testing.T) {
	o, err := parseOptions(valid, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, []string{"linux/amd64"}, o.platforms)
	assert.Equal(t, "v1", o.meta.version)
	assert.Equal(t, int64(1), o.meta.created.Unix())
	assert.Equal(t, "sliceway:v1 sliceway:latest", joinTags(o.tags()))
}

func TestOptionsCreatedFromSourceDateEpoch(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	o, err := parseOptions([]string{"-version", "v1", "-revision", "abc", "-layout", "out"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, int64(1700000000), o.meta.created.Unix())
}

func TestOptionsRejectBadInput(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	cases := []struct {
		name    string
		replace map[string]string // flag → value, "" drops the flag
		extra   []string
		want    string
	}{
		{"no output", map[string]string{"-tarball": ""}, nil, "nothing to write: give -tarball, -layout or both"},
		{"no version", map[string]string{"-version": ""}, nil, "-version is required"},
		{"version not a tag", map[string]string{"-version": "v1+dirty"}, nil, `-name "sliceway" with -version "v1+dirty" is not an image tag`},
		{"no revision", map[string]string{"-revision": ""}, nil, "-revision is required"},
		{"no time", map[string]string{"-created": ""}, nil, "-created is required (or $SOURCE_DATE_EPOCH)"},
		{"time not seconds", map[string]string{"-created": "2024-01-01"}, nil, `-created "2024-01-01" is not a number of seconds since 1970`},
		{"not linux", map[string]string{"-platforms": "windows/amd64"}, nil, `-platforms: "windows/amd64": only linux images are built`},
		{"no arch", map[string]string{"-platforms": "linux"}, nil, `-platforms: "linux" is not os/arch`},
		{"variant", map[string]string{"-platforms": "linux/arm/v7"}, nil, `-platforms: "linux/arm/v7": variants are not supported`},
		{"twice", map[string]string{"-platforms": "linux/amd64,linux/amd64"}, nil, "-platforms: linux/amd64 given twice"},
		{"load platform not built", map[string]string{"-load-platform": "linux/arm64"}, nil, "-load-platform linux/arm64 is not one of -platforms linux/amd64"},
		{"argument", nil, []string{"extra"}, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var args []string
			for i := 0; i < len(valid); i += 2 {
				v, replaced := c.replace[valid[i]]
				if !replaced {
					v = valid[i+1]
				}
				if v != "" {
					args = append(args, valid[i], v)
				}
			}
			_, err := parseOptions(append(args, c.extra...), &bytes.Buffer{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestBuildFailureNamesTheRoot(t *testing.T) {
	root := t.TempDir()
	var stderr bytes.Buffer
	_, err := compile("go", root, "linux/amd64", "v0.0.0-test", t.TempDir(), &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "building sliceway for linux/amd64 in -root "+root)
}

// A directory that is not an OCI layout is never replaced by one.
func TestLayoutRefusesToReplaceOtherDirectories(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bin")
	require.NoError(t, os.Mkdir(dir, 0o755))
	keep := filepath.Join(dir, "sliceway")
	require.NoError(t, os.WriteFile(keep, []byte("a binary"), 0o755))

	err := writeLayout(dir, empty.Index, "v1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir+" exists and is not an OCI image layout")
	b, err := os.ReadFile(keep)
	require.NoError(t, err)
	assert.Equal(t, "a binary", string(b))

	// An earlier layout is replaced, whole.
	layoutDir := filepath.Join(t.TempDir(), "layout")
	require.NoError(t, writeLayout(layoutDir, empty.Index, "v1"))
	stale := filepath.Join(layoutDir, "blobs", "stale")
	require.NoError(t, os.WriteFile(stale, nil, 0o644))
	require.NoError(t, writeLayout(layoutDir, empty.Index, "v2"))
	assert.NoFileExists(t, stale)
	index, err := os.ReadFile(filepath.Join(layoutDir, "index.json"))
	require.NoError(t, err)
	assert.Contains(t, string(index), `"v2"`)
	assert.NotContains(t, string(index), `"v1"`)
}
