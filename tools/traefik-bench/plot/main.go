// Command plot draws the results table of tools/traefik-bench/run as an
// SVG picture of render time against cluster size, one line for each
// series of times (Traefik's Ingress provider, sliceway's cold and warm
// full renders, sliceway after one EndpointSlice change), each point the
// median of the rounds of one size, and prints those medians with the
// ratio of Traefik's time to the warm full render:
//
//	go run ./tools/traefik-bench/plot -in results.tsv -out render-time.svg
//
// It uses the standard library alone, so that the picture on the
// performance page can be drawn again anywhere the repository builds.
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
)

// labelFlags collects -label series=text.
type labelFlags map[string]string

func (l labelFlags) String() string { return "" }

func (l labelFlags) Set(v string) error {
	name, text, ok := strings.Cut(v, "=")
	if !ok || name == "" || text == "" {
		return fmt.Errorf("%q is not series=text", v)
	}
	l[name] = text
	return nil
}

func main() {
	labels := labelFlags(maps.Clone(DefaultLabels))
	in := flag.String("in", "results.tsv", "the results table written by tools/traefik-bench/run")
	out := flag.String("out", "render-time.svg", "where the SVG picture goes")
	title := flag.String("title", "Render time against cluster size", "the picture's title")
	ylabel := flag.String("ylabel", "time per render (ms)", "what the times are, beside the vertical axis")
	flag.Var(labels, "label", "series=text: the legend's name of a series (traefik, full, warm, slice, or any *_ns column); repeatable")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected arguments %q", flag.Args()))
	}
	if err := run(*in, *out, Options{Title: *title, YLabel: *ylabel, Labels: labels}); err != nil {
		fail(err)
	}
}

func run(in, out string, o Options) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only: nothing is lost when closing fails
	res, err := ParseResults(f, in)
	if err != nil {
		return err
	}
	// Written beside the target and renamed, so that a failed run leaves
	// the previous picture, not half of one.
	tmp, err := os.CreateTemp(filepath.Dir(out), ".render-time-*.svg")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // after the rename there is nothing left to remove
	if err := WriteSVG(tmp, res, o); err != nil {
		_ = tmp.Close() // the write's error is the one to report
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; the picture is for everyone to read.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	if err := res.Summary(os.Stdout); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d series, %d sizes\n", out, len(res.Series), len(res.Sizes))
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "plot:", err)
	os.Exit(1)
}
