package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/traefik/paerser/cli"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// buildVersion is what the binary knows of its build.
type buildVersion struct {
	version  string // the stamp of `make build` (git describe), else the module's, else dev
	commit   string // vcs.revision, when the go command recorded it
	modified bool
	time     string // the commit's time
}

// readBuildVersion reads the version stamped with -ldflags -X into
// ingress.Version (the Makefile's build does it), and the commit the go
// command recorded. An unstamped build has the module's version when
// the go command derived one from a tag, else "dev".
func readBuildVersion() buildVersion {
	v := buildVersion{version: ingress.Version}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if v.version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v.version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.commit = s.Value
		case "vcs.modified":
			v.modified = s.Value == "true"
		case "vcs.time":
			v.time = s.Value
		}
	}
	return v
}

// write prints the version as `traefik version` does.
func (v buildVersion) write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Version:      %s\n", v.version)
	if v.commit != "" {
		commit := v.commit
		if v.modified {
			commit += " (modified)"
		}
		fmt.Fprintf(&b, "Commit:       %s\n", commit)
	}
	fmt.Fprintf(&b, "Go version:   %s\n", runtime.Version())
	if v.time != "" {
		fmt.Fprintf(&b, "Built:        %s\n", v.time)
	}
	fmt.Fprintf(&b, "OS/Arch:      %s/%s\n", runtime.GOOS, runtime.GOARCH)
	_, err := io.WriteString(w, b.String())
	return err
}

func versionCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name:        "version",
		Description: "Print the version of sliceway, its commit and the Go version it was built with.",
		Run: func(args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q: version takes none", args[0])
			}
			return readBuildVersion().write(out)
		},
	}
}
