package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testVersion  = "v0.0.0-test"
	testRevision = "0123456789abcdef0123456789abcdef01234567"
	testCreated  = 1700000000
)

// hostPlatform is the platform the tests build for: the one whose binary
// this machine can run.
var hostPlatform = "linux/" + runtime.GOARCH

// scratch holds what the tests build: the shared image outlives the test
// that happens to build it first.
var scratch string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sliceway-image-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scratch = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// buildTestImage runs the command for hostPlatform into a new directory,
// writing both outputs, and returns the directory.
func buildTestImage(t *testing.T) string {
	t.Helper()
	out, err := os.MkdirTemp(scratch, "build-")
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	err = run([]string{
		"-platforms", hostPlatform,
		"-version", testVersion, "-revision", testRevision,
		"-created", strconv.Itoa(testCreated),
		"-tarball", filepath.Join(out, "sliceway-image.tar"),
		"-layout", filepath.Join(out, "sliceway-image"),
	}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	return out
}

// The image is built once for the tests that only read it.
var built struct {
	once sync.Once
	dir  string
}

func sharedImage(t *testing.T) string {
	t.Helper()
	skipUnlessLinux(t)
	built.once.Do(func() { built.dir = buildTestImage(t) })
	if built.dir == "" {
		t.Fatal("building the image failed in an earlier test")
	}
	return built.dir
}

func skipUnlessLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the image's binary is for Linux: it can only be run on Linux")
	}
}

func TestTarballHoldsBothTagsOfOneImage(t *testing.T) {
	dir := sharedImage(t)
	tar := filepath.Join(dir, "sliceway-image.tar")
	manifest, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(tar) })
	require.NoError(t, err)
	require.Len(t, manifest, 1)
	assert.ElementsMatch(t, []string{"sliceway:" + testVersion, "sliceway:latest"}, manifest[0].RepoTags)

	for _, tag := range manifest[0].RepoTags {
		ref, err := name.NewTag(tag)
		require.NoError(t, err)
		_, err = tarball.ImageFromPath(tar, &ref)
		require.NoError(t, err, tag)
	}
}

func TestImageConfig(t *testing.T) {
	img := tarballImage(t, sharedImage(t))
	cfg, err := img.ConfigFile()
	require.NoError(t, err)

	assert.Equal(t, []string{"/sliceway"}, cfg.Config.Entrypoint)
	assert.Empty(t, cfg.Config.Cmd, "the manifests give only args: nothing may come before them")
	assert.Equal(t, "65532:65532", cfg.Config.User)
	uid, _, _ := strings.Cut(cfg.Config.User, ":")
	n, err := strconv.Atoi(uid)
	require.NoError(t, err, "runAsNonRoot needs a numeric user")
	assert.NotZero(t, n)

	assert.Equal(t, "linux", cfg.OS)
	assert.Equal(t, runtime.GOARCH, cfg.Architecture)
	created := time.Unix(testCreated, 0).UTC()
	assert.True(t, cfg.Created.Equal(created), "created %s", cfg.Created)
	for _, h := range cfg.History {
		assert.True(t, h.Created.Equal(created), "history created %s", h.Created)
	}
	assert.Equal(t, map[string]string{
		"org.opencontainers.image.title":       "sliceway",
		"org.opencontainers.image.description": labels(metadata{})["org.opencontainers.image.description"],
		"org.opencontainers.image.source":      "https://github.com/sliceway/sliceway",
		"org.opencontainers.image.version":     testVersion,
		"org.opencontainers.image.revision":    testRevision,
		"org.opencontainers.image.created":     "2023-11-14T22:13:20Z",
	}, cfg.Config.Labels)
}

// The filesystem is the binary and the user's files: no shell, nothing to
// run but sliceway.
func TestImageFilesystem(t *testing.T) {
	img := tarballImage(t, sharedImage(t))
	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)

	files := map[string]*tar.Header{}
	contents := map[string]string{}
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer func() { _ = rc.Close() }()
	tr := tar.NewReader(rc)
	for range 100 { // the image holds a handful of entries
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		files[h.Name] = h
		if h.Name != "sliceway" {
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			contents[h.Name] = string(b)
		}
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	assert.ElementsMatch(t, []string{"etc/", "etc/group", "etc/passwd", "home/", "home/nonroot/", "tmp/", "sliceway"}, names)

	bin := files["sliceway"]
	require.NotNil(t, bin)
	assert.Equal(t, 0, bin.Uid, "the user it runs as must not own the binary")
	assert.Equal(t, int64(0o755), bin.Mode)
	require.Contains(t, files, "home/nonroot/")
	assert.Equal(t, nonrootUID, files["home/nonroot/"].Uid)
	assert.Contains(t, contents["etc/passwd"], "nonroot:x:65532:65532:")
	assert.Contains(t, contents["etc/group"], "nonroot:x:65532:")
	for n, h := range files {
		assert.True(t, h.ModTime.Equal(time.Unix(testCreated, 0)), "%s: modified %s", n, h.ModTime)
	}
}

// The binary inside runs on nothing but the image's own files: as root
// the test runs it chrooted into the extracted filesystem, as the image's
// user; otherwise it runs it in place.
func TestImageBinaryRuns(t *testing.T) {
	img := tarballImage(t, sharedImage(t))
	root := t.TempDir()
	extract(t, img, root)
	// The image's root directory: searchable by the user, as in a container.
	require.NoError(t, os.Chmod(root, 0o755))

	f, err := elf.Open(filepath.Join(root, "sliceway"))
	require.NoError(t, err)
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "the binary asks for a dynamic loader: it is not static")
	}
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[runtime.GOARCH]
	if want != elf.EM_NONE {
		assert.Equal(t, want, f.Machine)
	}
	require.NoError(t, f.Close())

	expected, err := os.ReadFile("../../fixtures/demo/expected.yaml")
	require.NoError(t, err)
	// run runs the image's binary with args, chrooted into the image as
	// its user when root.
	run := func(args ...string) (string, string, error) {
		var cmd *exec.Cmd
		if os.Geteuid() == 0 {
			cmd = exec.Command(entrypoint, args...) // a path inside the chroot
			cmd.Dir = "/"
			cmd.SysProcAttr = &syscall.SysProcAttr{
				Chroot:     root,
				Credential: &syscall.Credential{Uid: nonrootUID, Gid: nonrootGID},
			}
		} else {
			cmd = exec.Command(filepath.Join(root, entrypoint), args...)
			cmd.Dir = root
		}
		cmd.Env = []string{}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	if os.Geteuid() != 0 {
		t.Log("not root: running the binary in place, not chrooted into the image as its user")
	}
	stdout, stderr, err := run("render", "--demo", "--format=yaml")
	require.NoError(t, err, stderr)
	assert.Equal(t, string(expected), stdout)

	// The version the image is labelled with is the binary's own.
	stdout, stderr, err = run("version")
	require.NoError(t, err, stderr)
	assert.Contains(t, stdout, testVersion)
}

// The layout holds one index, named by the version, of the same image as
// the tarball: the same config (docker's image ID) and layer. (A tarball
// has no manifest: who reads it writes one.)
func TestLayoutHoldsTheIndex(t *testing.T) {
	dir := sharedImage(t)
	lp, err := layout.ImageIndexFromPath(filepath.Join(dir, "sliceway-image"))
	require.NoError(t, err)
	top, err := lp.IndexManifest()
	require.NoError(t, err)
	require.Len(t, top.Manifests, 1)
	entry := top.Manifests[0]
	assert.Equal(t, types.OCIImageIndex, entry.MediaType)
	assert.Equal(t, testVersion, entry.Annotations["org.opencontainers.image.ref.name"])

	index, err := lp.ImageIndex(entry.Digest)
	require.NoError(t, err)
	im, err := index.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 1)
	assert.Equal(t, &v1.Platform{OS: "linux", Architecture: runtime.GOARCH}, im.Manifests[0].Platform)
	assert.Equal(t, types.OCIManifestSchema1, im.Manifests[0].MediaType)
	assert.Equal(t, testRevision, im.Annotations["org.opencontainers.image.revision"])

	img, err := index.Image(im.Manifests[0].Digest)
	require.NoError(t, err)
	manifest, err := img.Manifest()
	require.NoError(t, err)
	assert.Equal(t, types.OCIConfigJSON, manifest.Config.MediaType)
	require.Len(t, manifest.Layers, 1)
	assert.Equal(t, types.OCILayer, manifest.Layers[0].MediaType)
	assert.Equal(t, testRevision, manifest.Annotations["org.opencontainers.image.revision"])

	fromTarball := tarballImage(t, dir)
	assertSameContents(t, fromTarball, img)
}

// assertSameContents checks that a and b have the same config and layers.
func assertSameContents(t *testing.T, a, b v1.Image) {
	t.Helper()
	ca, err := a.ConfigName()
	require.NoError(t, err)
	cb, err := b.ConfigName()
	require.NoError(t, err)
	assert.Equal(t, ca, cb, "config")
	la, err := a.Layers()
	require.NoError(t, err)
	lb, err := b.Layers()
	require.NoError(t, err)
	require.Len(t, lb, len(la))
	for i := range la {
		da, err := la[i].Digest()
		require.NoError(t, err)
		db, err := lb[i].Digest()
		require.NoError(t, err)
		assert.Equal(t, da, db, "layer %d", i)
	}
}

// The same commit and time give the same image: a rebuild into another
// directory has the same config, layer and index.
func TestImageIsReproducible(t *testing.T) {
	first := sharedImage(t)
	second := buildTestImage(t)
	assertSameContents(t, tarballImage(t, first), tarballImage(t, second))

	ia, err := os.ReadFile(filepath.Join(first, "sliceway-image", "index.json"))
	require.NoError(t, err)
	ib, err := os.ReadFile(filepath.Join(second, "sliceway-image", "index.json"))
	require.NoError(t, err)
	assert.Equal(t, string(ia), string(ib))
}

func tarballImage(t *testing.T, dir string) v1.Image {
	t.Helper()
	tag, err := name.NewTag("sliceway:latest")
	require.NoError(t, err)
	img, err := tarball.ImageFromPath(filepath.Join(dir, "sliceway-image.tar"), &tag)
	require.NoError(t, err)
	return img
}

// extract writes the image's filesystem under root, with the modes and
// owners of its entries where this process may set them.
func extract(t *testing.T, img v1.Image, root string) {
	t.Helper()
	rc := mutate.Extract(img)
	defer func() { _ = rc.Close() }()
	tr := tar.NewReader(rc)
	for range 100 { // the image holds a handful of entries
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err)
		require.True(t, filepath.IsLocal(h.Name), "entry %q leaves the root", h.Name)
		p := filepath.Join(root, h.Name)
		mode := os.FileMode(h.Mode).Perm()
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(p, mode))
		case tar.TypeReg:
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			require.NoError(t, err)
			_, err = io.Copy(f, tr)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		default:
			t.Fatalf("entry %q: unexpected type %c", h.Name, h.Typeflag)
		}
		require.NoError(t, os.Chmod(p, mode))
		if os.Geteuid() == 0 {
			require.NoError(t, os.Lchown(p, h.Uid, h.Gid))
		}
	}
	t.Fatal("more than 100 entries in the image")
}
