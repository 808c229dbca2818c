package ingress

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRESTConfigRateLimits(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, tc := range []struct {
		desc       string
		qps        float64
		burst      int
		wantQPS    float32
		wantBurst  int
		defaulting bool
	}{
		{desc: "defaults", defaulting: true, wantQPS: 20, wantBurst: 30},
		{desc: "set", qps: 100, burst: 200, wantQPS: 100, wantBurst: 200},
		{desc: "a rate without a burst gets a second's worth", qps: 7.5, wantQPS: 7.5, wantBurst: 8},
		{desc: "unset: client-go's own", wantQPS: 0, wantBurst: 0},
		{desc: "no client-side limit", qps: -1, wantQPS: -1, wantBurst: 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			p := &Provider{}
			p.SetDefaults()
			if !tc.defaulting {
				p.ClientQPS, p.ClientBurst = tc.qps, tc.burst
			}
			p.Endpoint = "https://127.0.0.1:6443"
			require.NoError(t, p.Validate())
			cfg, err := p.RESTConfig()
			require.NoError(t, err)
			assert.Equal(t, tc.wantQPS, cfg.QPS)
			assert.Equal(t, tc.wantBurst, cfg.Burst)
			_, err = p.NewClientset()
			require.NoError(t, err, "client-go takes the limits")
		})
	}
}

func TestDisableCompression(t *testing.T) {
	for _, tc := range []struct {
		mode                  string
		inCluster, configured bool
		want                  bool
	}{
		{mode: "auto", inCluster: true, want: true},
		{mode: "", inCluster: true, want: true},
		{mode: "auto", want: false},
		{mode: "auto", configured: true, want: true},
		{mode: "on", inCluster: true, want: false},
		{mode: "On", configured: true, want: false},
		{mode: "off", want: true},
		{mode: "OFF", inCluster: true, want: true},
	} {
		assert.Equal(t, tc.want, disableCompression(tc.mode, tc.inCluster, tc.configured), "%+v", tc)
	}
}

func TestRESTConfigCompression(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	kubeconfig := filepath.Join(t.TempDir(), "config")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: far
  cluster:
    server: https://far.example:6443
    disable-compression: true
users:
- name: u
  user:
    token: t
contexts:
- name: c
  context: {cluster: far, user: u}
current-context: c
`), 0o600))
	for _, tc := range []struct {
		desc       string
		endpoint   string
		mode       string
		kubeconfig string
		want       bool
	}{
		{desc: "an endpoint, auto: client-go's default", endpoint: "https://127.0.0.1:6443", mode: "auto", want: false},
		{desc: "an endpoint, off", endpoint: "https://127.0.0.1:6443", mode: "off", want: true},
		{desc: "a kubeconfig that disables it, auto", kubeconfig: kubeconfig, mode: "auto", want: true},
		{desc: "a kubeconfig that disables it, on", kubeconfig: kubeconfig, mode: "on", want: false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.kubeconfig)
			p := &Provider{}
			p.SetDefaults()
			p.Endpoint = tc.endpoint
			p.ClientCompression = tc.mode
			require.NoError(t, p.Validate())
			cfg, err := p.RESTConfig()
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg.DisableCompression)
		})
	}

	p := &Provider{}
	p.SetDefaults()
	p.ClientCompression = "gzip"
	require.EqualError(t, p.Validate(), `clientCompression "gzip": must be auto, on or off`)
}
