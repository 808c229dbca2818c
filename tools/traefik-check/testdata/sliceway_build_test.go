package server

// This file is copied into Traefik's pkg/server by tools/traefik-check/run;
// it is not part of sliceway's build. It reads the cases that
// tools/traefik-check/cases wrote (SLICEWAY_CASES), has Traefik's file
// provider read each configuration, and then does with it what Traefik's
// configuration watcher and router factory do with a provider's message:
// merge it with what Traefik's internal provider gives (the default
// servers transport, from Traefik's default static configuration; names
// qualified with @http and @internal, routers without entry points put
// on all of them) and with stand-ins for the middlewares, services,
// servers transports and TLS options of other providers it names (the
// Traefik-style provider's annotations may name, say, a Middleware
// resource: name@kubernetescrd), resolve the routers' TLS options, load the TLS options
// and certificates into the TLS manager and the servers transports into
// the transport manager, and build every entry point's routers with their
// middlewares and services. Then it builds each middleware and each
// service on its own too, as no router may use some of them. Nothing may
// fail: no object may carry an error, and Traefik may log none (nor a
// warning). The servers transports' CAs and client certificates, which
// Traefik passes over in silence when they do not load, must load.

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"github.com/rs/zerolog/log"
	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/config/runtime"
	"github.com/traefik/traefik/v3/pkg/config/static"
	"github.com/traefik/traefik/v3/pkg/provider/file"
	traefikprovider "github.com/traefik/traefik/v3/pkg/provider/traefik"
	"github.com/traefik/traefik/v3/pkg/proxy/httputil"
	"github.com/traefik/traefik/v3/pkg/safe"
	"github.com/traefik/traefik/v3/pkg/server/middleware"
	"github.com/traefik/traefik/v3/pkg/server/provider"
	"github.com/traefik/traefik/v3/pkg/server/service"
	"github.com/traefik/traefik/v3/pkg/tcp"
	traefiktls "github.com/traefik/traefik/v3/pkg/tls"
)

// slicewayBuildCase is the part of a case (tools/traefik-check/cases)
// this test reads.
type slicewayBuildCase struct {
	Name string `json:"name"`
	YAML string `json:"yaml"`
}

// slicewayProvider is the provider name Traefik's HTTP provider gives
// what it reads.
const slicewayProvider = "http"

func TestSlicewayBuild(t *testing.T) {
	data, err := os.ReadFile(os.Getenv("SLICEWAY_CASES"))
	if err != nil {
		t.Fatalf("SLICEWAY_CASES: %v", err)
	}
	var file struct {
		Cases []slicewayBuildCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	logs := captureTraefikLogs(t)
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			conf := slicewayReadFile(t, c.YAML)
			logs.reset()
			slicewayBuild(t, conf)
			for _, line := range logs.lines() {
				if strings.Contains(line, "Router's `ruleSyntax` option is deprecated") {
					// The router.rulesyntax annotation asked for it, as
					// it asks Traefik's own Ingress provider to write it
					// (fixtures/router-observability): Traefik's notice
					// is the user's to act on.
					continue
				}
				t.Errorf("Traefik logs: %s", line)
			}
		})
	}
}

// slicewayReadFile reads a text as Traefik's file provider reads a file.
func slicewayReadFile(t *testing.T, text string) *dynamic.Configuration {
	t.Helper()
	name := filepath.Join(t.TempDir(), "sliceway.yaml")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &file.Provider{Filename: name}
	conf, err := p.CreateConfiguration(context.Background(), name, nil, false)
	if err != nil {
		t.Fatalf("the file provider refuses the YAML: %v", err)
	}
	return conf
}

// slicewayBuild builds conf as Traefik's server does (cmd/traefik: the
// configuration watcher's listeners, then switchRouter).
func slicewayBuild(t *testing.T, conf *dynamic.Configuration) {
	t.Helper()
	ctx := t.Context()
	named := map[string]bool{}
	for _, r := range conf.HTTP.Routers {
		for _, ep := range r.EntryPoints {
			named[ep] = true
		}
	}
	if len(named) == 0 {
		named["web"] = true
	}
	entryPoints := slices.Sorted(maps.Keys(named))
	// As cmd/traefik's defaults are, with these entry points.
	staticConf := static.Configuration{
		EntryPoints:      static.EntryPoints{},
		ServersTransport: &static.ServersTransport{MaxIdleConnsPerHost: 200},
		Providers:        &static.Providers{},
	}
	for _, ep := range entryPoints {
		e := &static.EntryPoint{Address: ":0"}
		e.SetDefaults()
		staticConf.EntryPoints[ep] = e
	}
	internal := make(chan dynamic.Message, 1)
	if err := traefikprovider.New(staticConf).Provide(internal, nil); err != nil {
		t.Fatal(err)
	}
	msg := <-internal

	routerNames := slices.Sorted(maps.Keys(conf.HTTP.Routers))
	confs := slicewayElsewhere(conf)
	confs[slicewayProvider] = conf
	confs[msg.ProviderName] = msg.Configuration
	merged := mergeConfiguration(confs, entryPoints)
	merged = applyModel(merged)
	merged.HTTP.Routers = resolveHTTPTLSOptions(merged.HTTP.Routers, false)
	var resolved []string
	for name := range merged.HTTP.Routers {
		if n, ok := strings.CutSuffix(name, "@"+slicewayProvider); ok {
			resolved = append(resolved, n)
		}
	}
	if slices.Sort(resolved); !slices.Equal(resolved, routerNames) {
		t.Errorf("Traefik splits routers over conflicting TLS options: it has %q, sliceway wrote %q", resolved, routerNames)
	}

	tlsManager := traefiktls.NewManager(nil)
	tlsManager.UpdateConfigs(ctx, merged.TLS.Stores, merged.TLS.Options, merged.TLS.Certificates)
	for name := range merged.TLS.Options {
		if !ours(name) && name != traefiktls.DefaultTLSConfigName {
			continue
		}
		if _, err := tlsManager.Get(traefiktls.DefaultTLSStoreName, name); err != nil {
			t.Errorf("TLS options %s: %v", name, err)
		}
	}

	slicewayTransportCertificates(t, merged.HTTP.ServersTransports)
	transportManager := service.NewTransportManager(nil)
	transportManager.Update(merged.HTTP.ServersTransports)
	proxyBuilder := httputil.NewProxyBuilder(transportManager, nil)
	proxyBuilder.Update(merged.HTTP.ServersTransports)
	managerFactory := service.NewManagerFactory(staticConf, safe.NewPool(ctx), nil, transportManager, proxyBuilder, nil, tlsManager)
	// The TCP routers (ssl-passthrough) dial through Traefik's default
	// TCP servers transport, which its internal provider defines.
	dialers := tcp.NewDialerManager(nil)
	defaultTCP := &dynamic.TCPServersTransport{}
	defaultTCP.SetDefaults()
	dialers.Update(map[string]*dynamic.TCPServersTransport{"default@internal": defaultTCP})
	routerFactory, err := NewRouterFactory(staticConf, managerFactory, tlsManager, nil, nil, dialers)
	if err != nil {
		t.Fatal(err)
	}
	rtConf := runtime.NewConfig(merged)
	routerFactory.CreateRouters(rtConf)
	for _, name := range slices.Sorted(maps.Keys(rtConf.Routers)) {
		if !ours(name) {
			continue
		}
		if r := rtConf.Routers[name]; len(r.Err) > 0 || r.Status != runtime.StatusEnabled {
			t.Errorf("router %s: Traefik does not build it (%s): %s", name, r.Status, strings.Join(r.Err, "; "))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(rtConf.TCPRouters)) {
		if !ours(name) {
			continue
		}
		if r := rtConf.TCPRouters[name]; len(r.Err) > 0 || r.Status != runtime.StatusEnabled {
			t.Errorf("TCP router %s: Traefik does not build it (%s): %s", name, r.Status, strings.Join(r.Err, "; "))
		}
	}

	// Each middleware and service on its own, with a service manager of
	// their own: those no router uses are built too, and an error is
	// that object's.
	services := managerFactory.Build(rtConf)
	middlewares := middleware.NewBuilder(rtConf.Middlewares, services, nil)
	services.SetMiddlewareChainBuilder(middlewares)
	next := slicewayHandler{}
	for _, name := range slices.Sorted(maps.Keys(rtConf.Middlewares)) {
		if !ours(name) {
			continue
		}
		if _, err := middlewares.BuildMiddlewareChain(provider.AddInContext(ctx, name), []string{name}).Then(next); err != nil {
			t.Errorf("middleware %s: Traefik does not build it: %v", name, err)
		}
		if m := rtConf.Middlewares[name]; len(m.Err) > 0 {
			t.Errorf("middleware %s: %s", name, strings.Join(m.Err, "; "))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(rtConf.Services)) {
		if !ours(name) {
			continue
		}
		if _, err := services.BuildHTTP(provider.AddInContext(ctx, name), name); err != nil {
			t.Errorf("service %s: Traefik does not build it: %v", name, err)
		}
		if s := rtConf.Services[name]; len(s.Err) > 0 {
			t.Errorf("service %s: %s", name, strings.Join(s.Err, "; "))
		}
	}
}

// slicewayElsewhere are the configurations of the other providers that
// conf names objects of (name@provider): each holds a stand-in for each
// such object, one Traefik builds (a headers middleware that sets a
// request header, a service of one server, a servers transport and TLS options
// of Traefik's defaults), so that the check is of what sliceway wrote.
func slicewayElsewhere(conf *dynamic.Configuration) dynamic.Configurations {
	out := dynamic.Configurations{}
	other := func(ref string) (*dynamic.Configuration, string, bool) {
		name, pvd, ok := strings.Cut(ref, "@")
		if !ok || pvd == slicewayProvider || pvd == "internal" {
			return nil, "", false
		}
		if out[pvd] == nil {
			out[pvd] = &dynamic.Configuration{
				HTTP: &dynamic.HTTPConfiguration{
					Routers:           map[string]*dynamic.Router{},
					Middlewares:       map[string]*dynamic.Middleware{},
					Services:          map[string]*dynamic.Service{},
					ServersTransports: map[string]*dynamic.ServersTransport{},
				},
				TLS: &dynamic.TLSConfiguration{Options: map[string]traefiktls.Options{}},
			}
		}
		return out[pvd], name, true
	}
	middleware := func(ref string) {
		if c, name, ok := other(ref); ok {
			c.HTTP.Middlewares[name] = &dynamic.Middleware{Headers: &dynamic.Headers{CustomRequestHeaders: map[string]string{"X-Stand-In": "1"}}}
		}
	}
	service := func(ref string) {
		if c, name, ok := other(ref); ok {
			lb := &dynamic.ServersLoadBalancer{}
			lb.SetDefaults()
			lb.Servers = []dynamic.Server{{URL: "http://192.0.2.1:80"}}
			c.HTTP.Services[name] = &dynamic.Service{LoadBalancer: lb}
		}
	}
	for _, r := range conf.HTTP.Routers {
		for _, m := range r.Middlewares {
			middleware(m)
		}
		service(r.Service)
		if r.TLS != nil {
			if c, name, ok := other(r.TLS.Options); ok {
				c.TLS.Options[name] = traefiktls.DefaultTLSOptions
			}
		}
	}
	for _, m := range conf.HTTP.Middlewares {
		if m.Chain != nil {
			for _, sub := range m.Chain.Middlewares {
				middleware(sub)
			}
		}
		if m.Errors != nil {
			service(m.Errors.Service)
		}
	}
	for _, s := range conf.HTTP.Services {
		for _, m := range s.Middlewares {
			middleware(m)
		}
		if s.LoadBalancer != nil {
			if c, name, ok := other(s.LoadBalancer.ServersTransport); ok {
				c.HTTP.ServersTransports[name] = &dynamic.ServersTransport{}
			}
		}
		if s.Weighted != nil {
			for _, w := range s.Weighted.Services {
				service(w.Name)
			}
		}
	}
	return out
}

// slicewayTransportCertificates loads the certificates of each servers
// transport of sliceway's as Traefik's transport manager does, which
// passes over what it cannot load in silence (a CA that adds nothing to
// the pool, a client certificate that does not load, logged at debug
// level only): here each must load.
func slicewayTransportCertificates(t *testing.T, transports map[string]*dynamic.ServersTransport) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(transports)) {
		if !ours(name) {
			continue
		}
		st := transports[name]
		for i, ca := range st.RootCAs {
			content, err := ca.Read()
			if err == nil && !x509.NewCertPool().AppendCertsFromPEM(content) {
				err = errors.New("no certificate in it")
			}
			if err != nil {
				t.Errorf("servers transport %s: rootCAs[%d]: %v", name, i, err)
			}
		}
		for i, cert := range st.Certificates {
			if _, err := cert.GetCertificate(); err != nil {
				t.Errorf("servers transport %s: certificates[%d]: %v", name, i, err)
			}
		}
	}
}

// ours says whether a qualified name is of an object sliceway wrote.
func ours(name string) bool { return strings.HasSuffix(name, "@"+slicewayProvider) }

type slicewayHandler struct{}

func (slicewayHandler) ServeHTTP(http.ResponseWriter, *http.Request) {}

// slicewayLogs holds what Traefik logs at warning level and above.
type slicewayLogs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *slicewayLogs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *slicewayLogs) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Reset()
}

func (l *slicewayLogs) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for line := range strings.SplitSeq(strings.TrimSpace(l.buf.String()), "\n") {
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// captureTraefikLogs sends Traefik's logs (the global logger, and the one
// contexts without their own get, as Traefik's own set-up arranges) to
// the returned buffer for the test's duration.
func captureTraefikLogs(t *testing.T) *slicewayLogs {
	t.Helper()
	logs := &slicewayLogs{}
	logger := zerolog.New(logs).Level(zerolog.WarnLevel)
	global, contextual := log.Logger, zerolog.DefaultContextLogger
	log.Logger, zerolog.DefaultContextLogger = logger, &logger
	t.Cleanup(func() { log.Logger, zerolog.DefaultContextLogger = global, contextual })
	return logs
}
