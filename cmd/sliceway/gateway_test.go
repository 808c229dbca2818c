package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
)

// render --providers.kubernetesgateway=true serves the HTTPRoutes of the
// manifests: a router per rule on the listener's entry point, the rule's
// weighted service and filters. Without the switch, the Gateway API
// objects are skipped with a warning, as any kind no provider reads.
func TestRenderGatewayAPIManifests(t *testing.T) {
	manifest, err := filepath.Abs("testdata/gateway.yaml")
	require.NoError(t, err)
	res := run(t, nil, "render", "--providers.kubernetesgateway=true", "--manifests="+manifest)
	require.Equal(t, 0, res.code, res.stderr)
	var conf dynamic.Configuration
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &conf))
	cart := conf.HTTP.Routers["httproute-shop-shop-infra-edge-http-r0-m0"]
	require.NotNil(t, cart, res.stdout)
	assert.Equal(t, []string{"web"}, cart.EntryPoints)
	assert.Equal(t, `Host("shop.example.com") && (Path("/cart") || PathPrefix("/cart/"))`, cart.Rule)
	assert.Greater(t, cart.Priority, conf.HTTP.Routers["httproute-shop-shop-infra-edge-http-r1-m0"].Priority, "/cart before /")
	require.NotNil(t, conf.HTTP.Services["httproute-shop-shop-r0"].Weighted)
	assert.Len(t, conf.HTTP.Services["httproute-shop-shop-r0"].Weighted.Services, 2)
	assert.Len(t, conf.HTTP.Middlewares, 1, "the header filter")
	assert.Contains(t, res.stderr, "providers=[\"kubernetesgateway\"]")

	res = run(t, nil, "render", "--manifests="+manifest)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, "HTTPRoute is not used, skipped")
	assert.NotContains(t, res.stdout, "httproute-")

	res = run(t, nil, "render", "--providers.kubernetesgateway=true", "--providers.kubernetesgateway.ingressclass=x", "--manifests="+manifest)
	assert.Contains(t, res.stderr, "providers.kubernetesGateway.ingressClass is not read by the Gateway API provider")
}
