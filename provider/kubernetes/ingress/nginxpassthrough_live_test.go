package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/nginx"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// TestNGINXPassthroughLive: an ssl-passthrough host's TCP router copies
// the addresses of its backend's servers, so a move of an endpoint must
// reach it (the load balancer is not refreshed in place for such a
// part: the part is translated again), and the annotation's removal
// takes the router away and gives the host its TLS routers back. Each
// incremental render must equal a full one.
func TestNGINXPassthroughLive(t *testing.T) {
	const ns, host, router = "sec", "vault.example.com", "nginx_passthrough_vault-example-com"
	ann := nginx.AnnotationPrefix + "ssl-passthrough"
	ing := testobjects.NewIngress(ns, "vault", testobjects.WithClassName("nginx"), testobjects.WithPath(host, "/", "vault", 80, ""),
		testobjects.WithAnnotation(ann, "true"))
	ing.Spec.TLS = []netv1.IngressTLS{{Hosts: []string{host}}}
	objs := []any{testobjects.NewClass("nginx", nginx.DefaultControllerClass, false), ing}
	objs = append(objs, testobjects.Backend(ns, "vault", "10.0.0.1")...)
	l := startNGINXLive(t, objs, func(np *NGINXProvider) { np.EnableSSLPassthrough = true })
	cs, ctx, c := l.cs, l.ctx, l.c
	got := l.first
	require.Empty(t, got.Errors)
	servers := func(res *Result) []dynamic.TCPServer {
		require.NotNil(t, res.Configuration.TCP, "no tcp section")
		return res.Configuration.TCP.Services[router].LoadBalancer.Servers
	}
	require.Equal(t, []dynamic.TCPServer{{Address: "10.0.0.1:8080"}}, servers(got))
	require.NotContains(t, got.Configuration.HTTP.Routers, "nginx_sec-vault-vault-example-com_tls", "TLS connections are passed through")
	render := func(what string) *Result { t.Helper(); return l.render(t, what) }

	sliceAPI := cs.DiscoveryV1().EndpointSlices(ns)
	s, err := sliceAPI.Get(ctx, "vault-abc", metav1.GetOptions{})
	require.NoError(t, err)
	s.Endpoints[0].Addresses = []string{"10.0.0.2"}
	_, err = sliceAPI.Update(ctx, s, metav1.UpdateOptions{})
	c.did(err)
	got = render("the endpoint moved")
	require.Equal(t, []dynamic.TCPServer{{Address: "10.0.0.2:8080"}}, servers(got))

	delete(ing.Annotations, ann)
	_, err = cs.NetworkingV1().Ingresses(ns).Update(ctx, ing, metav1.UpdateOptions{})
	c.did(err)
	got = render("the annotation was removed")
	require.Nil(t, got.Configuration.TCP)
	require.Contains(t, got.Configuration.HTTP.Routers, "nginx_sec-vault-vault-example-com_tls")
}
