package http

// This file is copied into a copy of Traefik's module, next to its HTTP
// provider (package http), by tools/traefik-bench/run: it is not part of
// sliceway's build.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traefik/traefik/v3/pkg/provider/file"
)

// BenchmarkSlicewayRead times what Traefik spends reading one of
// sliceway's configurations each time it changes: its HTTP provider
// decoding the body of GET /api/config, and its file provider reading the
// file (a Go template first, then the same decoder). SLICEWAY_READ_FILES
// names the configurations (the JSON of `sliceway render`, which is also
// YAML), separated by spaces.
func BenchmarkSlicewayRead(b *testing.B) {
	files := strings.Fields(os.Getenv("SLICEWAY_READ_FILES"))
	if len(files) == 0 {
		b.Skip("SLICEWAY_READ_FILES is not set")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		b.Run(base+"/http", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeConfiguration(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(base+"/file", func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "sliceway.yaml")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			p := &file.Provider{Filename: path}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.CreateConfiguration(context.Background(), path, nil, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
