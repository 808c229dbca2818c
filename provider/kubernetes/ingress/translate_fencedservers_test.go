package ingress

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func TestTranslateFencedServers(t *testing.T) {
	tests := []struct {
		desc        string
		policy      string
		eps         []discoveryv1.Endpoint
		wantServers []dynamic.Server
	}{
		{
			desc:   "fallback with a ready endpoint fences the terminating one",
			policy: "fallback",
			eps:    []discoveryv1.Endpoint{testobjects.Endpoint("10.0.0.2", testobjects.ServingTerminating), testobjects.Endpoint("10.0.0.1", testobjects.Ready), testobjects.Endpoint("10.0.0.3", testobjects.NotReady)},
			wantServers: []dynamic.Server{
				{URL: "http://10.0.0.1:8080"},
				{URL: "http://10.0.0.2:8080", Weight: new(int), Fenced: true},
			},
		},
		{
			desc:   "fallback without a ready endpoint uses the terminating ones",
			policy: "fallback",
			eps:    []discoveryv1.Endpoint{testobjects.Endpoint("10.0.0.2", testobjects.ServingTerminating), testobjects.Endpoint("10.0.0.3", testobjects.NotReady)},
			wantServers: []dynamic.Server{
				{URL: "http://10.0.0.2:8080"},
			},
		},
		{
			desc:   "fence always fences",
			policy: "fence",
			eps:    []discoveryv1.Endpoint{testobjects.Endpoint("10.0.0.2", testobjects.ServingTerminating)},
			wantServers: []dynamic.Server{
				{URL: "http://10.0.0.2:8080", Weight: new(int), Fenced: true},
			},
		},
		{
			desc:   "exclude drops them",
			policy: "exclude",
			eps:    []discoveryv1.Endpoint{testobjects.Endpoint("10.0.0.2", testobjects.ServingTerminating), testobjects.Endpoint("10.0.0.1", testobjects.Ready)},
			wantServers: []dynamic.Server{
				{URL: "http://10.0.0.1:8080"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			snap := testobjects.NewSnapshot(
				testobjects.NewService("ns", "svc", testobjects.ServicePort("", 80)),
				testobjects.NewSlice("ns", "svc-1", "svc", "", 8080, tc.eps...),
				testobjects.NewIngress("ns", "ing", testobjects.WithPath("", "/", "svc", 80, "")),
			)
			opts := &Provider{TerminatingEndpoints: tc.policy}
			res := translateOnce(t, snap, opts)
			require.Empty(t, res.Errors)
			require.Contains(t, res.Configuration.HTTP.Services, "ns-svc-80")
			servers := res.Configuration.HTTP.Services["ns-svc-80"].LoadBalancer.Servers
			assert.Equal(t, tc.wantServers, servers)
			for _, s := range servers {
				if s.Fenced {
					require.NotNil(t, s.Weight, "fenced server %s needs an explicit weight", s.URL)
					assert.Equal(t, 0, *s.Weight, "fenced server %s", s.URL)
				} else {
					assert.Nil(t, s.Weight, "server %s keeps the default weight", s.URL)
				}
			}
			// The weight 0 must survive JSON, where Traefik's file provider reads it.
			js := mustJSON(t, servers)
			assert.Equal(t, strings.Count(js, `"fenced":true`), strings.Count(js, `"weight":0`), js)
		})
	}
}
