// Command image builds sliceway's container image without a container
// engine: the static sliceway binary of the repository, for each platform,
// on an empty base, run as the non-root user 65532:65532.
//
//	cd tools/image && SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) go run . \
//	  -version v1.2.0 -revision $(git rev-parse HEAD) \
//	  -tarball ../../bin/sliceway-image.tar -layout ../../bin/sliceway-image
//
// -tarball writes the image of one platform (-load-platform, by default
// this machine's architecture) as a tarball that `docker load`, `podman
// load` and `crane push` take, tagged NAME:VERSION and NAME:latest.
// -layout writes an OCI image layout whose one entry, named VERSION, is an
// image index of every platform of -platforms: `crane push DIR REF` and
// `skopeo copy --all oci:DIR:VERSION docker://REF` send it to a registry.
// `make image` writes both.
//
// The same commit gives the same image (config, layer, manifests and
// index, digest for digest): the binary is built with -trimpath, and every
// timestamp is -created (by default $SOURCE_DATE_EPOCH; the Makefile
// passes the commit's time).
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

// run builds the image that args ask for and writes it where they say,
// printing the digests on stdout and the compiler's output on stderr.
func run(args []string, stdout, stderr io.Writer) error {
	opts, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "sliceway-image-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()

	built, err := buildImages(opts, work, stderr)
	if err != nil {
		return err
	}
	if opts.tarball != "" {
		img := built[opts.loadPlatform]
		if err := writeTarball(opts.tarball, img, opts.tags()); err != nil {
			return fmt.Errorf("writing -tarball %s: %w", opts.tarball, err)
		}
		// The config's digest: what docker and podman call the image ID.
		id, err := img.ConfigName()
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(stdout, "%s: %s, image ID %s, %s\n", opts.tarball, opts.loadPlatform, id, joinTags(opts.tags())); err != nil {
			return err
		}
	}
	if opts.layout != "" {
		index, err := newIndex(built, opts.platforms, opts.meta)
		if err != nil {
			return err
		}
		if err := writeLayout(opts.layout, index, opts.meta.version); err != nil {
			return fmt.Errorf("writing -layout %s: %w", opts.layout, err)
		}
		digest, err := index.Digest()
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(stdout, "%s: index of %d platforms (%s)\n", opts.layout, len(opts.platforms), digest); err != nil {
			return err
		}
	}
	return nil
}
