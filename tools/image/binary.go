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
// only a debugger reads. The Dockerfile builds with the same ones.
var buildFlags = []string{"-trimpath", "-ldflags=-s -w"}

// compile builds ./cmd/sliceway of the repository at root for the
// platform (linux/ARCH) into dir, and returns the binary's path. The go
// command's output goes to stderr.
func compile(goCommand, root, platform, dir string, stderr io.Writer) (string, error) {
	osName, arch, _ := strings.Cut(platform, "/")
	out, err := filepath.Abs(filepath.Join(dir, "sliceway-"+osName+"-"+arch))
	if err != nil {
		return "", err
	}
	args := append([]string{"build"}, buildFlags...)
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
