package integration_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/sliceway/sliceway/config/dynamic"
)

const rbacNGINXConfigMapManifest = "../docs/manifests/rbac-nginx-configmap.yaml"

// The controller's ConfigMap on a real API server, with what rbac.yaml
// and rbac-nginx-configmap.yaml grant and nothing more: its global allow
// list reaches the shop's path, an edit of the ConfigMap is rendered, a
// broken allow list closes the path rather than open it; and the token
// can read no other ConfigMap of that namespace.
func TestNGINXConfigMapOnTheAPIServer(t *testing.T) {
	cp := startControlPlane(t)
	applyFile(t, cp, rbacManifest)
	require.NoError(t, cp.CreateNamespace(ctx, "ingress-nginx"))
	applyFile(t, cp, rbacNGINXConfigMapManifest)
	createNGINXShop(t, cp)
	cms := cp.Client().CoreV1().ConfigMaps("ingress-nginx")
	_, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "ingress-nginx-controller"},
		Data:       map[string]string{"whitelist-source-range": "10.0.0.0/8"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "other"},
		Data:       map[string]string{"secret-ish": "not for sliceway"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	np := nginxStatusProvider(t, cp, "192.0.2.30")
	np.IngressEndpoint = nil
	np.ConfigMap = "ingress-nginx/ingress-nginx-controller"
	run := runNGINXProvider(t, np)
	const router, allow = "nginx_shop-shop-shop-example-com-app", "nginx_shop-shop_source-range"
	allows := func(ranges ...string) func(*dynamic.Configuration) bool {
		return func(c *dynamic.Configuration) bool {
			mw := c.HTTP.Middlewares[allow]
			if mw == nil {
				return false
			}
			allowList, _ := (*mw)["ipAllowList"].(map[string]any)
			return fmt.Sprint(allowList["sourceRange"]) == fmt.Sprint(ranges)
		}
	}
	cfg := run.waitFor(t, "the ConfigMap's allow list", time.Minute, allows("10.0.0.0/8"))
	require.Contains(t, cfg.HTTP.Routers[router].Middlewares, allow)

	edit := func(data map[string]string) {
		t.Helper()
		cm, err := cms.Get(ctx, "ingress-nginx-controller", metav1.GetOptions{})
		require.NoError(t, err)
		cm.Data = data
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	edit(map[string]string{"whitelist-source-range": "192.168.0.0/16"})
	run.waitFor(t, "the edited allow list", time.Minute, allows("192.168.0.0/16"))

	edit(map[string]string{"whitelist-source-range": "192.168.0.0/33"})
	run.waitFor(t, "the path closed by a broken allow list", time.Minute, func(c *dynamic.Configuration) bool {
		r := c.HTTP.Routers[router]
		return r != nil && r.Service == "nginx_shop-shop_closed"
	})

	sa, err := kubernetes.NewForConfig(&rest.Config{
		Host:            cp.URL,
		BearerToken:     saToken(t, cp, "sliceway", "sliceway"),
		TLSClientConfig: rest.TLSClientConfig{CAFile: cp.CAFile},
	})
	require.NoError(t, err)
	_, err = sa.CoreV1().ConfigMaps("ingress-nginx").Get(ctx, "other", metav1.GetOptions{})
	assert.True(t, apierrors.IsForbidden(err), "get another ConfigMap: want 403, got %v", err)
	_, err = sa.CoreV1().ConfigMaps("ingress-nginx").List(ctx, metav1.ListOptions{})
	assert.True(t, apierrors.IsForbidden(err), "list the namespace's ConfigMaps: want 403, got %v", err)
	_, err = sa.CoreV1().ConfigMaps("ingress-nginx").Get(ctx, "ingress-nginx-controller", metav1.GetOptions{})
	assert.NoError(t, err, "get the controller's ConfigMap")
	assert.NotContains(t, run.logs.String(), "forbidden")
}
