package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/nginx"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// TestNGINXConfigMapLive follows the controller's ConfigMap through real
// informers: a global allow list arrives, changes, is broken (every path
// closed), the ConfigMap is deleted (closed, said so) and comes back; an
// update that changes no data (labels) is no render at all. Every step
// must equal a full render of the same snapshot.
func TestNGINXConfigMapLive(t *testing.T) {
	const ns, host = "shop", "shop.example.com"
	const router, allow = "nginx_shop-shop-shop-example-com", "nginx_shop-shop_source-range"
	ing := testobjects.NewIngress(ns, "shop", testobjects.WithClassName("nginx"), testobjects.WithPath(host, "/", "web", 80, ""))
	ing.Spec.TLS = []netv1.IngressTLS{{Hosts: []string{host}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "ingress-nginx-controller"},
		Data: map[string]string{"hsts": "false"}}
	// Another ConfigMap of that namespace: never read.
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ingress-nginx", Name: "other"},
		Data: map[string]string{"enable-modsecurity": "true"}}
	objs := []any{testobjects.NewClass("nginx", nginx.DefaultControllerClass, false), ing, cm, other}
	objs = append(objs, testobjects.Backend(ns, "web", "10.0.0.1")...)
	l := startNGINXLive(t, objs, func(np *NGINXProvider) { np.ConfigMap = "ingress-nginx/ingress-nginx-controller" })
	cs, ctx, c, r, changes, client, events := l.cs, l.ctx, l.c, l.r, l.changes, l.client, l.c.events
	got := l.first
	require.Empty(t, got.Errors)
	routers := func(res *Result) map[string]*dynamic.Router { return res.Configuration.HTTP.Routers }
	require.Nil(t, routers(got)[router+"_tls"].Middlewares, "hsts false: no header, nothing else")

	cmAPI := cs.CoreV1().ConfigMaps("ingress-nginx")
	render := func(what string) *Result { t.Helper(); return l.render(t, what) }

	update := func(data map[string]string) {
		t.Helper()
		cm.Data = data
		_, err := cmAPI.Update(ctx, cm, metav1.UpdateOptions{})
		c.did(err)
	}
	ranges := func(res *Result) any {
		mw := res.Configuration.HTTP.Middlewares[allow]
		require.NotNil(t, mw, "the allow list")
		return (*mw)["ipAllowList"].(map[string]any)["sourceRange"]
	}

	update(map[string]string{"hsts": "false", "whitelist-source-range": "10.0.0.0/8"})
	got = render("a global allow list arrived")
	require.Equal(t, []string{"10.0.0.0/8"}, ranges(got))
	require.Equal(t, []string{allow}, routers(got)[router+"_tls"].Middlewares)

	update(map[string]string{"hsts": "false", "whitelist-source-range": "192.168.0.0/16"})
	got = render("the allow list changed")
	require.Equal(t, []string{"192.168.0.0/16"}, ranges(got))

	update(map[string]string{"whitelist-source-range": "192.168.0.0/33"})
	got = render("the allow list broke")
	require.Equal(t, "nginx_shop-shop_closed", routers(got)[router].Service, "closed, never open")
	require.Len(t, got.Errors, 2)
	require.Contains(t, got.Errors[0].Error(), "ConfigMap ingress-nginx/ingress-nginx-controller: data[whitelist-source-range]")

	update(map[string]string{"whitelist-source-range": "192.168.0.0/16"})
	got = render("the allow list was mended")
	require.Empty(t, got.Errors)
	require.Equal(t, []string{"nginx_configmap_hsts", allow}, routers(got)[router+"_tls"].Middlewares, "hsts back to its default")
	require.Equal(t, []string{"nginx_configmap_hsts", "nginx_shop-shop_ssl-redirect", allow}, routers(got)[router].Middlewares,
		"the header on the plain router too, for an entry point that ends TLS for it (Traefik sends it over TLS only)")
	// Labels only: the filter drops the update, nothing is rendered.
	before := events.Load()
	cm.Labels = map[string]string{"team": "platform"}
	_, err := cmAPI.Update(ctx, cm, metav1.UpdateOptions{})
	c.did(err)
	c.wait()
	require.Greater(t, events.Load(), before)
	_, changed := r.Render(client.Snapshot(), changes)
	require.False(t, changed, "a ConfigMap update without a data change renders nothing new")

	c.did(cmAPI.Delete(ctx, cm.Name, metav1.DeleteOptions{}))
	got = render("the ConfigMap was deleted")
	require.Equal(t, "nginx_shop-shop_closed", routers(got)[router].Service)
	require.Contains(t, got.Errors[0].Error(), "ConfigMap ingress-nginx/ingress-nginx-controller: not found")

	cm.ResourceVersion = ""
	cm.Data = map[string]string{"ssl-redirect": "false"}
	_, err = cmAPI.Create(ctx, cm, metav1.CreateOptions{})
	c.did(err)
	got = render("the ConfigMap came back")
	require.Empty(t, got.Errors)
	require.Equal(t, "nginx_shop-web-80", routers(got)[router].Service)
	require.Equal(t, []string{"nginx_configmap_hsts"}, routers(got)[router].Middlewares, "ssl-redirect false: no redirect")
	require.Equal(t, []string{"nginx_configmap_hsts"}, routers(got)[router+"_tls"].Middlewares)
}
