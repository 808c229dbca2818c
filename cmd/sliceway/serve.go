package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/traefik/paerser/cli"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/config/static"
)

func serveCommand() *cli.Command {
	cfg := newConfiguration()
	return &cli.Command{
		Name: "serve",
		Description: "Stay up and serve the latest configuration at GET /api/config for Traefik's HTTP provider, " +
			"with /healthz and /metrics.",
		Configuration: cfg,
		Resources:     loaders(),
		Run: func([]string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, cfg)
		},
	}
}

// metrics implements ingress.Observer with Prometheus collectors.
type metrics struct {
	registry   *prometheus.Registry
	sent       prometheus.Counter
	renders    prometheus.Histogram
	kinds      *prometheus.CounterVec
	translated prometheus.Counter
	refreshed  prometheus.Counter
	events     *prometheus.CounterVec
	lastSync   prometheus.Gauge
	objectErrs prometheus.Gauge
	encoded    prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		sent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_configurations_sent_total",
			Help: "Configurations sent because they differed from the previous one.",
		}),
		renders: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "sliceway_render_duration_seconds",
			Help:    "Time to render a configuration from the informer caches.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}),
		kinds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sliceway_renders_total",
			Help: "Renders by kind: full, incremental (only what depends on the changed objects), reassembled (incremental, all router names given again) or recovered (an incremental render failed and was done in full).",
		}, []string{"kind"}),
		translated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_ingresses_translated_total",
			Help: "Ingresses translated by renders: every served one in a full render, those that depend on the changed objects in an incremental one.",
		}),
		refreshed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_load_balancers_refreshed_total",
			Help: "Load balancers rebuilt in place after a change of their Service, EndpointSlices or the Nodes, without translating the Ingresses that use them.",
		}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sliceway_events_total",
			Help: "Informer events by kind; result is changed (rendered) or filtered (dropped by the change filter).",
		}, []string{"kind", "result"}),
		lastSync: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sliceway_last_sync_timestamp_seconds",
			Help: "Unix time of the last render from synced caches.",
		}),
		objectErrs: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sliceway_object_errors",
			Help: "Problems with individual objects found by the last render.",
		}),
		encoded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sliceway_configurations_encoded_total",
			Help: "Configurations written as JSON for GET /api/config: each the first time it is read, so configurations that no poll read are never written.",
		}),
	}
	m.registry.MustRegister(m.sent, m.renders, m.kinds, m.translated, m.refreshed, m.events, m.lastSync, m.objectErrs, m.encoded,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) Event(kind string, changed bool) {
	result := "filtered"
	if changed {
		result = "changed"
	}
	m.events.WithLabelValues(kind, result).Inc()
}

func (m *metrics) Rendered(at time.Time, took time.Duration, objectErrors int) {
	m.renders.Observe(took.Seconds())
	m.lastSync.Set(float64(at.UnixNano()) / 1e9)
	m.objectErrs.Set(float64(objectErrors))
}

// RenderedKind implements ingress.RenderKindObserver.
func (m *metrics) RenderedKind(kind string) { m.kinds.WithLabelValues(kind).Inc() }

// RenderedWork implements ingress.RenderWorkObserver.
func (m *metrics) RenderedWork(translated, refreshed int) {
	m.translated.Add(float64(translated))
	m.refreshed.Add(float64(refreshed))
}

func (m *metrics) Sent() { m.sent.Inc() }

// latest holds the newest configuration and writes its JSON when it is
// first asked for. Configurations may follow each other faster than
// Traefik polls (every few seconds): at 10,000 Services writing one takes
// 10-15 ms even when the encoder copies all but the changed services, so
// a busy cluster's configurations are written only when read. The JSON is
// kept for the configuration it was written from.
type latest struct {
	mu   sync.Mutex
	conf *dynamic.Configuration

	encMu   sync.Mutex // held while writing: one text at a time
	enc     dynamic.JSONEncoder
	of      *dynamic.Configuration // what json was written from
	json    []byte
	encoded prometheus.Counter
}

func (l *latest) set(c *dynamic.Configuration) {
	l.mu.Lock()
	l.conf = c
	l.mu.Unlock()
}

func (l *latest) current() *dynamic.Configuration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conf
}

// text returns the JSON of the newest configuration, nil before the first.
func (l *latest) text() ([]byte, error) {
	l.encMu.Lock()
	defer l.encMu.Unlock()
	c := l.current()
	if c == nil || c == l.of {
		return l.json, nil
	}
	body, err := l.enc.Encode(c)
	if err != nil {
		return nil, err
	}
	l.of, l.json = c, body
	if l.encoded != nil {
		l.encoded.Inc()
	}
	return body, nil
}

func newServeMux(l *latest, m *metrics) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/config", func(w http.ResponseWriter, _ *http.Request) {
		body, err := l.text()
		if err != nil {
			http.Error(w, "the configuration cannot be written as JSON: "+err.Error(), http.StatusInternalServerError)
			return
		}
		if body == nil {
			http.Error(w, "no configuration yet: the caches are not synced", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if l.current() == nil {
			http.Error(w, "no configuration yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	return mux
}

func runServe(ctx context.Context, cfg *static.Configuration) error {
	logger, err := cfg.Log.NewLogger(os.Stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Serve.Address)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newMetrics()
	msgs, done, err := startProvider(ctx, cfg, logger, m)
	if err != nil {
		_ = ln.Close()
		return err
	}
	current := latest{encoded: m.encoded}
	server := &http.Server{Handler: newServeMux(&current, m), ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- server.Serve(ln) }()
	logger.Info().Str("address", ln.Addr().String()).Msg("serving /api/config, /healthz and /metrics")

	shutdown := func() error {
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		return server.Shutdown(sctx)
	}
	// The configurations share what did not change, whose text the encoder
	// keeps: after a slice change at 10,000 Services it writes one service
	// and copies the rest (10-15 ms) instead of encoding all 11 MB again;
	// and only the configurations that are read are written.
	for {
		select {
		case msg := <-msgs:
			current.set(msg.Configuration)
			logger.Info().Int("routers", len(msg.Configuration.HTTP.Routers)).Int("services", len(msg.Configuration.HTTP.Services)).Msg("new configuration")
		case err := <-serveErr:
			cancel()
			return errors.Join(err, <-done)
		case err := <-done:
			logger.Info().Msg("shutting down")
			if serr := shutdown(); serr != nil && !errors.Is(serr, http.ErrServerClosed) {
				return serr
			}
			return err
		}
	}
}
