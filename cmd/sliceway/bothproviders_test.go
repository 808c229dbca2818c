package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
)

// nginxSite is a site of class nginx: an ingress-nginx Ingress with a
// rewrite-target, its Service and slice.
func nginxSite(name, address string) string {
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %[1]s
  annotations:
    nginx.ingress.kubernetes.io/rewrite-target: /$1
spec:
  ingressClassName: nginx
  rules:
    - host: %[1]s.example
      http:
        paths:
          - path: /app/(.*)
            pathType: ImplementationSpecific
            backend: {service: {name: %[1]s, port: {number: 80}}}
---
`, name) + siteBackend(name, address)
}

// Both providers in one watch: one configuration holds the routes of the
// Traefik-style Ingress and of the ingress-nginx one, and a change of
// either reaches it.
func TestWatchRunsBothProviders(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "traefik.yaml"), []byte(followClass+"---\n"+followSite("blog", "10.0.0.1")), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nginx.yaml"), []byte(nginxSite("shop", "10.0.0.2")), 0o600))
	p := startLive(t, "watch", "--manifests="+dir, "--providers.kubernetesingress=true", "--providers.kubernetesingressnginx=true")
	lines := readConfigLines(t, p)
	first := lines.next("the first configuration")
	assert.True(t, has(`"default-blog-blog-example"`, `"nginx_default-shop-shop-example-app"`, `"nginx_default-shop-shop-example-app_rewrite"`,
		server("10.0.0.1"), server("10.0.0.2"))(first), "both providers' routes: %s", first)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "nginx.yaml"), []byte(nginxSite("shop", "10.0.0.3")), 0o600))
	changed := lines.until("the nginx site's new address", has(server("10.0.0.3")))
	assert.True(t, has(`"default-blog-blog-example"`, server("10.0.0.1"))(changed), "the Traefik-style routes stay: %s", changed)
	assert.NotContains(t, changed, server("10.0.0.2"))
	assert.Equal(t, 0, p.terminate())
}

// The ingress-nginx provider alone: as in Traefik, a provider runs when
// it is configured, and the Traefik-style one only by default.
func TestRenderNGINXProviderAlone(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "all.yaml"), []byte(followClass+"---\n"+followSite("blog", "10.0.0.1")+"---\n"+nginxSite("shop", "10.0.0.2")), 0o600))
	cmd := exec.Command(binary, "render", "--manifests="+dir, "--providers.kubernetesingressnginx=true")
	cmd.Dir = t.TempDir()
	data, err := cmd.Output()
	require.NoError(t, err)
	out := string(data)
	assert.Contains(t, out, `"nginx_default-shop-shop-example-app"`)
	assert.NotContains(t, out, `"default-blog-blog-example"`, "the Traefik-style provider is off")
}

func TestMergeConfigurationsKeepsEveryProvidersValues(t *testing.T) {
	rt, svc := &dynamic.Router{Rule: `Host("a")`, Service: "a"}, dynamic.NewServersService()
	mw := &dynamic.Middleware{"headers": map[string]any{}}
	cert := &dynamic.CertAndStores{Certificate: dynamic.Certificate{CertFile: "C", KeyFile: "K"}}
	a := &dynamic.Configuration{HTTP: &dynamic.HTTPConfiguration{Routers: map[string]*dynamic.Router{"a": rt}, Services: map[string]*dynamic.Service{"a": svc}},
		TLS: &dynamic.TLSConfiguration{Certificates: []*dynamic.CertAndStores{cert}}}
	same := *cert
	b := &dynamic.Configuration{HTTP: &dynamic.HTTPConfiguration{Routers: map[string]*dynamic.Router{"nginx_b": rt}, Middlewares: map[string]*dynamic.Middleware{"nginx_m": mw},
		ServersTransports: map[string]*dynamic.ServersTransport{"nginx_t": {ServerName: "x"}}},
		TLS: &dynamic.TLSConfiguration{Certificates: []*dynamic.CertAndStores{&same},
			Options: map[string]*dynamic.TLSOptions{"nginx_o": {ClientAuth: &dynamic.ClientAuth{ClientAuthType: "RequireAndVerifyClientCert"}}}}}
	got, errs := mergeConfigurations([]dynamic.Message{{Configuration: a}, {Configuration: b}})
	require.Empty(t, errs)
	assert.Same(t, b.TLS.Options["nginx_o"], got.TLS.Options["nginx_o"], "the TLS options a router names are kept")
	assert.Same(t, rt, got.HTTP.Routers["a"])
	assert.Same(t, rt, got.HTTP.Routers["nginx_b"])
	assert.Same(t, svc, got.HTTP.Services["a"])
	assert.Same(t, mw, got.HTTP.Middlewares["nginx_m"])
	assert.Equal(t, "x", got.HTTP.ServersTransports["nginx_t"].ServerName)
	require.Len(t, got.TLS.Certificates, 1, "a certificate both load is given once")
	assert.True(t, strings.Contains(got.TLS.Certificates[0].CertFile, "C"))
}

// Both providers writing status elect on Leases of their own: on their
// defaults they do, and one Lease named for both is refused at start,
// naming the option, rather than leaving one provider's Ingresses without
// status for ever.
func TestBothProvidersNeedLeasesOfTheirOwn(t *testing.T) {
	status := []string{"render", "--demo",
		"--providers.kubernetesingress.ingressendpoint.ip=192.0.2.1",
		"--providers.kubernetesingressnginx.ingressendpoint.ip=192.0.2.2"}
	res := run(t, nil, status...)
	require.Equal(t, 0, res.code, res.stderr)

	res = run(t, nil, append(status, "--providers.kubernetesingressnginx.leaderelection.leasename=sliceway")...)
	assert.Equal(t, 1, res.code)
	assert.Empty(t, res.stdout)
	assert.Contains(t, res.stderr, `providers.kubernetesIngressNGINX.leaderElection: the Lease "sliceway" is providers.kubernetesIngress's too`)

	// Without leader election on one of them, or in another namespace,
	// nothing is shared.
	for _, other := range []string{"--providers.kubernetesingressnginx.leaderelection.disabled=true", "--providers.kubernetesingressnginx.leaderelection.leasenamespace=other"} {
		res = run(t, nil, append(status, "--providers.kubernetesingressnginx.leaderelection.leasename=sliceway", other)...)
		assert.Equal(t, 0, res.code, "%s: %s", other, res.stderr)
	}
}

// A host whose TLS routers name different options in the two providers'
// configurations (a Traefik-style Ingress without options on a host whose
// ingress-nginx routers ask for client certificates): the provider whose
// Ingress is the host's older owner keeps its TLS routers, the other's
// are left out, and the error names both; when a provider does not say
// who owns its hosts, none of the host's TLS routers is served. Plain
// routers and other hosts stay.
func TestMergeLeavesOutTLSRoutersOfAHostWithTwoOptions(t *testing.T) {
	meta := func(ns, name string) *dynamic.RouterObservabilityConfig {
		return &dynamic.RouterObservabilityConfig{Metadata: &dynamic.ObservabilityMetadata{Ingress: &dynamic.IngressMetadata{Namespace: ns, IngressName: name}}}
	}
	traefik := &dynamic.Configuration{HTTP: &dynamic.HTTPConfiguration{Routers: map[string]*dynamic.Router{
		"attacker-squat":       {Rule: "Host(`victim.example`) && PathPrefix(`/zz`)", TLS: &dynamic.RouterTLSConfig{}, Observability: meta("attacker", "squat")},
		"attacker-squat-plain": {Rule: "Host(`victim.example`) && PathPrefix(`/zz`)"},
		"other":                {Rule: "Host(`other.example`)", TLS: &dynamic.RouterTLSConfig{}},
	}}}
	nginx := &dynamic.Configuration{HTTP: &dynamic.HTTPConfiguration{Routers: map[string]*dynamic.Router{
		"nginx_victim-app_tls": {Rule: `Host("Victim.example") && PathPrefix("/")`, TLS: &dynamic.RouterTLSConfig{Options: "nginx_victim-example_client-cert"}, Observability: meta("victim", "app")},
		"nginx_other_tls":      {Rule: `Host("other.example") && PathPrefix("/a")`, TLS: &dynamic.RouterTLSConfig{Options: "default"}},
	}}}

	got, errs := mergeConfigurations([]dynamic.Message{{Configuration: traefik}, {Configuration: nginx}})
	assert.ElementsMatch(t, []string{"attacker-squat-plain", "other", "nginx_other_tls"}, slices.Collect(maps.Keys(got.HTTP.Routers)))
	require.Len(t, errs, 1)
	assert.Equal(t, `host "victim.example": the providers' TLS routers name different TLS options (TLS option default by router attacker-squat (Ingress attacker/squat); TLS option nginx_victim-example_client-cert by router nginx_victim-app_tls (Ingress victim/app)); Traefik would use its default options for the whole host, so neither provider's TLS routers of the host are served`, errs[0].Error())

	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	victim := dynamic.HostOwner{Namespace: "victim", Name: "app", Created: day(1)}
	attacker := dynamic.HostOwner{Namespace: "attacker", Name: "squat", Created: day(2)}
	msgs := []dynamic.Message{
		{Configuration: traefik, TLSHostOwners: map[string]dynamic.HostOwner{"victim.example": attacker, "other.example": attacker}},
		{Configuration: nginx, TLSHostOwners: map[string]dynamic.HostOwner{"victim.example": victim, "other.example": victim}},
	}
	got, errs = mergeConfigurations(msgs)
	assert.ElementsMatch(t, []string{"attacker-squat-plain", "other", "nginx_other_tls", "nginx_victim-app_tls"}, slices.Collect(maps.Keys(got.HTTP.Routers)),
		"the older victim keeps its TLS routers; the attacker's is left out")
	require.Len(t, errs, 1)
	assert.Equal(t, `host "victim.example": Ingress victim/app, the oldest with a TLS router for the host, gives its TLS routers TLS option nginx_victim-example_client-cert; the other provider's routers name another (TLS option default by router attacker-squat (Ingress attacker/squat)), and Traefik would then use its default options for the whole host, so they are left out`, errs[0].Error())

	// The older Ingress decides whichever provider it is in.
	msgs[0].TLSHostOwners = map[string]dynamic.HostOwner{"victim.example": {Namespace: "attacker", Name: "squat", Created: day(1).Add(-time.Hour)}}
	got, errs = mergeConfigurations(msgs)
	assert.ElementsMatch(t, []string{"attacker-squat", "attacker-squat-plain", "other", "nginx_other_tls"}, slices.Collect(maps.Keys(got.HTTP.Routers)))
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), `Ingress attacker/squat, the oldest with a TLS router for the host, gives its TLS routers TLS option default`)
}

// Both providers in one render, from manifests: a Traefik-style Ingress of
// another namespace, younger, that adds a TLS path to a host whose
// ingress-nginx Ingress asks for client certificates does not switch
// them off: its TLS router is left out, and every TLS router of the host
// names the client-certificate option.
func TestBothProvidersKeepTheOlderIngresssTLSOption(t *testing.T) {
	const tenant = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: squat
  namespace: tenant
  creationTimestamp: "2026-06-01T00:00:00Z"
  annotations:
    traefik.ingress.kubernetes.io/router.tls: "true"
spec:
  ingressClassName: traefik
  rules:
    - host: secure.example.com
      http:
        paths:
          - {path: /zz, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`
	conf, res := renderBothProviders(t, "access-client-cert", tenant)
	nginxTLS := 0
	for name, rt := range conf.HTTP.Routers {
		if rt.TLS == nil || !slices.Contains(rt.TLSHosts(), "secure.example.com") {
			continue
		}
		assert.True(t, strings.HasPrefix(name, "nginx_"), "the tenant's TLS router %s is left out", name)
		assert.Equal(t, "nginx_secure-example-com_client-cert", rt.TLS.Options, "router %s", name)
		nginxTLS++
	}
	assert.NotZero(t, nginxTLS, "the shop's TLS routers are served")
	assert.Contains(t, res.stderr, `host \"secure.example.com\": Ingress shop/portal, the oldest with a TLS router for the host, gives its TLS routers TLS option nginx_secure-example-com_client-cert`)
	assert.Contains(t, res.stderr, `(Ingress tenant/squat)`)
}

// Both providers in one render: a Traefik-style Ingress or Service of
// another namespace cannot use the ingress-nginx provider's objects,
// which hold the shop namespace's proxy-ssl-secret client certificate.
// The nginx Ingress keeps its transport; the tenant's routers that named
// one of them are not served, and the errors say why; its other
// Ingress is served.
func TestBothProvidersKeepNGINXObjectsToThemselves(t *testing.T) {
	const tenant = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: steal-transport
  namespace: tenant
spec:
  ingressClassName: traefik
  rules:
    - host: steal.example
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: attacker, port: {number: 443}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: steal-middleware
  namespace: tenant
  annotations:
    traefik.ingress.kubernetes.io/router.middlewares: nginx_shop-mtls-mtls-example-com_svc@kubernetesingressnginx
spec:
  ingressClassName: traefik
  rules:
    - host: mw.example
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: steal-tls
  namespace: tenant
  annotations:
    traefik.ingress.kubernetes.io/router.tls.options: nginx_mtls-example-com_client-cert
spec:
  ingressClassName: traefik
  rules:
    - host: tls.example
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: own
  namespace: tenant
spec:
  ingressClassName: traefik
  rules:
    - host: own.example
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: v1
kind: Service
metadata:
  name: attacker
  namespace: tenant
  annotations:
    traefik.ingress.kubernetes.io/service.serverstransport: nginx_shop-mtls_transport
spec:
  ports: [{name: https, port: 443, targetPort: 8443}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: attacker-1
  namespace: tenant
  labels: {kubernetes.io/service-name: attacker}
addressType: IPv4
ports: [{name: https, port: 8443}]
endpoints:
  - addresses: [10.9.9.9]
`
	conf, res := renderBothProviders(t, "backend-tls", tenant)

	require.Contains(t, conf.HTTP.ServersTransports, "nginx_shop-mtls_transport", "the nginx Ingress keeps its transport")
	assert.Contains(t, conf.HTTP.Routers, "tenant-own-own-example", "the tenant's Ingress that names nothing is served")
	for name, rt := range conf.HTTP.Routers {
		if strings.HasPrefix(name, "nginx_") {
			continue
		}
		assert.True(t, strings.HasPrefix(name, "tenant-own-"), "router %s of the tenant is not served", name)
		for _, m := range rt.Middlewares {
			assert.False(t, strings.HasPrefix(m, "nginx_"), "router %s names %s", name, m)
		}
		if rt.TLS != nil {
			assert.False(t, strings.HasPrefix(rt.TLS.Options, "nginx_"), "router %s names %s", name, rt.TLS.Options)
		}
	}
	for name, svc := range conf.HTTP.Services {
		if lb := svc.LoadBalancer; lb != nil && !strings.HasPrefix(name, "nginx_") {
			assert.Empty(t, lb.ServersTransport, "service %s", name)
			for _, s := range lb.Servers {
				assert.NotContains(t, s.URL, "10.9.9.9", "the attacker's server is not reached over the shop's transport")
			}
		}
	}
	for _, want := range []string{
		`servers transport "nginx_shop-mtls_transport" names an object of the ingress-nginx provider`,
		`field=metadata.annotations[traefik.ingress.kubernetes.io/service.serverstransport] namespace=tenant service=attacker`,
		`middleware "nginx_shop-mtls-mtls-example-com_svc@kubernetesingressnginx" names an object of the ingress-nginx provider`,
		`field=metadata.annotations[traefik.ingress.kubernetes.io/router.middlewares] ingress=steal-middleware namespace=tenant`,
		`TLS option "nginx_mtls-example-com_client-cert" names an object of the ingress-nginx provider`,
		`field=metadata.annotations[traefik.ingress.kubernetes.io/router.tls.options] ingress=steal-tls namespace=tenant`,
	} {
		assert.Contains(t, res.stderr, want)
	}
}

// tenantWeb is Service web of namespace tenant and its slice.
const tenantWeb = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: tenant}
spec:
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: tenant
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
ports: [{port: 8080}]
endpoints:
  - addresses: [10.0.0.7]
`

// renderBothProviders renders, with both providers, the ingress-nginx
// fixture case nginxCase (fixtures/nginx) beside tenant's manifests, of
// class traefik, and Service web of namespace tenant (tenantWeb).
func renderBothProviders(t *testing.T, nginxCase, tenant string) (*dynamic.Configuration, runResult) {
	t.Helper()
	manifests, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "nginx", nginxCase, "manifests.yaml"))
	require.NoError(t, err)
	dir := t.TempDir()
	writeFile(t, dir, "nginx.yaml", string(manifests))
	writeFile(t, dir, "tenant.yaml", followClass+"---\n"+tenant+"---\n"+tenantWeb)
	res := run(t, nil, "render", "--manifests="+dir, "--providers.kubernetesingress=true", "--providers.kubernetesingressnginx=true")
	require.Equal(t, 0, res.code, res.stderr)
	var conf dynamic.Configuration
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &conf), res.stdout)
	require.NotNil(t, conf.HTTP)
	return &conf, res
}
