// Package slicewayplugin is a Traefik provider plugin that takes the
// dynamic configuration of a `sliceway serve` from its stream,
// GET /api/config/stream?deltas=true, and hands each whole configuration
// to Traefik: a full frame as serve wrote it, a delta frame applied onto
// the configuration it holds (assembly.go).
// Standard library only: Traefik runs it in its Yaegi interpreter.
package slicewayplugin

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Config is the plugin's configuration, under providers.plugin.<name>.
type Config struct {
	// Endpoint is serve's base URL, https://host:8443.
	Endpoint string `json:"endpoint,omitempty"`
	// CA verifies serve's certificate (PEM file); none: the system's.
	CA string `json:"ca,omitempty"`
	// Cert and Key are the client certificate serve.tls.clientCA signs.
	Cert string `json:"cert,omitempty"`
	Key  string `json:"key,omitempty"`
	// TokenFile holds the bearer token of serve.tokenFile; read at each
	// connection, so a rotated token is used.
	TokenFile string `json:"tokenFile,omitempty"`
	// MinBackoff and MaxBackoff bound the wait before a reconnection,
	// doubled after each failure (Go durations: "500ms", "30s").
	MinBackoff string `json:"minBackoff,omitempty"`
	MaxBackoff string `json:"maxBackoff,omitempty"`
	// DeadAfter is how long a silent stream lives: serve beats every 15s.
	DeadAfter string `json:"deadAfter,omitempty"`
	// MaxFrameSize bounds one line of the stream ("256MiB"): a longer
	// one drops the stream, which is opened again after the backoff.
	MaxFrameSize string `json:"maxFrameSize,omitempty"`
}

// CreateConfig returns the defaults.
func CreateConfig() *Config {
	return &Config{MinBackoff: "500ms", MaxBackoff: "30s", DeadAfter: "45s", MaxFrameSize: defaultMaxFrameSize}
}

// Provider streams from one serve.
type Provider struct {
	name     string
	url      string
	client   *http.Client
	token    string
	min, max time.Duration
	dead     time.Duration
	limit    int    // maxFrameSize, in bytes
	limitOpt string // maxFrameSize as written

	// Set by New, replaced by tests: how long a stream must deliver
	// frames to count as steady (steadyAfter), the wait between streams
	// (false: the provider stopped), and the logs.
	steady time.Duration
	pause  func(wait time.Duration) bool
	report *reporter

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// New checks the configuration and builds the provider.
func New(ctx context.Context, config *Config, name string) (*Provider, error) {
	if config.Endpoint == "" {
		return nil, errors.New("sliceway: endpoint is required")
	}
	p := &Provider{name: name, url: strings.TrimRight(config.Endpoint, "/") + "/api/config/stream?deltas=true", token: config.TokenFile}
	var err error
	if p.min, err = duration("minBackoff", config.MinBackoff, 500*time.Millisecond); err != nil {
		return nil, err
	}
	if p.max, err = duration("maxBackoff", config.MaxBackoff, 30*time.Second); err != nil {
		return nil, err
	}
	if p.dead, err = duration("deadAfter", config.DeadAfter, 45*time.Second); err != nil {
		return nil, err
	}
	if p.max < p.min {
		p.max = p.min
	}
	if p.limit, p.limitOpt, err = byteSize("maxFrameSize", config.MaxFrameSize, defaultMaxFrameSize); err != nil {
		return nil, err
	}
	p.steady = steadyAfter(p.max)
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if config.CA != "" {
		data, err := os.ReadFile(config.CA)
		if err != nil {
			return nil, fmt.Errorf("sliceway: ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("sliceway: ca %s: no PEM certificate", config.CA)
		}
		tlsConf.RootCAs = pool
	}
	if config.Cert != "" || config.Key != "" {
		pair, err := tls.LoadX509KeyPair(config.Cert, config.Key)
		if err != nil {
			return nil, fmt.Errorf("sliceway: cert and key: %w", err)
		}
		tlsConf.Certificates = []tls.Certificate{pair}
	}
	p.client = &http.Client{Transport: &http.Transport{
		TLSClientConfig:       tlsConf,
		Proxy:                 http.ProxyFromEnvironment,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.done = make(chan struct{})
	p.pause = func(wait time.Duration) bool {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-p.ctx.Done():
			return false
		case <-timer.C:
			return true
		}
	}
	p.report = &reporter{name: name, url: p.url, outage: p.max,
		debug: func(line string) { fmt.Println(line) }, errs: func(line string) { log.Println(line) }}
	return p, nil
}

func duration(name, text string, def time.Duration) (time.Duration, error) {
	if text == "" {
		return def, nil
	}
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("sliceway: %s %q: a positive Go duration is wanted", name, text)
	}
	return d, nil
}

// Init does nothing: New checked the configuration.
func (p *Provider) Init() error { return nil }

// Provide starts streaming and returns: each whole configuration goes to
// cfgChan; between streams the last one stays in force.
func (p *Provider) Provide(cfgChan chan<- json.Marshaler) error {
	go p.run(cfgChan)
	return nil
}

// Stop ends the stream and waits for it.
func (p *Provider) Stop() error {
	p.once.Do(p.cancel)
	<-p.done
	return nil
}

func (p *Provider) run(cfgChan chan<- json.Marshaler) {
	defer close(p.done)
	waits := &backoff{min: p.min, max: p.max}
	for p.ctx.Err() == nil {
		end, err := p.stream(cfgChan)
		if p.ctx.Err() != nil {
			return
		}
		// Only a steady stream starts the waits again from minBackoff:
		// one good frame proves nothing (backoff.go).
		wait := waits.after(end.steady)
		p.report.ended(end, err, wait, time.Now())
		if !p.pause(wait) {
			return
		}
	}
}

// ending is how a stream went: whether it handed Traefik a
// configuration, and whether it was steady, delivering valid frames
// (heartbeats count) for at least p.steady after it was opened.
type ending struct{ got, steady bool }

// frame is one line of the stream: a full frame (configuration), a delta
// frame (delta, onto version base) or a heartbeat (neither).
type frame struct {
	Version       uint64          `json:"version"`
	Base          uint64          `json:"base"`
	Configuration json.RawMessage `json:"configuration"`
	Delta         json.RawMessage `json:"delta"`
}

// stream reads one stream to its end, and says how it went.
func (p *Provider) stream(cfgChan chan<- json.Marshaler) (ending, error) {
	var end ending
	ctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return end, err
	}
	if p.token != "" {
		data, err := os.ReadFile(p.token)
		if err != nil {
			return end, err
		}
		req.Header.Set("Authorization", "Bearer "+string(bytes.TrimSpace(data)))
	}
	res, err := p.client.Do(req)
	if err != nil {
		return end, err
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
		return end, fmt.Errorf("%w: %s", errRefused, res.Status)
	}
	if res.StatusCode != http.StatusOK {
		return end, fmt.Errorf("%s", res.Status)
	}
	// A stream silent for longer than dead is cut, and started again.
	watchdog := time.AfterFunc(p.dead, cancel)
	defer watchdog.Stop()
	opened := time.Now()
	// Lines over maxFrameSize end the stream (errFrameTooLarge): the
	// deferred cancel and Close then drop the connection unread.
	frames := newFrameReader(res.Body, p.limit, p.limitOpt)
	held := &assembly{} // a new stream starts with a full frame
	sawDelta := false
	for {
		line, err := frames.next()
		if err != nil {
			// A line cut short is never handed on.
			if ctx.Err() != nil && p.ctx.Err() == nil {
				err = fmt.Errorf("nothing for %s", p.dead)
			}
			return end, err
		}
		watchdog.Reset(p.dead)
		var f frame
		if err := json.Unmarshal(line, &f); err != nil {
			return end, fmt.Errorf("%w: %v", errBadFrame, err)
		}
		var text []byte // nil: nothing new for Traefik
		switch {
		case isConfiguration(f.Configuration):
			if held.text == nil || f.Version != held.version {
				held.full(f.Version, f.Configuration)
				text = f.Configuration
			}
		case isConfiguration(f.Delta):
			sawDelta = true
			if text, err = held.apply(f.Version, f.Base, f.Delta); err != nil {
				return end, err
			}
		}
		// A valid frame: the stream is steady once such frames came
		// for p.steady since it opened.
		if !end.steady && time.Since(opened) >= p.steady {
			end.steady = true
		}
		if text == nil {
			continue // a heartbeat, or the version Traefik has
		}
		// Made by a function, and converted before the select: under
		// Yaegi a literal of the loop's text variable saw the next text,
		// and a select does not convert a value to the channel's type.
		conf := handOver(text)
		select {
		case cfgChan <- conf:
			end.got = true
		case <-p.ctx.Done():
			return end, nil
		}
		if sawDelta && !held.split {
			// While Traefik reads a full configuration, split it for the
			// deltas that follow, so that the next one does not wait for
			// it (an error is told by the delta's apply). Only once serve
			// has sent deltas on this stream: an older serve never does.
			_ = held.splitText()
		}
	}
}

// isConfiguration says whether a frame's configuration is there: a JSON
// object, not absent or null as in a heartbeat.
func isConfiguration(raw json.RawMessage) bool {
	text := bytes.TrimSpace(raw)
	return len(text) > 1 && text[0] == '{'
}

// configuration is what Traefik is handed: the text serve wrote, which
// Traefik decodes. (A json.RawMessage sent in a select came through
// Yaegi as null.)
type configuration struct{ text []byte }

// handOver is what the plugin sends Traefik for text.
func handOver(text []byte) json.Marshaler { return &configuration{text: text} }

// MarshalJSON returns the configuration's JSON.
func (c *configuration) MarshalJSON() ([]byte, error) { return c.text, nil }
