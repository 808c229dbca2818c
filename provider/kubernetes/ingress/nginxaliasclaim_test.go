package ingress

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/internal/clustergen"
)

// TestNGINXAliasClaimedByAnotherIngress: an alias (server-alias) or a www
// name (from-to-www-redirect) is served by the Ingress that names it
// until another Ingress has a rule for that host; then ingress-nginx
// gives the host to that Ingress alone, and so must an incremental
// render, which translates the aliasing Ingress again although they
// share no rule host.
func TestNGINXAliasClaimedByAnotherIngress(t *testing.T) {
	cs := fake.NewClientset()
	for _, o := range clustergen.Service(9, 2) {
		m := o.(metav1.Object)
		if o.GetObjectKind().GroupVersionKind().Kind == "Ingress" {
			continue
		}
		m.SetNamespace("default")
		require.NoError(t, cs.Tracker().Add(o))
	}
	require.NoError(t, cs.Tracker().Add(&netv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec: netv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}))
	np := &NGINXProvider{}
	np.SetDefaults()
	require.NoError(t, np.Init())
	s := &renderSteps{t: t, cs: cs, changes: &Changes{}, events: &atomic.Int64{}, opts: &np.Provider}
	s.client, s.ctx = startClient(t, cs, ClientOptions{OnChange: s.changes.Record, Notify: func(string, bool) { s.events.Add(1) }, Provider: s.opts})
	s.r = NewRenderer(s.opts)
	s.prev, _ = s.r.Render(s.client.Snapshot(), s.changes)
	s.want = s.events.Load()

	svc := clustergen.Name(9)
	class := "nginx"
	prefix := netv1.PathTypePrefix
	ing := func(name, host string, annotations map[string]string) *netv1.Ingress {
		i := stepIngress("default", name, host, svc, netv1.HTTPIngressPath{Path: "/", PathType: &prefix})
		i.Spec.IngressClassName = &class
		i.Annotations = annotations
		return i
	}
	routers := func(res *Result) []string {
		var names []string
		for name, rt := range res.Configuration.HTTP.Routers {
			names = append(names, name+" "+rt.Rule)
		}
		return names
	}
	aliasRouter := `nginx_default-shop-bar-example-com Host("bar.example.com") && PathPrefix("/")`
	wwwRouter := `nginx_default-shop-www-shop-example-com_www Host("www.shop.example.com")`
	claimRouter := `nginx_default-bar-bar-example-com Host("bar.example.com") && PathPrefix("/")`
	claimWWW := `nginx_default-www-www-shop-example-com Host("www.shop.example.com") && PathPrefix("/")`

	res := s.check("the aliasing Ingress", create(s, ing("shop", "shop.example.com", map[string]string{
		"nginx.ingress.kubernetes.io/server-alias":         "bar.example.com",
		"nginx.ingress.kubernetes.io/from-to-www-redirect": "true",
	})))
	require.Contains(t, routers(res), aliasRouter)
	require.Contains(t, routers(res), wwwRouter)

	res = s.check("an Ingress of the alias", create(s, ing("bar", "bar.example.com", nil)))
	require.NotContains(t, routers(res), aliasRouter)
	require.Contains(t, routers(res), claimRouter)

	res = s.check("an Ingress of the www name", create(s, ing("www", "www.shop.example.com", nil)))
	require.NotContains(t, routers(res), wwwRouter)
	require.Contains(t, routers(res), claimWWW)

	res = s.check("the alias is free again", s.ingresses("default").Delete(context.Background(), "bar", metav1.DeleteOptions{}))
	require.Contains(t, routers(res), aliasRouter)
}

func create(s *renderSteps, ing *netv1.Ingress) error {
	_, err := s.ingresses(ing.Namespace).Create(context.Background(), ing, metav1.CreateOptions{})
	return err
}
