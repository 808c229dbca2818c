package controlplane

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/websocket"
)

// The echo servers a PodRunner starts answer as the Gateway API
// conformance suite's echo backend (echo-basic) does, in what the suite
// reads: each request is answered with an EchoReply in JSON; ?delay=<Go
// duration> waits that long first; each X-Echo-Set-Header request header
// ("Name: value, Other: value") sets those response headers; /status/<code>
// answers that status; /health answers 200; a WebSocket handshake on /ws
// opens a WebSocket that sends each frame back; under /retry/ the first
// ?succeedAfter= requests of each ?uuid= fail (echoretry.go); each echoed request is a
// line of the pod's log, as echo-basic writes it (podlogs.go). The h2c port answers HTTP/2
// without TLS only (400 to anything else), the TLS port TLS with the pod's
// certificate, and the gRPC echo its own service (grpcecho.go).

// EchoReply is what an echo server answers a request with, as JSON: what
// it was asked, and which pod answered. Its fields and their JSON names are
// those the conformance suite reads (roundtripper.CapturedRequest).
type EchoReply struct {
	Path      string              `json:"path"`
	Host      string              `json:"host"`
	Method    string              `json:"method"`
	Protocol  string              `json:"proto"`
	Headers   map[string][]string `json:"headers"`
	HTTPPort  string              `json:"httpPort,omitempty"`
	Namespace string              `json:"namespace"`
	Pod       string              `json:"pod"`
	TLS       *EchoTLS            `json:"tls,omitempty"`
}

// EchoTLS is what an echo server saw of a TLS connection.
type EchoTLS struct {
	Version            string   `json:"version"`
	ServerName         string   `json:"serverName"`
	NegotiatedProtocol string   `json:"negotiatedProtocol"`
	CipherSuite        string   `json:"cipherSuite"`
	PeerCertificates   []string `json:"peerCertificates"`
}

// echoPod is who answers: the pod's namespace and name, and its log.
type echoPod struct {
	namespace, name string
	log             *podLog
}

// echoServer is one server of a pod.
type echoServer interface{ close() }

// httpEcho is an HTTP echo server.
type httpEcho struct{ srv *http.Server }

// startHTTPEcho serves the echo on l: HTTP/1.1 and HTTP/2 without TLS
// (h2cOnly: HTTP/2 alone), or over TLS with tlsConfig.
func startHTTPEcho(l net.Listener, pod echoPod, h2cOnly bool, tlsConfig *tls.Config) *httpEcho {
	_, port, _ := net.SplitHostPort(l.Addr().String())
	handler := echoHandler(pod, port)
	if h2cOnly {
		next := handler
		handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.ProtoMajor != 2 && req.Header.Get("Upgrade") != "h2c" {
				http.Error(w, "Expected h2c request", http.StatusBadRequest)
				return
			}
			next.ServeHTTP(w, req)
		})
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	if tlsConfig != nil {
		protocols.SetHTTP2(true)
		l = tls.NewListener(l, tlsConfig)
	} else {
		protocols.SetUnencryptedHTTP2(true)
	}
	srv := &http.Server{Handler: handler, Protocols: protocols, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return &httpEcho{srv: srv}
}

func (s *httpEcho) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
}

// echoHandler answers as described above, for the pod on port. It reads
// the path as it came (no ServeMux, which would redirect //a to /a).
func echoHandler(pod echoPod, port string) http.Handler {
	failures := &retryFailures{}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch p := req.URL.Path; {
		case p == "/health":
			w.WriteHeader(http.StatusOK)
		case strings.HasPrefix(p, "/retry/"):
			if failures.fail(w, req) {
				return
			}
			echo(w, req, pod, port)
		case p == "/ws" && strings.EqualFold(req.Header.Get("Upgrade"), "websocket"):
			websocket.Handler(func(ws *websocket.Conn) { _, _ = io.Copy(ws, ws) }).ServeHTTP(w, req)
		case strings.HasPrefix(p, "/status/"):
			code, err := strconv.Atoi(strings.TrimPrefix(p, "/status/"))
			if err != nil || code < 100 || code > 599 {
				echoError(w, errors.New("not a status code: "+p), http.StatusBadRequest)
				return
			}
			w.WriteHeader(code)
		default:
			echo(w, req, pod, port)
		}
	})
}

// echo answers req with its EchoReply, after ?delay=.
func echo(w http.ResponseWriter, req *http.Request, pod echoPod, port string) {
	if d := req.FormValue("delay"); d != "" {
		wait, err := time.ParseDuration(d)
		if err != nil {
			echoError(w, err, http.StatusInternalServerError)
			return
		}
		time.Sleep(wait)
	}
	pod.log.printf("Echoing back request made to %s to client (%s)", req.RequestURI, req.RemoteAddr)
	reply := EchoReply{Path: req.RequestURI, Host: req.Host, Method: req.Method, Protocol: req.Proto, Headers: req.Header,
		HTTPPort: port, Namespace: pod.namespace, Pod: pod.name, TLS: echoTLS(req.TLS)}
	body, err := json.MarshalIndent(reply, "", " ")
	if err != nil {
		echoError(w, err, http.StatusInternalServerError)
		return
	}
	setEchoHeaders(w.Header(), req.Header["X-Echo-Set-Header"])
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(body)
}

// setEchoHeaders sets the response headers asked for, each list
// "Name: value, Other: value"; a name asked again gets its values joined
// by commas. Names keep their case.
func setEchoHeaders(h http.Header, lists []string) {
	for _, list := range lists {
		for kv := range strings.SplitSeq(list, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(kv), ":")
			if len(h[name]) == 0 {
				h[name] = []string{strings.TrimSpace(value)}
			} else {
				h[name][0] += "," + strings.TrimSpace(value)
			}
		}
	}
}

// echoError answers code with the error as JSON.
func echoError(w http.ResponseWriter, err error, code int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": err.Error()})
}

// echoTLS is what the echo reports of a TLS connection, nil without one.
func echoTLS(cs *tls.ConnectionState) *EchoTLS {
	if cs == nil {
		return nil
	}
	t := &EchoTLS{Version: tlsVersionName(cs.Version), ServerName: cs.ServerName, NegotiatedProtocol: cs.NegotiatedProtocol,
		CipherSuite: tls.CipherSuiteName(cs.CipherSuite)}
	for _, c := range cs.PeerCertificates {
		t.PeerCertificates = append(t.PeerCertificates, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})))
	}
	return t
}

// tlsVersionName names a TLS version as the suite's echo does.
func tlsVersionName(v uint16) string {
	switch v {
	case tls.VersionTLS13:
		return "TLSv1.3"
	case tls.VersionTLS12:
		return "TLSv1.2"
	case tls.VersionTLS11:
		return "TLSv1.1"
	case tls.VersionTLS10:
		return "TLSv1.0"
	}
	return ""
}
