package ingress

import (
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
