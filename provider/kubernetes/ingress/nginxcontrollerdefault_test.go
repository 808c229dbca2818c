package ingress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/nginx"
	to "github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// TestControllerDefaultBackendIsNoIngress: the controller's default
// backend is rendered as a part, but it is no Ingress of the cluster: it
// is not among the served Ingresses (the status writer writes to those),
// an Ingress without rules takes its catch-all without an error, and
// what is wrong with it names the Service and the option.
func TestControllerDefaultBackendIsNoIngress(t *testing.T) {
	withDefault := func(np *NGINXProvider) {
		np.DefaultBackendService = "ingress-nginx/pages"
		np.WatchIngressWithoutClass = true
	}
	objs := append(to.Backend("ingress-nginx", "pages", "10.0.9.1"), to.Backend("shop", "app", "10.0.0.1")...)
	site := to.NewIngress("shop", "site", to.WithPath("site.example.com", "/", "app", 80, ""))

	res := renderNGINXObjects(t, withDefault, append(objs, site)...)
	require.Empty(t, res.Errors)
	require.Len(t, res.Ingresses, 1)
	assert.Equal(t, "site", res.Ingresses[0].Name)
	catchAll := res.Configuration.HTTP.Routers[nginx.DefaultRouterName]
	require.NotNil(t, catchAll)
	assert.Equal(t, `PathPrefix("/")`, catchAll.Rule)
	assert.Equal(t, "http://10.0.9.1:8080", res.Configuration.HTTP.Services[catchAll.Service].LoadBalancer.Servers[0].URL)

	t.Run("an Ingress without rules takes its place", func(t *testing.T) {
		own := to.NewIngress("shop", "own", to.WithDefaultBackend("app", 80))
		res := renderNGINXObjects(t, withDefault, append(objs, site, own)...)
		require.Empty(t, res.Errors)
		assert.Len(t, res.Ingresses, 2)
		catchAll := res.Configuration.HTTP.Routers[nginx.DefaultRouterName]
		require.NotNil(t, catchAll)
		assert.Equal(t, "http://10.0.0.1:8080", res.Configuration.HTTP.Services[catchAll.Service].LoadBalancer.Servers[0].URL)
	})
	t.Run("a missing Service: an error naming it and the option, no catch-all", func(t *testing.T) {
		res := renderNGINXObjects(t, withDefault, append(to.Backend("shop", "app", "10.0.0.1"), site)...)
		require.Len(t, res.Errors, 1)
		assert.Equal(t, "Service ingress-nginx/pages: defaultBackendService: service ingress-nginx/pages not found (requests no router matches get Traefik's 404)", res.Errors[0].Error())
		assert.NotContains(t, res.Configuration.HTTP.Routers, nginx.DefaultRouterName)
		assert.Len(t, res.Ingresses, 1)
	})
	t.Run("the option must name namespace/name, of a watched namespace", func(t *testing.T) {
		np := &NGINXProvider{}
		np.SetDefaults()
		np.DefaultBackendService = "pages"
		assert.EqualError(t, np.Init(), `defaultBackendService: "pages": must be namespace/name`)
		np.DefaultBackendService = "ingress-nginx/pages"
		np.Namespaces = []string{"shop", "blog"}
		assert.EqualError(t, np.Init(), `defaultBackendService: "ingress-nginx/pages": namespace ingress-nginx is not watched (namespaces: shop, blog)`)
		np.Namespaces = append(np.Namespaces, "ingress-nginx")
		assert.NoError(t, np.Init())
	})
}
