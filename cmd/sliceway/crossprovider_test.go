package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/config/static"
)

// tenantSite is a Traefik-style Ingress of namespace tenant naming a
// middleware of Traefik's file provider, with its Service and slice.
const tenantSite = followClass + `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: tenant
  annotations:
    traefik.ingress.kubernetes.io/router.middlewares: auth@file
spec:
  ingressClassName: traefik
  rules:
    - host: shop.example
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: shop, port: {number: 80}}}
---
apiVersion: v1
kind: Service
metadata: {name: shop, namespace: tenant}
spec:
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: shop-1
  namespace: tenant
  labels: {kubernetes.io/service-name: shop}
addressType: IPv4
ports: [{port: 8080}]
endpoints:
  - addresses: [10.0.0.1]
`

// crossProviderNamespaces is read from every source, and an empty value
// means "no namespace" from each of them: paerser alone reads an empty
// list as no list, which would allow every namespace.
func TestCrossProviderNamespacesFromEverySource(t *testing.T) {
	dir := t.TempDir()
	manifests := writeFile(t, dir, "cluster/tenant.yaml", tenantSite)
	const flag = "--providers.kubernetesingress.crossprovidernamespaces"
	const variable = "SLICEWAY_PROVIDERS_KUBERNETESINGRESS_CROSSPROVIDERNAMESPACES"
	file := func(name, content string) string { return "--configfile=" + writeFile(t, dir, name, content) }
	yamlFile := func(name, list string) string {
		return file(name, "manifests: ["+manifests+"]\nproviders:\n  kubernetesIngress:\n    allowEmptyServices: false\n    crossProviderNamespaces: "+list+"\n")
	}
	tests := []struct {
		desc   string
		env    []string
		args   []string
		served bool
	}{
		{desc: "not given: every namespace", args: []string{"--manifests=" + manifests}, served: true},
		{desc: "a flag naming the namespace", args: []string{"--manifests=" + manifests, flag + "=tenant,platform"}, served: true},
		{desc: "a flag naming another", args: []string{"--manifests=" + manifests, flag + "=platform"}},
		{desc: "an empty flag", args: []string{"--manifests=" + manifests, flag + "="}},
		{desc: "an empty flag, its value apart", args: []string{"--manifests=" + manifests, flag, ""}},
		{desc: "an empty flag in capitals", args: []string{"--manifests=" + manifests, "--Providers.KubernetesIngress.CrossProviderNamespaces="}},
		{desc: "an empty variable", env: []string{"SLICEWAY_MANIFESTS=" + manifests, variable + "="}},
		{desc: "a variable naming the namespace", env: []string{"SLICEWAY_MANIFESTS=" + manifests, variable + "=tenant"}, served: true},
		{desc: "[] in a YAML file", args: []string{yamlFile("empty.yaml", "[]")}},
		{desc: "a list in a YAML file", args: []string{yamlFile("list.yaml", "[tenant]")}, served: true},
		{desc: "no value in a YAML file is unset", args: []string{yamlFile("null.yaml", "")}, served: true},
		{desc: "[] in a TOML file", args: []string{file("empty.toml", "manifests = ['"+manifests+"']\n[providers.kubernetesIngress]\ncrossProviderNamespaces = []\n")}},
		{desc: "[] in a JSON file", args: []string{file("empty.json", `{"manifests":["`+manifests+`"],"providers":{"kubernetesingress":{"CROSSPROVIDERNAMESPACES":[]}}}`)}},
	}
	for _, test := range tests {
		t.Run(test.desc, func(t *testing.T) {
			res := runIn(t, t.TempDir(), test.env, append([]string{"render"}, test.args...)...)
			require.Equal(t, 0, res.code, res.stderr)
			var conf dynamic.Configuration
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &conf), res.stdout)
			const refused = `middleware "auth@file": namespace "tenant" is not in crossProviderNamespaces`
			if test.served {
				require.NotNil(t, conf.HTTP)
				assert.Equal(t, []string{"auth@file"}, conf.HTTP.Routers["tenant-shop-shop-example"].Middlewares)
				assert.NotContains(t, res.stderr, "crossProviderNamespaces")
				return
			}
			if conf.HTTP != nil {
				assert.Empty(t, conf.HTTP.Routers, "the Ingress is skipped")
			}
			assert.Contains(t, res.stderr, refused)
			assert.Contains(t, res.stderr, "field=metadata.annotations[traefik.ingress.kubernetes.io/router.middlewares]")
		})
	}

	res := run(t, nil, "render", "--manifests="+manifests, flag+"=tenant,")
	assert.Equal(t, 1, res.code)
	assert.Empty(t, res.stdout)
	assert.Contains(t, res.stderr, "providers.kubernetesIngress.crossProviderNamespaces: empty entry")
}

// The forms of an empty flag paerser takes; the last flag wins; a
// provider section that is not there is made, as paerser makes it for
// any of its options.
func TestSetEmptyFromFlags(t *testing.T) {
	const name = "--providers.kubernetesingress.crossprovidernamespaces"
	tests := []struct {
		desc  string
		args  []string
		empty bool
	}{
		{desc: "none", args: []string{"--demo"}},
		{desc: "=", args: []string{name + "="}, empty: true},
		{desc: "one dash", args: []string{"-providers.kubernetesingress.crossprovidernamespaces="}, empty: true},
		{desc: "value apart", args: []string{name, "", "--demo"}, empty: true},
		{desc: "a value", args: []string{name + "=a"}},
		{desc: "a value apart", args: []string{name, "a"}},
		{desc: "empty, then a value", args: []string{name + "=", name + "=a"}},
		{desc: "a value, then empty", args: []string{name + "=a", name + "="}, empty: true},
		{desc: "the ingress-nginx provider's", args: []string{"--providers.kubernetesingressnginx.crossprovidernamespaces="}},
	}
	for _, test := range tests {
		t.Run(test.desc, func(t *testing.T) {
			cfg := static.New()
			setEmptyFromFlags(cfg, test.args)
			if !test.empty {
				assert.Nil(t, cfg.Providers.KubernetesIngress)
				return
			}
			require.NotNil(t, cfg.Providers.KubernetesIngress)
			assert.NotNil(t, cfg.Providers.KubernetesIngress.CrossProviderNamespaces)
			assert.Empty(t, cfg.Providers.KubernetesIngress.CrossProviderNamespaces)
			assert.Equal(t, "sliceway", cfg.Providers.KubernetesIngress.LeaderElection.LeaseName, "with its defaults")
		})
	}
}
