package main

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"time"
)

// The image's one user. 65532 is the "nonroot" of distroless images, so
// that Kubernetes' runAsUser, fsGroup and the Dockerfile's image agree.
const (
	nonrootUID = 65532
	nonrootGID = 65532
	// userSpec is the config's User: numeric, so that runAsNonRoot can
	// check it without reading /etc/passwd.
	userSpec = "65532:65532"
	// entrypoint is where the binary lies in the image.
	entrypoint = "/sliceway"
)

// rootEntry is one file or directory of the image's root filesystem.
type rootEntry struct {
	name     string // relative to /, directories ending in /
	mode     int64
	uid, gid int
	content  string // of a regular file other than the binary
}

// rootEntries are the files beside the binary: no shell, no package
// manager, no C library. /etc/passwd and /etc/group name the user (for
// tools that print names, and $HOME); /tmp is there for programs that
// expect one. No CA certificates: sliceway talks to the API server with
// the cluster's CA (or --providers.kubernetesingress.certauthfilepath).
var rootEntries = []rootEntry{
	{name: "etc/", mode: 0o755},
	{name: "etc/group", mode: 0o644, content: "root:x:0:\nnonroot:x:65532:\n"},
	{name: "etc/passwd", mode: 0o644, content: "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"},
	{name: "home/", mode: 0o755},
	{name: "home/nonroot/", mode: 0o700, uid: nonrootUID, gid: nonrootGID},
	{name: "tmp/", mode: 0o1777},
}

// writeRootFS writes the image's one layer, as an uncompressed tar, to
// out: rootEntries, then the binary at entrypoint, owned by root so that
// the user it runs as cannot change it. Every entry carries the time
// created, so that the layer depends on nothing but its contents.
func writeRootFS(out io.Writer, binary string, created time.Time) error {
	tw := tar.NewWriter(out)
	for _, e := range rootEntries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: created}
		if e.name[len(e.name)-1] == '/' {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.content))
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := io.WriteString(tw, e.content); err != nil {
			return err
		}
	}

	f, err := os.Open(binary)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	h := &tar.Header{Name: entrypoint[1:], Typeflag: tar.TypeReg, Mode: 0o755, Size: info.Size(), ModTime: created}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if n, err := io.Copy(tw, f); err != nil {
		return err
	} else if n != info.Size() {
		return fmt.Errorf("%s changed while it was read", binary)
	}
	return tw.Close()
}
