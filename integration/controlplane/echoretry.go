package controlplane

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// retryFailures makes requests under /retry/ fail as echo-basic's retry
// simulation does, for the conformance suite's retry tests: the first
// ?succeedAfter=N requests carrying one ?uuid= fail, the next ones are
// echoed. A failure resets the connection (a TCP RST), or answers
// ?responseCode= when given, after ?delayRetry= when given. It counts
// per server, which is per pod: a test that counts a route's retries
// sends them to a one-pod backend.
type retryFailures struct {
	mu     sync.Mutex
	counts map[string]int // by uuid
}

// maxRetryUUIDs bounds what is counted: past it, the counts start over.
const maxRetryUUIDs = 10000

// fail answers req with a failure and returns true when it is one of
// the first ones of its uuid; a request it cannot read is answered 400.
func (f *retryFailures) fail(w http.ResponseWriter, req *http.Request) bool {
	q := req.URL.Query()
	uuid := q.Get("uuid")
	succeedAfter, err := strconv.Atoi(q.Get("succeedAfter"))
	if uuid == "" || err != nil {
		echoError(w, errors.New("uuid and succeedAfter are required"), http.StatusBadRequest)
		return true
	}
	f.mu.Lock()
	if f.counts == nil || len(f.counts) >= maxRetryUUIDs {
		f.counts = map[string]int{}
	}
	failing := f.counts[uuid] < succeedAfter
	if failing {
		f.counts[uuid]++
	}
	f.mu.Unlock()
	if !failing {
		return false
	}
	if d := q.Get("delayRetry"); d != "" {
		wait, err := time.ParseDuration(d)
		if err != nil {
			echoError(w, err, http.StatusInternalServerError)
			return true
		}
		time.Sleep(wait)
	}
	if code, err := strconv.Atoi(q.Get("responseCode")); err == nil {
		w.WriteHeader(code)
		return true
	}
	resetConnection(w)
	return true
}

// resetConnection drops the request's connection with a TCP RST, or
// answers 500 where the connection cannot be taken over (HTTP/2).
func resetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		echoError(w, errors.New("the connection cannot be reset"), http.StatusInternalServerError)
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		echoError(w, err, http.StatusInternalServerError)
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
