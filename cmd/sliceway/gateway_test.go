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

// The Gateway provider's entry points are a map: flags name its entries
// by their keys, a new one beside the defaults, and give its fields (an
// entry named by flags is made of what they give, defaults or not); an
// entry's misspelt field is an unknown flag.
func TestGatewayEntryPointsByFlags(t *testing.T) {
	manifest, err := filepath.Abs("testdata/gateway.yaml")
	require.NoError(t, err)
	const ep = "--providers.kubernetesgateway.entrypoints."
	res := run(t, nil, "render", "--providers.kubernetesgateway=true", "--manifests="+manifest,
		ep+"web.port=80", ep+"web.protocol=HTTP", ep+"web.address=192.0.2.1",
		ep+"websecure.port=443", ep+"websecure.protocol=HTTPS", ep+"websecure.address=192.0.2.1",
		ep+"alt.port=80", ep+"alt.protocol=HTTP", ep+"alt.address=192.0.2.2")
	require.Equal(t, 0, res.code, res.stderr)
	var conf dynamic.Configuration
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &conf))
	cart := conf.HTTP.Routers["httproute-shop-shop-infra-edge-http-r0-m0"]
	require.NotNil(t, cart, res.stdout)
	assert.Equal(t, []string{"web"}, cart.EntryPoints, "the one Gateway on the first address")

	res = run(t, nil, "render", "--providers.kubernetesgateway=true", "--manifests="+manifest, ep+"web.prot=HTTP")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, "unknown flag --providers.kubernetesgateway.entrypoints.web.prot")
	res = run(t, nil, "render", "--providers.kubernetesgateway=true", "--manifests="+manifest,
		ep+"alt.port=80", ep+"alt.protocol=HTTP", ep+"alt.address=192.0.2.2")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, "an address is set on some entry points and not on others")
	res = run(t, nil, "render", "--providers.kubernetesgateway=true", "--manifests="+manifest, ep+"alt.address=192.0.2.2")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, "providers.kubernetesGateway.entryPoints.alt.port: want a port from 1 to 65535", "a new entry point is given whole")
}
