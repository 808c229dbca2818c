package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildFlags make the binary static (no cgo: the image has no C library),
// free of this machine's paths (-trimpath: the same commit gives the same
// bytes anywhere) and without its symbol table and DWARF (-s -w), which
// only a debugger reads; with the version stamped (versionVar, which
// `sliceway version` and the user agent say). The Dockerfile builds with
// the same ones.
func buildFlags(version string) []string {
	return []string{"-trimpath", "-ldflags=-s -w -X " + versionVar + "=" + version}
}

// versionVar is the variable of sliceway's version.
const versionVar = "github.com/sliceway/sliceway/provider/kubernetes/ingress.Version"

// compile builds ./cmd/sliceway of the repository at root for the
// platform (linux/ARCH) into dir, stamped with version, and returns the
// binary's path. The go command's output goes to stderr.
func compile(goCommand, root, platform, version, dir string, stderr io.Writer) (string, error) {
	osName, arch, _ := strings.Cut(platform, "/")
	out, err := filepath.Abs(filepath.Join(dir, "sliceway-"+osName+"-"+arch))
	if err != nil {
		return "", err
	}
	args := append([]string{"build"}, buildFlags(version)...)
	args = append(args, "-o", out, "./cmd/sliceway")
	cmd := exec.Command(goCommand, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+osName, "GOARCH="+arch)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building sliceway for %s in -root %s: %w", platform, root, err)
	}
	return out, nil
}
