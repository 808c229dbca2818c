package main

import (
	"bytes"
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	cranecmd "github.com/google/go-containerregistry/cmd/crane/cmd"
	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cranePush runs crane's own push command, as `crane push path ref` does.
func cranePush(t *testing.T, path, ref string) {
	t.Helper()
	cmd := cranecmd.NewCmdPush(&[]crane.Option{crane.Insecure})
	var out, errs bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errs)
	cmd.SetArgs([]string{path, ref})
	require.NoError(t, cmd.Execute(), "crane push %s %s: %s", path, ref, errs.String())
	assert.True(t, strings.HasPrefix(out.String(), ref[:strings.LastIndex(ref, ":")]+"@sha256:"), out.String())
}

// crane push sends both outputs to a registry (an in-memory one, on
// 127.0.0.1): the tarball as one image, the layout as the index.
func TestCranePushTakesBothOutputs(t *testing.T) {
	dir := sharedImage(t)
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)

	tagged := u.Host + "/sliceway:from-tarball"
	cranePush(t, filepath.Join(dir, "sliceway-image.tar"), tagged)
	ref, err := name.ParseReference(tagged)
	require.NoError(t, err)
	img, err := remote.Image(ref)
	require.NoError(t, err)
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, userSpec, cfg.Config.User)
	assert.Equal(t, []string{entrypoint}, cfg.Config.Entrypoint)

	indexed := u.Host + "/sliceway:from-layout"
	cranePush(t, filepath.Join(dir, "sliceway-image"), indexed)
	ref, err = name.ParseReference(indexed)
	require.NoError(t, err)
	index, err := remote.Index(ref)
	require.NoError(t, err)
	im, err := index.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 1)
	require.NotNil(t, im.Manifests[0].Platform)
	assert.Equal(t, "linux", im.Manifests[0].Platform.OS)
	assert.Equal(t, runtime.GOARCH, im.Manifests[0].Platform.Architecture)
	pushed, err := index.Image(im.Manifests[0].Digest)
	require.NoError(t, err)
	assertSameContents(t, img, pushed)
}
