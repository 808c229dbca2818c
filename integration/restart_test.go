package integration_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Test 5: the API server the provider watches goes away mid-watch. The
// provider keeps its last configuration while it is gone, reconnects when it
// is back, and converges to what changed meanwhile (changed through a second
// API server on the same etcd): nothing is lost.
func TestAPIServerRestart(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	createNodes(t, cp)
	createIngressClass(t, cp)
	app := createWebApp(t, cp, "apps")
	// A second app whose Ingress is deleted while the provider is away.
	require.NoError(t, cp.CreateNamespace(ctx, "blog"))
	createService(t, cp, "blog", "blog", "blog")
	createIngress(t, cp, ingressSpec{namespace: "blog", name: "blog", host: "blog.example.com", service: "blog"})
	blog := deployment{t: t, cp: cp, namespace: "blog", app: "blog"}
	blog.addPod("blog-1", "node-a", "10.244.1.50", true)

	r := runProvider(t, newProvider(t, cp))
	before := r.waitFor(t, "both apps", time.Minute, func(c *dynamic.Configuration) bool {
		return webServers("apps")(c) && hasServers("blog-blog-http", "http://10.244.1.50:8080")(c)
	})
	require.Contains(t, before.HTTP.Routers, "apps-web-web-example-com")
	require.Contains(t, before.HTTP.Routers, "blog-blog-blog-example-com")
	sentBefore := r.count()

	t.Log("stopping the API server")
	require.NoError(t, cp.StopAPIServer())
	time.Sleep(5 * time.Second)
	select {
	case err := <-r.done:
		t.Fatalf("Provide returned %v while the API server was away", err)
	default:
	}
	assert.Equal(t, sentBefore, r.count(), "a configuration was sent while the API server was away")
	assert.Same(t, before, r.latest())

	t.Log("changing objects through another API server while the provider's is away")
	other, err := cp.StartAPIServerReplica(ctx)
	require.NoError(t, err)
	cfg := cp.AdminConfig()
	cfg.Host = other.URL
	admin, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	// The blog Ingress goes; a new Ingress path for apps; web-2 terminates
	// and a new pod web-3 runs (whose slice the controller, also cut off,
	// writes once the API server is back).
	require.NoError(t, admin.NetworkingV1().Ingresses("blog").Delete(ctx, "blog", metav1.DeleteOptions{}))
	ing, err := admin.NetworkingV1().Ingresses("apps").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	ing.Spec.Rules[0].HTTP.Paths[0].Path = "/shop"
	_, err = admin.NetworkingV1().Ingresses("apps").Update(ctx, ing, metav1.UpdateOptions{})
	require.NoError(t, err)
	grace := int64(300)
	require.NoError(t, admin.CoreV1().Pods("apps").Delete(ctx, "web-2", metav1.DeleteOptions{GracePeriodSeconds: &grace}))
	require.NoError(t, other.Stop())

	time.Sleep(2 * time.Second)
	assert.Equal(t, sentBefore, r.count(), "a configuration was sent while the API server was away")

	t.Log("starting the API server again")
	start := time.Now()
	require.NoError(t, cp.StartAPIServer(ctx))
	t.Logf("API server back after %s", time.Since(start).Round(time.Millisecond))
	app.deploy.addPod("web-3", "node-b", "10.244.2.11", true)

	// Both the provider's informers and the controller manager's reconnect
	// with client-go's backoff, which grew while the API server was away:
	// expect tens of seconds.
	after := r.waitFor(t, "the changes made while away", 3*time.Minute, func(c *dynamic.Configuration) bool {
		return c.HTTP != nil && c.HTTP.Routers["apps-web-web-example-com-shop"] != nil &&
			c.HTTP.Routers["blog-blog-blog-example-com"] == nil &&
			hasServers("apps-web-http", "http://10.244.1.10:8080", "http://10.244.2.10:8080 fenced", "http://10.244.2.11:8080")(c)
	})
	t.Logf("converged %s after the restart", time.Since(start).Round(time.Millisecond))
	assert.Len(t, after.HTTP.Routers, 1)
	assert.Equal(t, `Host("web.example.com") && PathPrefix("/shop")`, after.HTTP.Routers["apps-web-web-example-com-shop"].Rule)
	assert.NotContains(t, after.HTTP.Services, "blog-blog-http")
	require.Len(t, after.TLS.Certificates, 1)
	assert.Equal(t, app.certPEM, after.TLS.Certificates[0].CertFile)
}
