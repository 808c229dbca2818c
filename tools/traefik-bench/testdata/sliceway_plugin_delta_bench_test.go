package plugins

// This file is copied into a copy of Traefik's module, next to its plugin
// loader (package plugins), by tools/traefik-bench/run, beside
// sliceway_plugin_bench_test.go: it is not part of sliceway's build.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/safe"
)

// BenchmarkSlicewayPluginDelta/<configuration>/plugin-delta times one change of
// one service through the real plugin (traefik-plugin/, SLICEWAY_PLUGIN_DIR)
// run by Traefik's Yaegi interpreter: a delta frame written on a stream
// that began with the whole configuration, until Traefik's Provider hands
// on the new dynamic.Message. It holds the plugin's own work (reading the
// frame, applying it, writing the whole text) and Traefik's decoding of
// that text, which the plugin sub-benchmark times alone: the difference is
// the plugin's.
func BenchmarkSlicewayPluginDelta(b *testing.B) {
	files := strings.Fields(os.Getenv("SLICEWAY_READ_FILES"))
	src := os.Getenv("SLICEWAY_PLUGIN_DIR")
	if len(files) == 0 || src == "" {
		b.Skip("SLICEWAY_READ_FILES or SLICEWAY_PLUGIN_DIR is not set")
	}
	b.Chdir(b.TempDir())
	const module = "github.com/sliceway/sliceway/traefik-plugin"
	if err := os.CopyFS(filepath.Join("plugins-local", "src", filepath.FromSlash(module)), os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	for _, name := range files {
		text := slicewayStreamedText(b, name)
		var conf struct {
			HTTP struct {
				Services map[string]json.RawMessage `json:"services"`
			} `json:"http"`
		}
		if err := json.Unmarshal(text, &conf); err != nil {
			b.Fatal(err)
		}
		var changed string
		for s := range conf.HTTP.Services {
			changed = s
			break
		}
		base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		b.Run(base+"/plugin-delta", func(b *testing.B) {
			frames := make(chan []byte, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, `{"version":1,"configuration":%s}`+"\n", text)
				w.(http.Flusher).Flush()
				for {
					select {
					case f := <-frames:
						_, _ = w.Write(f)
						w.(http.Flusher).Flush()
					case <-r.Context().Done():
						return
					}
				}
			}))
			defer srv.Close()
			builder, err := NewBuilder(nil, nil, map[string]LocalDescriptor{"sliceway": {ModuleName: module}})
			if err != nil {
				b.Fatal(err)
			}
			p, err := builder.BuildProvider("sliceway", map[string]any{"endpoint": srv.URL})
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Init(); err != nil {
				b.Fatal(err)
			}
			messages := make(chan dynamic.Message)
			pool := safe.NewPool(context.Background())
			defer pool.Stop()
			if err := p.Provide(messages, pool); err != nil {
				b.Fatal(err)
			}
			next := func(want string) {
				select {
				case msg := <-messages:
					if want != "" {
						lb := msg.Configuration.HTTP.Services[changed].LoadBalancer
						if len(lb.Servers) != 1 || lb.Servers[0].URL != want {
							b.Fatalf("service %s after the delta: %+v", changed, lb.Servers)
						}
					}
				case <-time.After(time.Minute):
					b.Fatal("no configuration from the plugin within a minute")
				}
			}
			next("")
			// The first delta splits the configuration (once per stream).
			version := uint64(1)
			delta := func() string {
				url := fmt.Sprintf("http://10.255.%d.%d:8080", version/250%250, version%250+1)
				frames <- fmt.Appendf(nil, `{"version":%d,"base":%d,"delta":{"services":{%q:{"loadBalancer":{"servers":[{"url":%q}]}}}}}`+"\n", version+1, version, changed, url)
				version++
				return url
			}
			next(delta())
			b.ReportAllocs()
			for b.Loop() {
				next(delta())
			}
		})
	}
}
