package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// BenchmarkSliceChangeToStream is sliceway's part of the way from an
// EndpointSlice update to the configuration inside Traefik through the
// provider plugin: from the update (through the clientset, as the API
// server's watch brings it) to the frame that holds the new server read
// by a client of /api/config/stream, the way serve runs them (informers,
// change filter, incremental render, publish, the delta frame, HTTP on
// loopback). One op is one slice change; frame-bytes is the size of the
// frame the client read (a delta: the changed service alone). Sizes:
// 1,000 and 10,000 Services, or the comma-separated numbers of
// SLICEWAY_BENCH_SERVICES (as tools/traefik-bench/run gives them).
func BenchmarkSliceChangeToStream(b *testing.B) {
	sizes := []int{1000, 10000}
	if list := os.Getenv("SLICEWAY_BENCH_SERVICES"); list != "" {
		sizes = nil
		for _, field := range strings.Split(list, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(field))
			if err != nil || n < 2 {
				b.Fatalf("SLICEWAY_BENCH_SERVICES: %q is not a number of services", field)
			}
			sizes = append(sizes, n)
		}
	}
	for _, services := range sizes {
		b.Run(fmt.Sprintf("services=%d", services), func(b *testing.B) {
			benchSliceChangeToStream(b, services)
		})
	}
}

func benchSliceChangeToStream(b *testing.B, services int) {
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(services, 20) {
		if err := cs.Tracker().Add(o); err != nil {
			b.Fatal(err)
		}
	}
	p := &ingress.Provider{}
	p.SetDefaults()
	p.SetClientset(cs)
	p.SetLogger(zerolog.Nop())
	if err := p.Init(); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msgs := make(chan dynamic.Message)
	go func() { _ = p.Provide(ctx, msgs) }()
	l := &latest{}
	l.streams = newStreams(time.Minute, l.encode)
	defer l.streams.close()
	go func() { // serve's loop
		for {
			select {
			case msg := <-msgs:
				l.set(msg.Configuration)
				l.streams.publish(msg.Configuration)
			case <-ctx.Done():
				return
			}
		}
	}()
	srv := httptest.NewServer(newServeMux(l, newMetrics(), func(h http.Handler) http.Handler { return h }))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/api/config/stream?deltas=true")
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	lines := make(chan []byte, 16)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(res.Body, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	// wait reads frames until one holds want.
	wait := func(want []byte) []byte {
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					b.Fatal("the stream ended")
				}
				if bytes.Contains(line, want) {
					return line
				}
			case <-time.After(time.Minute):
				b.Fatalf("no frame holds %s after a minute", want)
			}
		}
	}
	wait([]byte(`"configuration"`))

	slices := cs.DiscoveryV1().EndpointSlices(clustergen.Namespace)
	name := clustergen.Name(services/2) + "-0"
	slice, err := slices.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var frameBytes int
	b.ResetTimer()
	for i := range b.N {
		next := slice.DeepCopy()
		address := fmt.Sprintf("10.255.%d.%d", i/250%250, i%250+1)
		next.Endpoints[0].Addresses = []string{address}
		if slice, err = slices.Update(ctx, next, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
		frameBytes = len(wait([]byte(`"http://` + address + `:8080"`)))
	}
	b.StopTimer()
	b.ReportMetric(float64(frameBytes), "frame-bytes")
}
