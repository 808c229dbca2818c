package controlplane

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/websocket"
)

// TestEchoHandler checks what the conformance suite reads of an echo
// answer: the request as it came (the path too, slashes and all), the
// pod, the response headers X-Echo-Set-Header asks for, /status/<code>,
// and ?delay=.
func TestEchoHandler(t *testing.T) {
	srv := httptest.NewServer(echoHandler(echoPod{namespace: "ns", name: "pod-1"}, "3000"))
	defer srv.Close()

	req, err := http.NewRequest(http.MethodPut, srv.URL+"//a/./b?x=1", nil)
	require.NoError(t, err)
	req.Host = "example.com"
	req.Header.Add("X-Echo-Set-Header", "X-One: 1, x-two: 2")
	req.Header.Add("X-Echo-Set-Header", "X-One: again")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var reply EchoReply
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reply))
	assert.Equal(t, EchoReply{Path: "//a/./b?x=1", Host: "example.com", Method: http.MethodPut, Protocol: "HTTP/1.1",
		Headers: reply.Headers, HTTPPort: "3000", Namespace: "ns", Pod: "pod-1"}, reply)
	assert.Equal(t, []string{"1,again"}, resp.Header["X-One"])
	assert.Equal(t, "2", resp.Header.Get("X-Two"))

	resp, err = http.Get(srv.URL + "/status/418")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusTeapot, resp.StatusCode)

	start := time.Now()
	resp, err = http.Get(srv.URL + "/slow?delay=200ms")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
	resp, err = http.Get(srv.URL + "/slow?delay=soon")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
}

// TestIsEchoBasic checks which images run the conformance echo.
func TestIsEchoBasic(t *testing.T) {
	for image, want := range map[string]bool{
		"registry.k8s.io/gateway-api/echo-basic:v1.5.1":     true,
		"registry.k8s.io/gateway-api/echo-basic@sha256:abc": true,
		"echo-basic": true,
		"registry.k8s.io/coredns/coredns:v1.12.2":              false,
		"registry.invalid/echo-basic-lookalike:1":              false,
		"registry.k8s.io/gateway-api/conformance/echo-basic:1": true,
	} {
		assert.Equal(t, want, isEchoBasic(image), image)
	}
}

// A WebSocket on /ws sends back each frame, text or binary, as the
// suite's echo does (HTTPRouteBackendProtocolWebSocket).
func TestEchoWebSocket(t *testing.T) {
	srv := httptest.NewServer(echoHandler(echoPod{namespace: "ns", name: "pod-1"}, "3000"))
	defer srv.Close()
	ws, err := websocket.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws", "", "http://gateway/")
	require.NoError(t, err)
	defer func() { _ = ws.Close() }()
	var text string
	require.NoError(t, websocket.Message.Send(ws, "hello"))
	require.NoError(t, websocket.Message.Receive(ws, &text))
	assert.Equal(t, "hello", text)
	var binary []byte
	require.NoError(t, websocket.Message.Send(ws, []byte{1, 2, 3}))
	require.NoError(t, websocket.Message.Receive(ws, &binary))
	assert.Equal(t, []byte{1, 2, 3}, binary)
}

// Under /retry/, the first succeedAfter requests of a uuid fail (with
// responseCode, else a reset connection), the next are echoed; each
// uuid counts apart.
func TestEchoRetrySimulation(t *testing.T) {
	srv := httptest.NewServer(echoHandler(echoPod{namespace: "ns", name: "pod-1"}, "3000"))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	status := func(query string) int {
		resp, err := client.Get(srv.URL + "/retry/x?" + query)
		if err != nil {
			return 0 // the connection was reset
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	var got []int
	for range 3 {
		got = append(got, status("uuid=a&succeedAfter=2&responseCode=503"))
	}
	require.Equal(t, []int{503, 503, 200}, got)
	require.Equal(t, 0, status("uuid=b&succeedAfter=1"), "a reset connection")
	require.Equal(t, 200, status("uuid=b&succeedAfter=1"))
	require.Equal(t, http.StatusBadRequest, status("succeedAfter=1"), "no uuid")
}
