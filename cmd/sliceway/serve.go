package main

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"
	"github.com/traefik/paerser/cli"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/config/static"
)

func serveCommand() *cli.Command {
	cfg, src := newConfiguration(), &configSource{}
	return &cli.Command{
		Name: "serve",
		Description: "Stay up and serve the latest configuration at GET /api/config for Traefik's HTTP provider, " +
			"with /healthz and /metrics.",
		Configuration:  cfg,
		Resources:      loaders(src),
		CustomHelpFunc: commandHelp(notReadByServe),
		Run: func([]string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, cfg, src)
		},
	}
}

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
	streams *streams // of /api/config/stream; nil: 404
	// health says whether the input is still followed (nil) or why not;
	// nil: always.
	health func() error
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
func (l *latest) text() ([]byte, error) { return l.encode(l.current()) }

// encode returns the JSON of c, written once however many readers (polls
// of /api/config, streams) ask for it; nil for nil.
func (l *latest) encode(c *dynamic.Configuration) ([]byte, error) {
	l.encMu.Lock()
	defer l.encMu.Unlock()
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

// newServeMux routes serve's paths. /api/config holds private keys and
// goes through guard; /healthz and /metrics hold no secret and answer
// anyone, so kubelet probes and Prometheus need no credential. /healthz
// is 503 with the reason before the first configuration and while the
// input is no longer followed (a restart is then the cure).
func newServeMux(l *latest, m *metrics, guard func(http.Handler) http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /api/config", guard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
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
	})))
	mux.Handle("GET /api/config/stream", guard(l.streamHandler()))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if l.current() == nil {
			http.Error(w, "no configuration yet", http.StatusServiceUnavailable)
			return
		}
		if l.health != nil {
			if err := l.health(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	return mux
}

func runServe(ctx context.Context, cfg *static.Configuration, src *configSource) error {
	logger, err := newLogger(cfg, src)
	if err != nil {
		return err
	}
	opts := cfg.Serve
	insecure, err := opts.Validate()
	if err != nil {
		return err
	}
	if insecure {
		logger.Warn().Str("address", opts.Address).Bool("tls", opts.HasTLS()).Bool("credentials", opts.HasCredentials()).
			Msg("serve.insecure=true: /api/config, which holds the private keys of the Ingresses' TLS Secrets, is served beyond loopback without TLS or without credentials; anyone who reaches it can read them")
	}
	m := newMetrics()
	creds, err := newCredentials(opts, m.denied, logger)
	if err != nil {
		return err
	}
	var tlsConf *tls.Config
	if opts.HasTLS() {
		if tlsConf, err = serverTLS(opts, logger); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", opts.Address)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	live, err := startProvider(ctx, "serve", cfg, logger, m)
	if err != nil {
		_ = ln.Close()
		return err
	}
	msgs, done := live.msgs, live.done
	current := latest{encoded: m.encoded, health: live.health}
	current.streams = newStreams(time.Duration(opts.WriteTimeout), current.encode)
	m.countStreams(current.streams)
	conns := newConnLimit(opts.MaxConnections, m.evicted)
	current.streams.limit = streamLimit{max: opts.MaxStreams, conns: conns, refused: m.refused, stalled: m.stalled,
		log: logger.Sample(&zerolog.BurstSampler{Burst: 5, Period: time.Minute})}
	server := newHTTPServer(opts, newServeMux(&current, m, creds.guard), conns, logger)
	server.RegisterOnShutdown(current.streams.close) // streams end; Shutdown waits for no one
	serveErr := make(chan error, 1)
	go func() {
		if tlsConf == nil {
			serveErr <- server.Serve(ln)
			return
		}
		server.TLSConfig = tlsConf
		serveErr <- server.ServeTLS(ln, "", "")
	}()
	logger.Info().Str("address", ln.Addr().String()).Bool("tls", tlsConf != nil).
		Bool("clientCertificate", creds.clientCAs != nil).Bool("token", creds.token != nil).
		Msg("serving /api/config, /healthz and /metrics")

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
			current.streams.publish(msg.Configuration)
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
