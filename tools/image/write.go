package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// writeTarball writes img with its tags as the tarball `docker save`
// writes (manifest.json, the config, the layers), which docker load,
// podman load and crane push read. It replaces path only once the
// tarball is whole.
func writeTarball(path string, img v1.Image, tags []name.Tag) error {
	refs := map[name.Reference]v1.Image{}
	for _, t := range tags {
		refs[t] = img
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".new"
	if err := tarball.MultiRefWriteToFile(tmp, refs); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// writeLayout writes index as the one entry of an OCI image layout at
// path, named ref (its org.opencontainers.image.ref.name, which skopeo's
// oci:PATH:REF reads). An existing layout at path is replaced; any other
// file or directory there is an error, never removed.
func writeLayout(path string, index v1.ImageIndex, ref string) error {
	if err := checkReplaceable(path); err != nil {
		return err
	}
	tmp := path + ".new"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	// layout.Write leaves blobs/ to the first layer written; an index
	// written first needs it too.
	if err := os.MkdirAll(filepath.Join(tmp, "blobs", "sha256"), 0o755); err != nil {
		return err
	}
	lp, err := layout.Write(tmp, empty.Index)
	if err == nil {
		err = lp.AppendIndex(index, layout.WithAnnotations(map[string]string{
			"org.opencontainers.image.ref.name": ref,
		}))
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// checkReplaceable accepts a path that does not exist, or is an OCI image
// layout (a directory with an oci-layout file), such as an earlier run
// wrote.
func checkReplaceable(path string) error {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", path)
	}
	if _, err := os.Stat(filepath.Join(path, "oci-layout")); err != nil {
		return fmt.Errorf("%s exists and is not an OCI image layout (no oci-layout file): not replacing it", path)
	}
	return nil
}
