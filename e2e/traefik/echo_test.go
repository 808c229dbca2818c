package traefike2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Echo is what an echo backend saw of a request, as it answers it in
// JSON: which backend it is, and the request as it arrived after Traefik
// (path, raw path, query, Host, every header, the peer).
type Echo struct {
	Backend    string      `json:"backend"`
	TLS        bool        `json:"tls"`
	Proto      string      `json:"proto"`
	Method     string      `json:"method"`
	Path       string      `json:"path"`
	RawPath    string      `json:"rawPath"`
	RequestURI string      `json:"requestURI"`
	Query      string      `json:"query"`
	Host       string      `json:"host"`
	Header     http.Header `json:"header"`
	RemoteAddr string      `json:"remoteAddr"`
	Body       string      `json:"body"`
}

// echoBackendHeader names the answering backend on every echo response,
// so that an answer whose body is not JSON (HEAD) is still attributed.
const echoBackendHeader = "X-Echo-Backend"

// maxEchoBody bounds the request body an echo reads back.
const maxEchoBody = 64 << 10

// echoStatus is the status a request asks its backend for: the three
// digits after the last "/status/" of its path (/status/404, or
// /app/status/503 after a prefix), else 200. Error-page and retry cases
// use it.
func echoStatus(path string) int {
	i := strings.LastIndex(path, "/status/")
	if i < 0 {
		return http.StatusOK
	}
	digits := path[i+len("/status/"):]
	if len(digits) > 3 {
		digits = digits[:3]
	}
	code, err := strconv.Atoi(digits)
	if err != nil || code < 100 || code > 599 {
		return http.StatusOK
	}
	return code
}

// maxEchoSleep bounds how long a request can make its backend wait.
const maxEchoSleep = 5 * time.Second

// echoSleep is how long a request asks its backend to wait before it
// answers: the milliseconds after the last "/sleep/" of its path
// (/sleep/1500), at most maxEchoSleep; 0 without one. Timeout cases use
// it.
func echoSleep(path string) time.Duration {
	i := strings.LastIndex(path, "/sleep/")
	if i < 0 {
		return 0
	}
	digits, _, _ := strings.Cut(path[i+len("/sleep/"):], "/")
	ms, err := strconv.Atoi(digits)
	if err != nil || ms <= 0 {
		return 0
	}
	return min(time.Duration(ms)*time.Millisecond, maxEchoSleep)
}

func echoHandler(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := echoSleep(r.URL.Path); d > 0 {
			timer := time.NewTimer(d)
			select {
			case <-timer.C:
			case <-r.Context().Done(): // the proxy gave up: no answer to write
				timer.Stop()
				return
			}
		}
		if holdsPath(r.URL.Path) {
			holds.wait(r.Context())
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxEchoBody))
		answer := Echo{
			Backend: name, TLS: r.TLS != nil, Proto: r.Proto, Method: r.Method,
			Path: r.URL.Path, RawPath: r.URL.RawPath, RequestURI: r.RequestURI, Query: r.URL.RawQuery,
			Host: r.Host, Header: r.Header, RemoteAddr: r.RemoteAddr, Body: string(body),
		}
		w.Header().Set(echoBackendHeader, name)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(echoStatus(r.URL.Path))
		_ = json.NewEncoder(w).Encode(answer)
	})
}

// handlers are the backends that are not echoes, by name (an auth
// service, say): a case file registers one in its init, and manifests
// name it as they name an echo backend.
var handlers = map[string]func() http.Handler{}

// backends are the echo servers of the suite, by name, started when a
// manifest first names one. httptest listens on 127.0.0.1.
type backends struct {
	t  *testing.T
	mu sync.Mutex
	by map[string]*backend
}

type backend struct {
	tls    bool
	server *httptest.Server
}

func newBackends(t *testing.T) *backends {
	return &backends{t: t, by: map[string]*backend{}}
}

// port returns the port of the backend called name, started now if it
// is new: plain HTTP, or HTTPS with httptest's self-signed certificate
// when tls is set. A name is one kind of backend for the whole suite.
func (b *backends) port(name string, tls bool) (int, error) {
	s, err := b.server(name, tls)
	if err != nil {
		return 0, err
	}
	return portOf(s.Listener.Addr().String())
}

// server is the backend called name, started now if it is new. A plain
// backend also speaks HTTP/2 without TLS to a client that starts with
// it (h2c with prior knowledge, as Traefik's h2c:// servers do), so that
// an answer's proto says which one the proxy chose.
func (b *backends) server(name string, tls bool) (*httptest.Server, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if be, ok := b.by[name]; ok {
		if be.tls != tls {
			return nil, &backendKindError{name: name, tls: be.tls}
		}
		return be.server, nil
	}
	h := echoHandler(name)
	if mk, ok := handlers[name]; ok {
		h = mk()
	}
	var s *httptest.Server
	if tls {
		s = httptest.NewTLSServer(h)
	} else {
		s = httptest.NewUnstartedServer(h)
		s.Config.Protocols = new(http.Protocols)
		s.Config.Protocols.SetHTTP1(true)
		s.Config.Protocols.SetUnencryptedHTTP2(true)
		s.Start()
	}
	b.t.Cleanup(s.Close)
	b.by[name] = &backend{tls: tls, server: s}
	return s, nil
}

type backendKindError struct {
	name string
	tls  bool
}

func (e *backendKindError) Error() string {
	kind := map[bool]string{true: "an HTTPS", false: "a plain HTTP"}
	return "backend " + strconv.Quote(e.name) + " is already " + kind[e.tls] + " backend; give the other kind another name"
}
