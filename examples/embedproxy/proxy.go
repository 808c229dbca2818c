package main

import (
	"cmp"
	"crypto/sha1"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/rule"
)

// maxWeight bounds how many times a server is repeated in a rotation.
const maxWeight = 100

// proxy routes requests by the current table. The table is immutable and
// replaced as a whole: a request loads it once and keeps it to the end, so
// a swap never changes what a request in flight uses.
type proxy struct {
	log       zerolog.Logger
	transport *http.Transport // http and https servers
	h2c       *http.Transport // h2c servers: cleartext HTTP/2
	current   atomic.Pointer[table]
	applied   atomic.Int64

	// defaultCert is served over TLS for a name no certificate of the
	// configuration is valid for; nil without a TLS listener.
	defaultCert *tls.Certificate

	// counters keep each service's round-robin position across tables, so
	// that frequent configurations do not send every first request to the
	// first server. Only apply touches the map.
	counters map[string]*atomic.Uint64
}

func newProxy(log zerolog.Logger) *proxy {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	tr.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	h2c := tr.Clone()
	h2c.Protocols = new(http.Protocols)
	h2c.Protocols.SetUnencryptedHTTP2(true)
	return &proxy{log: log, transport: tr, h2c: h2c, counters: map[string]*atomic.Uint64{}}
}

func (px *proxy) close() {
	px.transport.CloseIdleConnections()
	px.h2c.CloseIdleConnections()
}

// table is one configuration made ready for routing. It is never modified
// once built.
type table struct {
	routes []*route // in the order they are tried
	certs  certificates
}

type route struct {
	name     string
	priority int
	expr     rule.Expr
	svc      *service
	// tls routers only serve requests that came over TLS, and the others
	// only plain HTTP ones, as in Traefik.
	tls bool
}

type service struct {
	name string
	// rotation holds the servers a new request may go to, each repeated by
	// its weight; fenced servers are never in it.
	rotation []*backend
	next     *atomic.Uint64
	// sticky is the session cookie, nil without sticky sessions.
	sticky *http.Cookie
	// byCookie finds the server of a session, fenced ones included.
	byCookie map[string]*backend
}

type backend struct {
	url    string
	fenced bool
	cookie string // the sticky cookie value naming this server
	proxy  *httputil.ReverseProxy
}

// apply builds the table of a configuration and swaps it in.
func (px *proxy) apply(conf *dynamic.Configuration) {
	t := px.build(conf)
	px.current.Store(t)
	n := px.applied.Add(1)
	services := map[*service]bool{}
	for _, r := range t.routes {
		services[r.svc] = true
	}
	px.log.Info().Int64("generation", n).Int("routers", len(t.routes)).Int("services", len(services)).
		Int("tlsNames", len(t.certs)).Msg("configuration applied")
}

// build turns a configuration into a table. Routers and servers that cannot
// be used are logged and left out; the rest is routed.
func (px *proxy) build(conf *dynamic.Configuration) *table {
	if conf == nil {
		conf = &dynamic.Configuration{}
	}
	t := &table{certs: buildCertificates(conf.TLS, px.log)}
	if conf.HTTP == nil {
		return t
	}
	counters := make(map[string]*atomic.Uint64, len(conf.HTTP.Services))
	services := make(map[string]*service, len(conf.HTTP.Services))
	for name, s := range conf.HTTP.Services {
		if s == nil || s.LoadBalancer == nil {
			px.log.Error().Str("service", name).Msg("service without a load balancer: not used")
			continue
		}
		c := px.counters[name]
		if c == nil {
			c = new(atomic.Uint64)
		}
		counters[name] = c
		services[name] = px.buildService(name, s.LoadBalancer, c)
	}
	px.counters = counters

	for name, r := range conf.HTTP.Routers {
		if r == nil {
			continue
		}
		log := px.log.With().Str("router", name).Logger()
		expr, err := rule.Parse(r.Rule)
		if err != nil {
			log.Error().Err(err).Msg("rule does not parse: router skipped")
			continue
		}
		svcName, provider, qualified := strings.Cut(r.Service, "@")
		svc := services[svcName]
		if svc == nil || (qualified && provider != ingress.ProviderName) {
			log.Error().Str("service", r.Service).Msg("service not found: router skipped")
			continue
		}
		priority := r.Priority
		if priority == 0 {
			priority = rule.Priority(r.Rule)
		}
		t.routes = append(t.routes, &route{name: name, priority: priority, expr: expr, svc: svc, tls: r.TLS != nil})
	}
	sortRoutes(t.routes)
	return t
}

// sortRoutes orders routes as Traefik tries them: higher priority first (a
// router without one has the length of its rule), then by name, so that the
// order never depends on map iteration.
func sortRoutes(routes []*route) {
	slices.SortFunc(routes, func(a, b *route) int {
		if c := cmp.Compare(b.priority, a.priority); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
}

func (px *proxy) buildService(name string, lb *dynamic.ServersLoadBalancer, counter *atomic.Uint64) *service {
	log := px.log.With().Str("service", name).Logger()
	svc := &service{name: name, next: counter, byCookie: map[string]*backend{}}
	passHost := lb.PassHostHeader == nil || *lb.PassHostHeader
	var flush time.Duration
	if lb.ResponseForwarding != nil {
		flush = time.Duration(lb.ResponseForwarding.FlushInterval)
	}
	if lb.Sticky != nil && lb.Sticky.Cookie != nil {
		svc.sticky = stickyCookie(name, lb.Sticky.Cookie)
	}
	for _, s := range lb.Servers {
		target, err := url.Parse(s.URL)
		if err != nil || target.Host == "" {
			log.Error().Str("url", s.URL).Msg("server URL is not usable: server skipped")
			continue
		}
		tr := px.transport
		switch target.Scheme {
		case "http", "https":
		case "h2c":
			tr = px.h2c
			target.Scheme = "http"
		default:
			log.Error().Str("url", s.URL).Msg("server URL scheme must be http, https or h2c: server skipped")
			continue
		}
		weight := 1
		if s.Weight != nil {
			weight = min(*s.Weight, maxWeight)
		}
		b := &backend{
			url:    s.URL,
			fenced: s.Fenced || weight <= 0,
			cookie: cookieValue(s.URL),
			proxy:  px.reverseProxy(target, passHost, flush, tr, log),
		}
		svc.byCookie[b.cookie] = b
		if b.fenced {
			continue
		}
		for range weight {
			svc.rotation = append(svc.rotation, b)
		}
	}
	return svc
}

func (px *proxy) reverseProxy(target *url.URL, passHost bool, flush time.Duration, tr http.RoundTripper, log zerolog.Logger) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.SetXForwarded()
			if passHost {
				// SetURL sets the server's host; keep the client's.
				pr.Out.Host = pr.In.Host
			}
		},
		Transport:     tr,
		FlushInterval: flush,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil {
				log.Warn().Err(err).Str("server", target.String()).Msg("server unreachable")
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
}

// stickyCookie is the cookie template of a sticky service: its name
// (default: derived from the service name) and attributes.
func stickyCookie(service string, c *dynamic.Cookie) *http.Cookie {
	name := c.Name
	if name == "" {
		sum := sha1.Sum([]byte(service))
		name = "_" + hex.EncodeToString(sum[:])[:6]
	}
	path := "/"
	if c.Path != nil {
		path = *c.Path
	}
	cookie := &http.Cookie{Name: name, Path: path, Domain: c.Domain, MaxAge: c.MaxAge, Secure: c.Secure, HttpOnly: c.HTTPOnly}
	switch strings.ToLower(c.SameSite) {
	case "none":
		cookie.SameSite = http.SameSiteNoneMode
	case "lax":
		cookie.SameSite = http.SameSiteLaxMode
	case "strict":
		cookie.SameSite = http.SameSiteStrictMode
	}
	return cookie
}

// cookieValue names a server in a sticky cookie without showing its address.
func cookieValue(serverURL string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(serverURL))
	return hex.EncodeToString(h.Sum(nil))
}

// errNoServer is a service without a server for a new request.
var errNoServer = errors.New("no available server")

// pick chooses the server of a request: the server of its sticky session
// when it still exists (fenced or not), else the next one round robin among
// those that are not fenced. It returns the cookie to set for a new session.
func (s *service) pick(r *http.Request) (*backend, *http.Cookie, error) {
	if s.sticky != nil {
		if c, err := r.Cookie(s.sticky.Name); err == nil {
			if b := s.byCookie[c.Value]; b != nil {
				return b, nil, nil
			}
		}
	}
	if len(s.rotation) == 0 {
		return nil, nil, errNoServer
	}
	b := s.rotation[(s.next.Add(1)-1)%uint64(len(s.rotation))]
	if s.sticky == nil {
		return b, nil, nil
	}
	c := *s.sticky
	c.Value = b.cookie
	return b, &c, nil
}

// match returns the first route for the kind of connection (TLS or not)
// whose rule matches, or nil.
func (t *table) match(overTLS bool, host, path string) *route {
	for _, r := range t.routes {
		if r.tls == overTLS && r.expr.Match(host, path) {
			return r
		}
	}
	return nil
}

func (px *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := px.current.Load() // this request keeps this table to its end
	if t == nil {
		http.Error(w, "no configuration yet", http.StatusServiceUnavailable)
		return
	}
	rt := t.match(r.TLS != nil, r.Host, r.URL.Path)
	if rt == nil {
		http.NotFound(w, r)
		return
	}
	b, cookie, err := rt.svc.pick(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if cookie != nil {
		http.SetCookie(w, cookie)
	}
	b.proxy.ServeHTTP(w, r)
}
