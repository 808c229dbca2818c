package integration_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/integration/controlplane"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
)

// The htpasswd lines of the shop's basic authentication, before and after
// the Secret is edited.
const (
	shopUsers       = "alice:$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/\n"
	shopUsersEdited = "bob:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=\n"
)

// createNGINXShop creates what an ingress-nginx user has: IngressClass
// nginx of controller k8s.io/ingress-nginx, in namespace shop a Service
// web without selector and its EndpointSlice (one ready endpoint at a
// documentation address: the API server refuses loopback ones), the
// htpasswd Secret, and Ingress shop with a rewrite-target and basic
// authentication.
func createNGINXShop(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	_, err := cp.Client().NetworkingV1().IngressClasses().Create(ctx, &netv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec:       netv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, cp.CreateNamespace(ctx, "shop"))
	createService(t, cp, "shop", "web", "")
	_, err = cp.Client().DiscoveryV1().EndpointSlices("shop").Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "shop", Name: "web-1", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(8080)), Protocol: new(corev1.ProtocolTCP)}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.20"}, Conditions: discoveryv1.EndpointConditions{Ready: new(true)}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cp.Client().CoreV1().Secrets("shop").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "htpasswd"},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"auth": []byte(shopUsers)},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	implementationSpecific := netv1.PathTypeImplementationSpecific
	_, err = cp.Client().NetworkingV1().Ingresses("shop").Create(ctx, &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "shop", Annotations: map[string]string{
			"nginx.ingress.kubernetes.io/rewrite-target": "/$2",
			"nginx.ingress.kubernetes.io/auth-type":      "basic",
			"nginx.ingress.kubernetes.io/auth-secret":    "htpasswd",
			"nginx.ingress.kubernetes.io/auth-realm":     "Shop staff",
		}},
		Spec: netv1.IngressSpec{
			IngressClassName: new("nginx"),
			Rules: []netv1.IngressRule{{
				Host: "shop.example.com",
				IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
					Path: "/app(/|$)(.*)", PathType: &implementationSpecific,
					Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "web", Port: netv1.ServiceBackendPort{Name: "http"}}},
				}}}},
			}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// shopExpected is the ingress-nginx provider's configuration of the shop:
// the rewrite as a replacePathRegex (the path's regular expression,
// case-insensitive as nginx's location is), the basic authentication
// before it, and the load balancer of the one endpoint.
const shopExpected = `
http:
  middlewares:
    nginx_shop-shop-shop-example-com-app_rewrite:
      replacePathRegex:
        regex: (?i)^(?:/app(/|$)(.*)).*
        replacement: REPLACEMENT
    nginx_shop-shop_basic-auth:
      basicAuth:
        realm: Shop staff
        users:
          - USERS
  routers:
    nginx_shop-shop-shop-example-com-app:
      middlewares:
        - nginx_shop-shop_basic-auth
        - nginx_shop-shop-shop-example-com-app_rewrite
      observability:
        metadata:
          ingress:
            ingressName: shop
            namespace: shop
            serviceName: web
            servicePort: http
      priority: 8388663
      rule: Host("shop.example.com") && PathRegexp("(?i)^/app(/|$)(.*)")
      service: nginx_shop-web-http
  services:
    nginx_shop-web-http:
      loadBalancer:
        passHostHeader: true
        responseForwarding:
          flushInterval: 100ms
        servers:
          - url: http://192.0.2.20:8080
        strategy: wrr
`

// shopConfig is shopExpected with the rewrite's replacement and the
// users (one htpasswd line) given.
func shopConfig(replacement, users string) string {
	return strings.NewReplacer("REPLACEMENT", replacement, "USERS", strings.TrimSuffix(users, "\n")).Replace(shopExpected)
}

// hasShop is a condition for waitFor: the configuration is shopConfig's.
func hasShop(t *testing.T, replacement, users string) func(*dynamic.Configuration) bool {
	want := &dynamic.Configuration{}
	require.NoError(t, yaml.Unmarshal([]byte(shopConfig(replacement, users)), want))
	return func(cfg *dynamic.Configuration) bool { return toYAML(cfg) == toYAML(want) }
}

// nginxStatusProvider is an ingress-nginx provider that connects to cp as
// ServiceAccount sliceway/sliceway and writes ip into the status of the
// Ingresses it serves, as the elected leader on its default Lease
// (sliceway-nginx) in namespace sliceway.
func nginxStatusProvider(t *testing.T, cp *controlplane.ControlPlane, ip string) *ingress.NGINXProvider {
	t.Helper()
	np := &ingress.NGINXProvider{}
	np.SetDefaults()
	np.Endpoint = cp.URL
	np.Token = saToken(t, cp, "sliceway", "sliceway")
	np.CertAuthFilePath = cp.CAFile
	np.IngressEndpoint = &ingress.EndpointIngress{IP: ip}
	np.LeaderElection.LeaseNamespace = "sliceway"
	np.LeaderElection.LeaseDuration = pduration(4 * time.Second)
	np.LeaderElection.RenewDeadline = pduration(3 * time.Second)
	np.LeaderElection.RetryPeriod = pduration(500 * time.Millisecond)
	return np
}

// The ingress-nginx provider on a real API server, with nothing but what
// docs/manifests/rbac.yaml grants ServiceAccount sliceway: it renders an
// ingress-nginx Ingress (rewrite-target, basic authentication from a
// Secret the annotation names), renders again when an annotation or the
// Secret changes, and, elected on its own Lease (sliceway-nginx) while the
// Traefik-style provider of the same process leads on sliceway, writes
// the status of its Ingress and not of the Traefik-style one.
func TestNGINXProviderOnTheAPIServer(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	createNGINXShop(t, cp)
	// A Traefik-style Ingress of class sliceway beside it.
	createIngress(t, cp, ingressSpec{namespace: "shop", name: "blog", host: "blog.example.com", service: "web"})
	statuses := watchStatus(t, cp, "shop")

	nginxRun := runNGINXProvider(t, nginxStatusProvider(t, cp, "192.0.2.30"))
	traefikStyle := statusProvider(t, cp, "192.0.2.31")
	traefikRun := runProvider(t, traefikStyle)

	cfg := nginxRun.waitFor(t, "the shop's configuration", time.Minute, hasShop(t, "/${2}", shopUsers))
	require.YAMLEq(t, shopConfig("/${2}", shopUsers), toYAML(cfg))
	traefikRun.waitFor(t, "the blog's router", time.Minute, func(c *dynamic.Configuration) bool {
		return c.HTTP != nil && c.HTTP.Routers["shop-blog-blog-example-com"] != nil
	})
	assert.NotContains(t, toYAML(traefikRun.latest()), "nginx_", "the Traefik-style provider serves no ingress-nginx Ingress")

	// Each provider writes the status of its own Ingresses, as the leader
	// of its own Lease.
	eventually(t, "the shop's status", time.Minute, func() bool { return slices.Equal(statuses.history("shop"), []string{"", "192.0.2.30"}) })
	eventually(t, "the blog's status", time.Minute, func() bool { return slices.Equal(statuses.history("blog"), []string{"", "192.0.2.31"}) })
	require.True(t, leads(nginxRun), "the ingress-nginx provider does not lead")
	require.True(t, leads(traefikRun), "the Traefik-style provider does not lead")
	holders := map[string]string{}
	for _, name := range []string{"sliceway", "sliceway-nginx"} {
		lease, err := cp.Client().CoordinationV1().Leases("sliceway").Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, "no Lease sliceway/%s", name)
		require.NotNil(t, lease.Spec.HolderIdentity)
		holders[name] = *lease.Spec.HolderIdentity
	}
	assert.Contains(t, nginxRun.logs.String(), holders["sliceway-nginx"], "the Lease sliceway-nginx is not the ingress-nginx provider's")
	assert.Contains(t, traefikRun.logs.String(), holders["sliceway"], "the Lease sliceway is not the Traefik-style provider's")

	// An annotation changes: rendered again.
	ing, err := cp.Client().NetworkingV1().Ingresses("shop").Get(ctx, "shop", metav1.GetOptions{})
	require.NoError(t, err)
	ing.Annotations["nginx.ingress.kubernetes.io/rewrite-target"] = "/v2/$2"
	_, err = cp.Client().NetworkingV1().Ingresses("shop").Update(ctx, ing, metav1.UpdateOptions{})
	require.NoError(t, err)
	nginxRun.waitFor(t, "the new rewrite", time.Minute, hasShop(t, "/v2/${2}", shopUsers))

	// The Secret the annotation names changes: its new users are read
	// (the same verbs as for TLS Secrets).
	secret, err := cp.Client().CoreV1().Secrets("shop").Get(ctx, "htpasswd", metav1.GetOptions{})
	require.NoError(t, err)
	secret.Data["auth"] = []byte(shopUsersEdited)
	_, err = cp.Client().CoreV1().Secrets("shop").Update(ctx, secret, metav1.UpdateOptions{})
	require.NoError(t, err)
	nginxRun.waitFor(t, "the Secret's new users", time.Minute, hasShop(t, "/v2/${2}", shopUsersEdited))

	// Status written once each, by its own provider, never the other's.
	time.Sleep(2 * time.Second) // time for a wrong write to show
	assert.Equal(t, map[string][]string{"shop": {"", "192.0.2.30"}, "blog": {"", "192.0.2.31"}}, statuses.all())
	for _, r := range []*providerRun{nginxRun, traefikRun} {
		assert.NotContains(t, r.logs.String(), "forbidden")
	}
}
