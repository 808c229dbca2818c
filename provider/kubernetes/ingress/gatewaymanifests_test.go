package ingress

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

const gatewayManifests = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels: {team: a}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: sliceway
spec:
  controllerName: sliceway.io/gateway-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: shop
spec:
  gatewayClassName: sliceway
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: HTTPRoute
metadata:
  name: web
  namespace: shop
spec:
  parentRefs: [{name: edge}]
  hostnames: [web.example]
  rules:
  - backendRefs: [{name: web, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: shop
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
ports: [{name: "", port: 8080}]
endpoints:
- addresses: [10.1.0.1]
  conditions: {ready: true}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata:
  name: greeter
  namespace: shop
spec:
  parentRefs: [{name: edge}]
  hostnames: [grpc.example]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata:
  name: from-other
  namespace: shop
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: other}]
  to: [{group: "", kind: Service}]
`

// TestClientGatewayOnManifests: the offline cluster of manifests serves
// the Gateway API objects to the same informers as a live one (older
// versions as v1), the Gateway front end renders the client's snapshot,
// and an edit of the files reaches OnChange and the next render as the
// same edit in a cluster would.
func TestClientGatewayOnManifests(t *testing.T) {
	apply := func(t *testing.T, c *manifests.Cluster, yaml string) manifests.ApplyResult {
		t.Helper()
		objs, problems := manifests.Decode("gateway.yaml", []byte(yaml), manifests.WantedKinds(true))
		require.Empty(t, problems)
		res, problems := c.Apply(objs)
		require.Empty(t, problems)
		return res
	}
	cluster := manifests.NewCluster()
	apply(t, cluster, gatewayManifests)
	var events gatewayEvents
	client, _ := startClient(t, cluster.Clientset(), ClientOptions{Gateway: cluster.GatewayClientset(), OnChange: events.onChange, Notify: events.notify})

	snap, ok := client.Snapshot().(GatewaySnapshot)
	require.True(t, ok)
	assert.Equal(t, []string{"/sliceway"}, names(snap.GatewayClasses()))
	assert.Equal(t, []string{"shop/edge"}, names(snap.Gateways()))
	assert.Equal(t, []string{"shop/web"}, names(snap.HTTPRoutes()))
	assert.Equal(t, []gatewayv1.Hostname{"web.example"}, snap.HTTPRoutes()[0].Spec.Hostnames)
	assert.Equal(t, []string{"shop/greeter"}, names(snap.GRPCRoutes()))
	assert.Equal(t, []string{"shop/from-other"}, names(snap.ReferenceGrants()))
	require.NotNil(t, snap.Namespace("shop"))
	assert.Equal(t, "a", snap.Namespace("shop").Labels["team"])

	renderer := NewRenderer(&newGatewayProvider(t).Provider)
	assert.Equal(t, []string{"web.example"}, renderedHosts(t, renderer, client.Snapshot()))

	events.reset()
	res := apply(t, cluster, strings.Replace(gatewayManifests, "hostnames: [web.example]", "hostnames: [www.example]", 1))
	assert.Equal(t, manifests.ApplyResult{Updated: 1}, res)
	require.Eventually(t, func() bool {
		changes, _ := events.read()
		return len(changes) > 0
	}, 10*time.Second, 5*time.Millisecond)
	changes, _ := events.read()
	assert.Equal(t, []string{"HTTPRoute"}, changes)
	assert.Equal(t, []string{"www.example"}, renderedHosts(t, renderer, client.Snapshot()))
}

// renderedHosts renders snap and returns the hosts its routers' rules
// name, from web.example and www.example, sorted.
func renderedHosts(t *testing.T, r *Renderer, snap Snapshot) []string {
	t.Helper()
	res, _ := r.Render(snap, nil)
	require.Empty(t, res.Errors)
	var hosts []string
	for _, router := range res.Configuration.HTTP.Routers {
		for _, h := range []string{"web.example", "www.example"} {
			if strings.Contains(router.Rule, h) && !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
		assert.Equal(t, "shop-web-80", router.Service)
	}
	slices.Sort(hosts)
	return hosts
}
