package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// buildImages compiles the binary for each platform of opts and wraps it
// in an image, keyed by platform. Intermediate files go to work.
func buildImages(opts *options, work string, stderr io.Writer) (map[string]v1.Image, error) {
	images := map[string]v1.Image{}
	for _, p := range opts.platforms {
		if opts.layout == "" && p != opts.loadPlatform {
			continue // only the tarball's platform is written
		}
		binary, err := compile(opts.goCommand, opts.root, p, opts.meta.version, work, stderr)
		if err != nil {
			return nil, err
		}
		img, err := newImage(binary, p, opts.meta, work)
		if err != nil {
			return nil, fmt.Errorf("the image for %s: %w", p, err)
		}
		images[p] = img
	}
	return images, nil
}

// labels are the OCI's annotations of the image: in the config, where
// `docker inspect` shows them, and on the manifests, where registries do.
func labels(m metadata) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "sliceway",
		"org.opencontainers.image.description": "Kubernetes Ingress provider rendering Traefik v3 dynamic configuration from EndpointSlices",
		"org.opencontainers.image.source":      m.source,
		"org.opencontainers.image.version":     m.version,
		"org.opencontainers.image.revision":    m.revision,
		"org.opencontainers.image.created":     m.created.Format(time.RFC3339),
	}
}

// newImage is the OCI image of one platform: one layer (writeRootFS),
// the binary as entrypoint, run as userSpec, every time set to created.
func newImage(binary, platform string, m metadata, work string) (v1.Image, error) {
	osName, arch, _ := strings.Cut(platform, "/")
	layerFile := filepath.Join(work, "layer-"+osName+"-"+arch+".tar")
	f, err := os.Create(layerFile)
	if err != nil {
		return nil, err
	}
	err = writeRootFS(f, binary, m.created)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("writing the layer: %w", err)
	}
	// The layer is compressed once and kept: the digest, the tarball and
	// the layout all read it.
	layer, err := tarball.LayerFromFile(layerFile, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
	if err != nil {
		return nil, err
	}

	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: m.created},
			CreatedBy: "tools/image: the static sliceway binary at " + entrypoint,
		},
	})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = osName, arch
	cfg.Created = v1.Time{Time: m.created}
	cfg.Config = v1.Config{
		Entrypoint: []string{entrypoint},
		User:       userSpec,
		WorkingDir: "/",
		Labels:     labels(m),
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, err
	}
	annotated, ok := mutate.Annotations(img, labels(m)).(v1.Image)
	if !ok {
		return nil, fmt.Errorf("annotating the manifest did not give an image")
	}
	return annotated, nil
}

// newIndex is the image index of the platforms, in their order.
func newIndex(images map[string]v1.Image, platforms []string, m metadata) (v1.ImageIndex, error) {
	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		img, ok := images[p]
		if !ok {
			return nil, fmt.Errorf("no image was built for %s", p)
		}
		osName, arch, _ := strings.Cut(p, "/")
		index = mutate.AppendManifests(index, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: osName, Architecture: arch}},
		})
	}
	annotated, ok := mutate.Annotations(index, labels(m)).(v1.ImageIndex)
	if !ok {
		return nil, fmt.Errorf("annotating the index did not give an index")
	}
	return annotated, nil
}
