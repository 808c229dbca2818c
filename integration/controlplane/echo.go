package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"time"
)

// EchoReply is what a pod's echo server answers every request with, as
// JSON: what it was asked, and which pod answered. Its fields and their
// JSON names are those the Gateway API conformance suite reads of its own
// echo server's answers (roundtripper.CapturedRequest).
type EchoReply struct {
	Path      string              `json:"path"`
	Host      string              `json:"host"`
	Method    string              `json:"method"`
	Protocol  string              `json:"proto"`
	Headers   map[string][]string `json:"headers"`
	Namespace string              `json:"namespace"`
	Pod       string              `json:"pod"`
}

// echoServer is the echo server of one pod port.
type echoServer struct {
	srv *http.Server
}

// startEcho serves the echo of pod namespace/name on address: HTTP/1.1,
// and HTTP/2 without TLS (h2c) for a client that starts with it.
func startEcho(address, namespace, name string) (*echoServer, error) {
	l, err := net.Listen("tcp", address)
	if err != nil {
		return nil, err
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			reply := EchoReply{Path: req.URL.RequestURI(), Host: req.Host, Method: req.Method, Protocol: req.Proto,
				Headers: req.Header, Namespace: namespace, Pod: name}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(reply)
		}),
		Protocols:         protocols,
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = l.Close()
		}
	}()
	return &echoServer{srv: srv}, nil
}

// close stops the server at once.
func (s *echoServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
}
