package plugins

// This file is copied into a copy of Traefik's module, next to its plugin
// loader (package plugins), by tools/traefik-bench/run: it is not part of
// sliceway's build. It lives in package plugins because Traefik's Provider
// wrapper, whose Provide does the decoding, can only be built there: its
// fields are unexported and newProvider wants a Yaegi interpreter.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/safe"
)

// BenchmarkSlicewayRead/<configuration>/plugin times what Traefik spends
// taking in one of sliceway's configurations from traefik-plugin/, beside
// the http and file sub-benchmarks of pkg/provider/http, which share the
// name so that the run script prints them together. Each iteration goes
// through Traefik's own Provider.Provide: the plugin's json.Marshaler on
// the channel, MarshalJSON, encoding/json into a fresh
// dynamic.Configuration, the dynamic.Message out. What is left out is
// Yaegi's call of the interpreted MarshalJSON, which returns the plugin's
// slice as it is: a cost that does not grow with the configuration.
func BenchmarkSlicewayRead(b *testing.B) {
	files := strings.Fields(os.Getenv("SLICEWAY_READ_FILES"))
	if len(files) == 0 {
		b.Skip("SLICEWAY_READ_FILES is not set")
	}
	for _, name := range files {
		text := slicewayStreamedText(b, name)
		// Provide only logs a configuration it cannot decode and waits for
		// the next, so one that fails would hang the loop below: decoded
		// once here the same way, it fails the benchmark instead.
		var check dynamic.Configuration
		if err := json.Unmarshal(text, &check); err != nil {
			b.Fatal(err)
		}
		if check.HTTP == nil || len(check.HTTP.Routers) == 0 {
			b.Fatalf("%s: no HTTP routers", name)
		}
		base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		b.Run(base+"/plugin", func(b *testing.B) {
			pp := &slicewayPlugin{}
			p := &Provider{name: "plugin-sliceway", pp: pp}
			messages := make(chan dynamic.Message)
			pool := safe.NewPool(context.Background())
			defer pool.Stop()
			if err := p.Provide(messages, pool); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				// What the plugin sends for each frame of the stream.
				pp.cfgChan <- &slicewayConfiguration{text: text}
				if msg := <-messages; msg.Configuration == nil {
					b.Fatal("no configuration")
				}
			}
		})
	}
}

// slicewayPlugin stands for the plugin's Provider as Traefik sees it, a PP:
// Provide keeps the channel, on which the benchmark sends as the plugin's
// stream does.
type slicewayPlugin struct{ cfgChan chan<- json.Marshaler }

func (p *slicewayPlugin) Init() error { return nil }

func (p *slicewayPlugin) Provide(cfgChan chan<- json.Marshaler) error {
	p.cfgChan = cfgChan
	return nil
}

func (p *slicewayPlugin) Stop() error { return nil }

// slicewayConfiguration is the plugin's configuration type
// (traefik-plugin/provider.go): the text serve wrote, handed on undecoded.
type slicewayConfiguration struct{ text []byte }

func (c *slicewayConfiguration) MarshalJSON() ([]byte, error) { return c.text, nil }

// slicewayStreamedText is the configuration of file name as serve streams
// it, on one line: compact JSON, not the indented text of sliceway render.
func slicewayStreamedText(b *testing.B, name string) []byte {
	b.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		b.Fatal(err)
	}
	return compact.Bytes()
}
