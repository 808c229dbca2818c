package integration_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordv1 "k8s.io/api/coordination/v1"
	netv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/integration/controlplane"
)

const (
	rbacManifest           = "../docs/manifests/rbac.yaml"
	rbacNamespacedManifest = "../docs/manifests/rbac-namespaced.yaml"
)

// webApp is the application most tests serve: Service web in namespace ns
// with two ready pods on two nodes, a TLS Secret and an Ingress of class
// sliceway for web.example.com.
type webApp struct {
	namespace        string
	certPEM, keyPEM  string
	deploy           deployment
	expectedNoTLSYML string
}

func createWebApp(t *testing.T, cp *controlplane.ControlPlane, ns string) *webApp {
	t.Helper()
	require.NoError(t, cp.CreateNamespace(ctx, ns))
	createService(t, cp, ns, "web", "web")
	app := &webApp{namespace: ns, deploy: deployment{t: t, cp: cp, namespace: ns, app: "web"}}
	app.certPEM, app.keyPEM = createTLSSecret(t, cp, ns, "web-tls", "web.example.com")
	createIngress(t, cp, ingressSpec{
		namespace: ns, name: "web", host: "web.example.com", service: "web", tlsSecret: "web-tls",
		annotations: map[string]string{
			"traefik.ingress.kubernetes.io/router.entrypoints": "websecure",
			"traefik.ingress.kubernetes.io/router.tls":         "true",
		},
	})
	app.deploy.addPod("web-1", "node-a", "10.244.1.10", true)
	app.deploy.addPod("web-2", "node-b", "10.244.2.10", true)
	app.expectedNoTLSYML = strings.ReplaceAll(`
http:
  routers:
    NS-web-web-example-com:
      entryPoints: [websecure]
      observability:
        metadata:
          ingress:
            ingressName: web
            namespace: NS
            serviceName: web
            servicePort: http
      priority: 2097158
      rule: Host("web.example.com") && PathPrefix("/")
      service: NS-web-http
      tls: {}
  services:
    NS-web-http:
      loadBalancer:
        passHostHeader: true
        responseForwarding:
          flushInterval: 100ms
        servers:
        - url: http://10.244.1.10:8080
        - url: http://10.244.2.10:8080
        strategy: wrr
`, "NS", ns)
	return app
}

// requireFullConfig checks the whole configuration of the web app: routers,
// services, servers and the certificate.
func (a *webApp) requireFullConfig(t *testing.T, cfg *dynamic.Configuration) {
	t.Helper()
	require.NotNil(t, cfg.TLS, "no TLS section")
	require.Len(t, cfg.TLS.Certificates, 1)
	assert.Equal(t, a.certPEM, cfg.TLS.Certificates[0].CertFile)
	assert.Equal(t, a.keyPEM, cfg.TLS.Certificates[0].KeyFile)
	noTLS := *cfg
	noTLS.TLS = nil
	require.YAMLEq(t, a.expectedNoTLSYML, toYAML(&noTLS))
}

func webServers(ns string) func(*dynamic.Configuration) bool {
	return hasServers(ns+"-web-http", "http://10.244.1.10:8080", "http://10.244.2.10:8080")
}

// Test 1: with nothing but what docs/manifests/rbac.yaml grants, a token of
// ServiceAccount sliceway renders the whole configuration, is elected leader
// on its Lease in namespace sliceway and writes status, and can touch no
// other Lease (kube-system's above all); the same with the namespaced
// variant and the namespaces option.
func TestRBACManifests(t *testing.T) {
	t.Run("cluster-wide", func(t *testing.T) {
		cp := startControlPlane(t)
		applyFile(t, cp, rbacManifest)
		createNodes(t, cp)
		createIngressClass(t, cp)
		app := createWebApp(t, cp, "apps")

		statuses := watchStatus(t, cp, "apps")
		// With status written by an elected leader: the Lease and the status
		// writes are granted too.
		r := runProvider(t, statusProvider(t, cp, "192.0.2.10"))
		cfg := r.waitFor(t, "the apps servers", time.Minute, webServers("apps"))
		app.requireFullConfig(t, cfg)
		eventually(t, "the status written", time.Minute, func() bool { return slices.Equal(statuses.history("web"), []string{"", "192.0.2.10"}) })
		requireLeasesConfined(t, cp, r)
		assert.NotContains(t, r.logs.String(), "forbidden")
	})

	t.Run("namespaced", func(t *testing.T) {
		cp := startControlPlane(t)
		applyFile(t, cp, rbacNamespacedManifest)
		createNodes(t, cp)
		createIngressClass(t, cp)
		app := createWebApp(t, cp, "apps")
		// Not granted and not watched: never read, never served.
		createWebApp(t, cp, "other")

		statuses := watchStatus(t, cp, "apps")
		p := statusProvider(t, cp, "192.0.2.10")
		p.Namespaces = []string{"apps"}
		r := runProvider(t, p)
		cfg := r.waitFor(t, "the apps servers", time.Minute, webServers("apps"))
		app.requireFullConfig(t, cfg)
		eventually(t, "the status written", time.Minute, func() bool { return slices.Equal(statuses.history("web"), []string{"", "192.0.2.10"}) })
		requireLeasesConfined(t, cp, r)
		assert.NotContains(t, r.logs.String(), "forbidden")
	})
}

// disableClusterScopeResources with rbac-namespaced.yaml less its
// ClusterRole binding: Roles in the watched namespace alone are enough.
// An Ingress of the legacy class annotation is served; one naming an
// IngressClass is not (IngressClasses are not read), and nothing is
// forbidden.
func TestNamespacedRBACWithoutClusterScope(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacNamespacedManifest)
	require.NoError(t, cp.Client().RbacV1().ClusterRoleBindings().Delete(ctx, "sliceway-cluster", metav1.DeleteOptions{}))
	createNodes(t, cp)
	createIngressClass(t, cp)
	createWebApp(t, cp, "apps") // its Ingress names IngressClass sliceway
	prefix := netv1.PathTypePrefix
	_, err := cp.Client().NetworkingV1().Ingresses("apps").Create(ctx, &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "legacy", Annotations: map[string]string{"kubernetes.io/ingress.class": "traefik"}},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: "legacy.example.com", IngressRuleValue: netv1.IngressRuleValue{
			HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{Path: "/", PathType: &prefix,
				Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "web", Port: netv1.ServiceBackendPort{Name: "http"}}}}}},
		}}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	p := newProvider(t, cp)
	p.Namespaces = []string{"apps"}
	p.DisableClusterScopeResources = true
	r := runProvider(t, p)
	cfg := r.waitFor(t, "the legacy Ingress's servers", time.Minute, webServers("apps"))
	assert.Contains(t, cfg.HTTP.Routers, "apps-legacy-legacy-example-com")
	assert.NotContains(t, cfg.HTTP.Routers, "apps-web-web-example-com", "an Ingress naming an IngressClass is not served")
	time.Sleep(time.Second) // a refused list or watch would show by now
	assert.NotContains(t, r.logs.String(), "forbidden")
	assert.NotContains(t, r.logs.String(), "may not list")
}

// The manifests grant what the provider needs and nothing of the legacy
// Endpoints API.
func TestRBACManifestsHaveNoEndpoints(t *testing.T) {
	for _, path := range []string{rbacManifest, rbacNamespacedManifest} {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		objs, err := controlplane.DecodeManifests(data)
		require.NoError(t, err)
		for _, o := range objs {
			rules, _, _ := unstructured.NestedSlice(o.Object, "rules")
			for _, r := range rules {
				res, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "resources")
				assert.NotContains(t, res, "endpoints", "%s: %s %s", path, o.GetKind(), o.GetName())
				assert.NotContains(t, res, "*", "%s: %s %s", path, o.GetKind(), o.GetName())
			}
		}
	}
}

// withoutEndpointSlices is rbac.yaml with the ClusterRole's endpointslices
// rule removed.
func withoutEndpointSlices(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(rbacManifest)
	require.NoError(t, err)
	objs, err := controlplane.DecodeManifests(data)
	require.NoError(t, err)
	found := false
	for _, o := range objs {
		if o.GetKind() != "ClusterRole" {
			continue
		}
		rules, _, err := unstructured.NestedSlice(o.Object, "rules")
		require.NoError(t, err)
		var kept []any
		for _, r := range rules {
			res, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "resources")
			if len(res) == 1 && res[0] == "endpointslices" {
				found = true
				continue
			}
			kept = append(kept, r)
		}
		require.NoError(t, unstructured.SetNestedSlice(o.Object, kept, "rules"))
	}
	require.True(t, found, "rbac.yaml has no endpointslices rule to remove")
	return objs
}

// Test 2: without the endpointslices rule the provider says at once what
// is forbidden and to whom, keeps running, and converges once the rule is
// back.
func TestRBACMissingEndpointSlicesRule(t *testing.T) {
	cp := startControlPlane(t)
	a, err := controlplane.NewApplier(cp.AdminConfig())
	require.NoError(t, err)
	require.NoError(t, a.Apply(ctx, withoutEndpointSlices(t)...))
	createNodes(t, cp)
	createIngressClass(t, cp)
	app := createWebApp(t, cp, "apps")

	p := newProvider(t, cp)
	// Far beyond the test's waits: what is logged of the refusal comes
	// from the refused list itself, not from the report of what did not
	// sync.
	p.SyncTimeout = pduration(time.Hour)
	r := runProvider(t, p)

	eventually(t, "the forbidden list logged", time.Minute, func() bool { return len(deniedLogs(t, r)) > 0 })
	denied := deniedLogs(t, r)
	require.Len(t, denied, 1, "only the missing permission is reported, once")
	d := denied[0]
	t.Logf("logged: %v", d)
	assert.Equal(t, "error", d["level"])
	assert.Equal(t, "endpointslices.discovery.k8s.io", d["resource"])
	assert.Equal(t, "list", d["verb"])
	assert.Equal(t, "forbidden", d["reason"])
	assert.Equal(t, "system:serviceaccount:sliceway:sliceway", d["account"])
	assert.Contains(t, d["error"], `User "system:serviceaccount:sliceway:sliceway" cannot list resource "endpointslices" in API group "discovery.k8s.io" at the cluster scope`)
	assert.NotContains(t, r.logs.String(), "the informer caches are not synced")

	// Still running, and nothing half-synced was sent.
	time.Sleep(2 * time.Second)
	select {
	case err := <-r.done:
		t.Fatalf("Provide returned %v without the endpointslices rule", err)
	default:
	}
	assert.Equal(t, 0, r.count(), "a configuration was sent before the caches synced")

	applyFile(t, cp, rbacManifest)
	cfg := r.waitFor(t, "the apps servers once the rule is back", 2*time.Minute, webServers("apps"))
	app.requireFullConfig(t, cfg)
	// The informer retried in the meantime (the pause above is longer than
	// its first backoff, under two seconds), and the refusal was told once.
	assert.Len(t, deniedLogs(t, r), 1, "the retries repeated the refusal")
}

// deniedLogs are the provider's log lines that name a resource: its lists
// and watches the API server refused.
func deniedLogs(t *testing.T, r *providerRun) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(r.logs.String(), "\n") {
		if line == "" {
			continue
		}
		var entry map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &entry), line)
		if _, ok := entry["resource"]; ok {
			out = append(out, entry)
		}
	}
	return out
}

// requireLeasesConfined checks the leader election that r, running as
// ServiceAccount sliceway, won: its Lease is sliceway/sliceway, held and
// renewed by r (so get, create and update are granted there), and with the
// same ServiceAccount's token no other Lease can be created, read or taken
// over: not those of kube-controller-manager and kube-scheduler in
// kube-system, not one in a watched namespace, not another in sliceway.
func requireLeasesConfined(t *testing.T, cp *controlplane.ControlPlane, r *providerRun) {
	t.Helper()
	require.True(t, leads(r), "the provider does not lead")
	leases := cp.Client().CoordinationV1().Leases("sliceway")
	lease, err := leases.Get(ctx, "sliceway", metav1.GetOptions{})
	require.NoError(t, err, "no Lease sliceway/sliceway")
	require.NotNil(t, lease.Spec.HolderIdentity)
	require.NotNil(t, lease.Spec.RenewTime)
	holder, renewed := *lease.Spec.HolderIdentity, lease.Spec.RenewTime.Time
	assert.True(t, strings.Contains(r.logs.String(), holder), "the Lease is held by %q, not by the provider", holder)
	eventually(t, "the Lease renewed", 30*time.Second, func() bool {
		l, err := leases.Get(ctx, "sliceway", metav1.GetOptions{})
		return err == nil && l.Spec.RenewTime != nil && l.Spec.RenewTime.After(renewed)
	})

	// The Leases of other components, as they would be on a cluster (this
	// control plane runs its controller manager without leader election).
	others := []struct{ namespace, name string }{
		{"kube-system", "kube-controller-manager"},
		{"kube-system", "kube-scheduler"},
		{"apps", "some-controller"},
		{"sliceway", "another-lease"},
	}
	for _, o := range others {
		owner := o.name + "-holder"
		_, err := cp.Client().CoordinationV1().Leases(o.namespace).Create(ctx, &coordv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: o.namespace, Name: o.name},
			Spec:       coordv1.LeaseSpec{HolderIdentity: &owner},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	sa, err := kubernetes.NewForConfig(&rest.Config{
		Host:            cp.URL,
		BearerToken:     saToken(t, cp, "sliceway", "sliceway"),
		TLSClientConfig: rest.TLSClientConfig{CAFile: cp.CAFile},
	})
	require.NoError(t, err)
	forbidden := func(what string, err error) {
		t.Helper()
		assert.True(t, apierrors.IsForbidden(err), "%s as ServiceAccount sliceway: want 403 Forbidden, got %v", what, err)
	}
	for _, o := range others {
		where := o.namespace + "/" + o.name
		ls := sa.CoordinationV1().Leases(o.namespace)
		_, err := ls.Get(ctx, o.name, metav1.GetOptions{})
		forbidden("get Lease "+where, err)
		// A take-over: the admin's copy with the provider as the holder.
		l, err := cp.Client().CoordinationV1().Leases(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
		require.NoError(t, err)
		l.Spec.HolderIdentity = &holder
		_, err = ls.Update(ctx, l, metav1.UpdateOptions{})
		forbidden("update Lease "+where, err)
		_, err = ls.Patch(ctx, o.name, "application/merge-patch+json", []byte(`{"spec":{"holderIdentity":"sliceway"}}`), metav1.PatchOptions{})
		forbidden("patch Lease "+where, err)
		err = ls.Delete(ctx, o.name, metav1.DeleteOptions{})
		forbidden("delete Lease "+where, err)
		if o.namespace != "sliceway" {
			_, err = ls.Create(ctx, &coordv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Namespace: o.namespace, Name: "sliceway-" + o.name},
				Spec:       coordv1.LeaseSpec{HolderIdentity: &holder},
			}, metav1.CreateOptions{})
			forbidden("create a Lease in "+o.namespace, err)
		}
		// Nothing changed hands.
		after, err := cp.Client().CoordinationV1().Leases(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, o.name+"-holder", *after.Spec.HolderIdentity, "Lease %s changed hands", where)
	}
	_, err = sa.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{})
	forbidden("list Leases in kube-system", err)
}
