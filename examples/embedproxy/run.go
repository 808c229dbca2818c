package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"k8s.io/client-go/kubernetes"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/fixtures"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// shutdownTimeout bounds how long requests in flight may take to finish
// once the proxy is asked to stop.
const shutdownTimeout = 10 * time.Second

// instance is a running proxy.
type instance struct {
	// Addr is the address the proxy serves plain HTTP on (the port chosen
	// when --listen asked for port 0); TLSAddr the HTTPS one, if any.
	Addr, TLSAddr string

	proxy *proxy
	done  chan struct{}
	err   error
}

// Wait waits until the proxy has stopped (its context is done, or the
// provider or the server failed) and returns why it stopped; nil after a
// cancellation.
func (i *instance) Wait() error {
	<-i.done
	return i.err
}

// Applied is the number of configurations applied so far.
func (i *instance) Applied() int64 { return i.proxy.applied.Load() }

// run starts the proxy: it opens the cluster (cs when not nil, else what cfg
// says), listens on cfg.Listen (and cfg.ListenTLS when set), and runs the
// provider, applying each configuration it sends. It returns once the
// listeners are bound; requests
// before the first configuration get a 503. Everything stops when ctx is
// done; Wait says when.
func run(ctx context.Context, cfg *Configuration, logger zerolog.Logger, cs kubernetes.Interface) (*instance, error) {
	if cfg.Providers == nil || cfg.Providers.KubernetesIngress == nil {
		return nil, errors.New("providers.kubernetesIngress: not configured")
	}
	p := cfg.Providers.KubernetesIngress
	p.SetLogger(logger)
	if err := p.Init(); err != nil {
		return nil, fmt.Errorf("providers.kubernetesIngress.%w", err)
	}
	if cs == nil {
		var err error
		if cs, err = openCluster(cfg, logger); err != nil {
			return nil, err
		}
	}
	p.SetClientset(cs)

	px := newProxy(logger)
	inst := &instance{proxy: px, done: make(chan struct{})}
	type listener struct {
		ln      net.Listener
		srv     *http.Server
		overTLS bool
	}
	var listeners []listener
	listen := func(addr string, overTLS bool) error {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("listen %s: %w", addr, err)
		}
		srv := &http.Server{Handler: px, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
		if overTLS {
			if px.defaultCert, err = selfSigned(); err != nil {
				_ = ln.Close()
				return fmt.Errorf("default certificate: %w", err)
			}
			srv.TLSConfig = &tls.Config{GetCertificate: px.getCertificate, MinVersion: tls.VersionTLS12}
			inst.TLSAddr = ln.Addr().String()
		} else {
			inst.Addr = ln.Addr().String()
		}
		listeners = append(listeners, listener{ln, srv, overTLS})
		logger.Info().Str("address", ln.Addr().String()).Bool("tls", overTLS).Msg("listening")
		return nil
	}
	err := listen(cfg.Listen, false)
	if err == nil && cfg.ListenTLS != "" {
		err = listen(cfg.ListenTLS, true)
	}
	if err != nil {
		for _, l := range listeners {
			_ = l.ln.Close()
		}
		return nil, err
	}

	ctx, cancel := context.WithCancel(ctx)
	msgs := make(chan dynamic.Message)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}

	wg.Add(2 + len(listeners))
	go func() {
		defer wg.Done()
		if err := p.Provide(ctx, msgs); err != nil {
			fail(fmt.Errorf("provider: %w", err))
			return
		}
		cancel()
	}()
	go func() {
		defer wg.Done()
		for {
			select {
			case msg := <-msgs:
				px.apply(msg.Configuration)
			case <-ctx.Done():
				return
			}
		}
	}()
	for _, l := range listeners {
		go func() {
			defer wg.Done()
			var err error
			if l.overTLS {
				err = l.srv.ServeTLS(l.ln, "", "") // with HTTP/2
			} else {
				err = l.srv.Serve(l.ln)
			}
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				fail(fmt.Errorf("serve: %w", err))
			}
		}()
	}
	go func() {
		<-ctx.Done()
		// Stop accepting, let the requests in flight finish.
		sctx, scancel := context.WithTimeout(context.Background(), shutdownTimeout)
		for _, l := range listeners {
			if err := l.srv.Shutdown(sctx); err != nil {
				logger.Warn().Err(err).Msg("requests still in flight at shutdown were cut")
				_ = l.srv.Close()
			}
		}
		scancel()
		wg.Wait()
		px.close()
		inst.err = firstErr
		logger.Info().Msg("stopped")
		close(inst.done)
	}()
	return inst, nil
}

// openCluster returns the cluster to read: the manifests or the bundled
// demo served in memory, else the configured real cluster.
func openCluster(cfg *Configuration, logger zerolog.Logger) (kubernetes.Interface, error) {
	var objs []manifests.Object
	var problems []*manifests.Error
	switch {
	case len(cfg.Manifests) > 0:
		objs, problems = manifests.Read(cfg.Manifests, manifests.IsUsedKind)
	case cfg.Demo:
		objs, problems = manifests.Decode("demo.yaml", fixtures.Demo, manifests.IsUsedKind)
	default:
		cs, err := cfg.Providers.KubernetesIngress.NewClientset()
		if err != nil {
			return nil, fmt.Errorf("connecting to the cluster: %w", err)
		}
		return cs, nil
	}
	cs, more := manifests.NewFakeCluster(objs)
	problems = append(problems, more...)
	errs := manifests.LogProblems(logger, problems)
	if len(objs) == 0 && errs > 0 {
		return nil, errors.New("no usable object in the manifests")
	}
	return cs, nil
}
