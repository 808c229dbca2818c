package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
)

// options are the command line of the command, checked.
type options struct {
	goCommand    string
	root         string   // the repository: the module holding ./cmd/sliceway
	platforms    []string // os/arch, as the index lists them
	loadPlatform string   // the one platform of the tarball
	name         string   // repository of the tarball's tags
	tarball      string
	layout       string
	meta         metadata
}

// metadata is what the labels and annotations say, and when the image
// was created.
type metadata struct {
	version  string
	revision string
	source   string
	created  time.Time
}

func parseOptions(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	var platforms, created string
	fs.StringVar(&o.goCommand, "go", "go", "the go command that builds the binary")
	fs.StringVar(&o.root, "root", "../..", "the repository, whose ./cmd/sliceway is built")
	fs.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", "comma-separated os/arch of the index in -layout")
	fs.StringVar(&o.loadPlatform, "load-platform", "linux/"+runtime.GOARCH, "the os/arch of the image in -tarball, one of -platforms")
	fs.StringVar(&o.name, "name", "sliceway", "the repository of the tarball's tags NAME:VERSION and NAME:latest")
	fs.StringVar(&o.tarball, "tarball", "", "where to write the image of -load-platform for docker load, podman load or crane push")
	fs.StringVar(&o.layout, "layout", "", "where to write the OCI image layout of the index of -platforms")
	fs.StringVar(&o.meta.version, "version", "", "the version, a tag of the image and its org.opencontainers.image.version (required)")
	fs.StringVar(&o.meta.revision, "revision", "", "the commit built, its org.opencontainers.image.revision (required)")
	fs.StringVar(&o.meta.source, "source", "https://github.com/sliceway/sliceway", "the org.opencontainers.image.source")
	fs.StringVar(&created, "created", os.Getenv("SOURCE_DATE_EPOCH"), "the creation time of the image and of its files, in seconds since 1970 (default $SOURCE_DATE_EPOCH)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: every setting is a flag", fs.Arg(0))
	}

	var errs []error
	if o.tarball == "" && o.layout == "" {
		errs = append(errs, errors.New("nothing to write: give -tarball, -layout or both"))
	}
	if o.meta.version == "" {
		errs = append(errs, errors.New("-version is required"))
	} else if _, err := name.NewTag(o.name + ":" + o.meta.version); err != nil {
		errs = append(errs, fmt.Errorf("-name %q with -version %q is not an image tag: %w", o.name, o.meta.version, err))
	}
	if o.meta.revision == "" {
		errs = append(errs, errors.New("-revision is required"))
	}
	if created == "" {
		errs = append(errs, errors.New("-created is required (or $SOURCE_DATE_EPOCH): the commit's time keeps the image reproducible"))
	} else if secs, err := strconv.ParseInt(created, 10, 64); err != nil || secs < 0 {
		errs = append(errs, fmt.Errorf("-created %q is not a number of seconds since 1970", created))
	} else {
		o.meta.created = time.Unix(secs, 0).UTC()
	}
	for _, p := range strings.Split(platforms, ",") {
		p = strings.TrimSpace(p)
		if err := checkPlatform(p); err != nil {
			errs = append(errs, fmt.Errorf("-platforms: %w", err))
		} else if slices.Contains(o.platforms, p) {
			errs = append(errs, fmt.Errorf("-platforms: %s given twice", p))
		} else {
			o.platforms = append(o.platforms, p)
		}
	}
	if o.tarball != "" && !slices.Contains(o.platforms, o.loadPlatform) {
		errs = append(errs, fmt.Errorf("-load-platform %s is not one of -platforms %s", o.loadPlatform, platforms))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return o, nil
}

// checkPlatform accepts linux/ARCH: the binary is a static Linux one, and
// the go command is the judge of ARCH.
func checkPlatform(p string) error {
	osName, arch, ok := strings.Cut(p, "/")
	switch {
	case !ok || arch == "":
		return fmt.Errorf("%q is not os/arch, such as linux/amd64", p)
	case osName != "linux":
		return fmt.Errorf("%q: only linux images are built", p)
	case strings.Contains(arch, "/"):
		return fmt.Errorf("%q: variants are not supported, give os/arch", p)
	}
	return nil
}

// tags are the tarball's: NAME:VERSION, and NAME:latest.
func (o *options) tags() []name.Tag {
	var tags []name.Tag
	for _, t := range []string{o.meta.version, "latest"} {
		// parseOptions checked the version's tag; latest is always one.
		tag, err := name.NewTag(o.name + ":" + t)
		if err == nil && !slices.Contains(tags, tag) {
			tags = append(tags, tag)
		}
	}
	return tags
}

func joinTags(tags []name.Tag) string {
	s := make([]string, len(tags))
	for i, t := range tags {
		s[i] = t.String()
	}
	return strings.Join(s, " ")
}
