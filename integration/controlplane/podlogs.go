package controlplane

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/sliceway/sliceway/internal/pki"
)

// The runner plays the kubelet for pod logs too, so that `kubectl logs`
// (the API's pods/log) reads what a pod's echo servers wrote: each
// echoed request is a line "Echoing back request made to <path> to
// client (<address>)", as the conformance suite's echo backend writes it
// and as its RequestMirror tests look for it. The API server asks the
// Node's kubelet for them, at the Node's InternalIP (the control plane
// prefers it) and its status's kubelet port: the runner serves there,
// over TLS with a certificate of its own (the API server verifies no
// kubelet certificate without --kubelet-certificate-authority).

// maxLogLines bounds what a pod's log keeps: its last lines.
const maxLogLines = 10000

// kubeletPort is where the runner serves pods' logs, the kubelet's port.
const kubeletPort = 10250

// podLog is a pod's log: its lines with the times they were written.
type podLog struct {
	mu    sync.Mutex
	lines []logLine
}

type logLine struct {
	at   time.Time
	text string
}

func (l *podLog) printf(format string, args ...any) {
	if l == nil {
		return
	}
	line := logLine{at: time.Now(), text: fmt.Sprintf(format, args...)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) >= maxLogLines {
		l.lines = append(l.lines[:0], l.lines[len(l.lines)-maxLogLines/2:]...)
	}
	l.lines = append(l.lines, line)
}

// since is a copy of the lines written at or after t (all, for the zero t).
func (l *podLog) since(t time.Time) []logLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := len(l.lines)
	for i > 0 && !l.lines[i-1].at.Before(t) {
		i--
	}
	return append([]logLine(nil), l.lines[i:]...)
}

// serveLogs serves the pods' logs at the Node's InternalIP, which it adds
// to the loopback device, and writes the kubelet port into the Node's
// status. It returns the server, which Stop closes.
func (r *PodRunner) serveLogs(ctx context.Context) (*http.Server, error) {
	node, err := r.c.client.CoreV1().Nodes().Get(ctx, r.opts.Node, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading node %s: %w", r.opts.Node, err)
	}
	var ip string
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			ip = a.Address
		}
	}
	if net.ParseIP(ip) == nil {
		return nil, fmt.Errorf("node %s has no InternalIP to serve its pods' logs at", r.opts.Node)
	}
	if out, err := exec.Command("ip", "addr", "add", ip+"/32", "dev", "lo").CombinedOutput(); err != nil && !strings.Contains(string(out), "File exists") {
		return nil, fmt.Errorf("adding %s to lo: %v: %s", ip, err, out)
	}
	cert, err := pki.SelfSigned(pki.Request{CommonName: r.opts.Node, Hosts: []string{ip, r.opts.Node}, Usage: pki.ServerAuth,
		NotAfter: time.Now().Add(7 * 24 * time.Hour)})
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(kubeletPort)))
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(r.containerLogs), ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert.TLSCertificate()}, MinVersion: tls.VersionTLS12}}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := r.c.client.CoreV1().Nodes().Get(ctx, r.opts.Node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Status.DaemonEndpoints.KubeletEndpoint.Port = kubeletPort
		_, err = r.c.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		_ = srv.Close()
		return nil, fmt.Errorf("writing the kubelet port of node %s: %w", r.opts.Node, err)
	}
	return srv, nil
}

// containerLogs answers GET /containerLogs/<namespace>/<pod>/<container>
// as a kubelet does, with sinceTime and timestamps; a pod's containers
// share its one log.
func (r *PodRunner) containerLogs(w http.ResponseWriter, req *http.Request) {
	parts := strings.Split(strings.TrimPrefix(req.URL.Path, "/containerLogs/"), "/")
	if !strings.HasPrefix(req.URL.Path, "/containerLogs/") || len(parts) != 3 {
		http.NotFound(w, req)
		return
	}
	r.mu.Lock()
	p := r.running[parts[0]+"/"+parts[1]]
	r.mu.Unlock()
	if p == nil {
		http.Error(w, fmt.Sprintf("pod %s/%s is not running here", parts[0], parts[1]), http.StatusNotFound)
		return
	}
	var since time.Time
	if s := req.URL.Query().Get("sinceTime"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			http.Error(w, errors.New("sinceTime is not an RFC 3339 time").Error(), http.StatusBadRequest)
			return
		}
		since = t
	}
	stamps := req.URL.Query().Get("timestamps") == "true"
	w.Header().Set("Content-Type", "text/plain")
	for _, line := range p.log.since(since) {
		if stamps {
			_, _ = fmt.Fprintf(w, "%s %s\n", line.at.UTC().Format(time.RFC3339Nano), line.text)
		} else {
			_, _ = fmt.Fprintln(w, line.text)
		}
	}
}
