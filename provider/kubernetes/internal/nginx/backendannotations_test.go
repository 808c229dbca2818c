package nginx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1": 1, "1k": 1024, "512K": 512 << 10, "8m": 8 << 20, "2G": 2 << 30, " 10m ": 10 << 20} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "8MB", "1.5m", "-1", "m", "8 m", "1t", "9999999999999999g"} {
		_, err := parseSize(in)
		assert.Error(t, err, in)
	}
}

func TestParseProtocolIsCaseInsensitive(t *testing.T) {
	for in, want := range map[string]string{"https": "HTTPS", "GrPc": "GRPC", " grpcs ": "GRPCS", "HTTP": "HTTP"} {
		c := &Config{}
		c.setDefaults()
		require.NoError(t, parseProtocol(in, c), in)
		assert.Equal(t, want, c.Backend.Protocol, in)
	}
	for _, in := range []string{"fcgi", "AJP", "auto_http", "h2c", ""} {
		c := &Config{}
		c.setDefaults()
		assert.Error(t, parseProtocol(in, c), in)
		assert.Equal(t, "HTTP", c.Backend.Protocol, "a refused protocol leaves HTTP")
	}
}

func TestParseCustomErrors(t *testing.T) {
	c := &Config{}
	require.NoError(t, parseCustomErrors("404, 503,404,,500", c))
	assert.Equal(t, []int{404, 503, 500}, c.Backend.CustomErrors)
	for _, in := range []string{"", " , ", "200", "600", "404,x"} {
		assert.Error(t, parseCustomErrors(in, &Config{}), in)
	}
}

func TestParseUpstreamVHost(t *testing.T) {
	for _, in := range []string{"api.internal", "api.internal:8080", "localhost", "[::1]:80"} {
		c := &Config{}
		require.NoError(t, parseUpstreamVHost(in, c), in)
		assert.Equal(t, in, c.Backend.UpstreamVHost)
	}
	for _, in := range []string{"$host", "api.$namespace.svc", "a b", "http://api", "api/x", ""} {
		assert.Error(t, parseUpstreamVHost(in, &Config{}), in)
	}
}

func TestTweakNeverModifiesBase(t *testing.T) {
	base := lbService("http://10.0.0.1:80", "http://10.0.0.2:80")
	tw := &serverTweak{scheme: "https", transport: "t", sticky: &dynamic.Sticky{Cookie: &dynamic.Cookie{Name: "c"}}}
	got := tw.apply(base)
	assert.Equal(t, []dynamic.Server{{URL: "https://10.0.0.1:80"}, {URL: "https://10.0.0.2:80"}}, got.LoadBalancer.Servers)
	assert.Equal(t, "t", got.LoadBalancer.ServersTransport)
	assert.Equal(t, "c", got.LoadBalancer.Sticky.Cookie.Name)
	assert.Equal(t, lbService("http://10.0.0.1:80", "http://10.0.0.2:80"), base, "the base load balancer is shared: it must stay as it was")
}

// TestDerivedServiceFollowsBase: a path with a default-backend
// annotation whose Service has no servers sends to the default backend,
// and back to its own servers when its load balancer is rebuilt in place
// with some (allowEmptyServices lets the empty one be refreshed in place).
func TestDerivedServiceFollowsBase(t *testing.T) {
	snap := &testobjects.Snapshot{ServiceByKey: map[string]*corev1.Service{
		"shop/app":   {ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "app"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}},
		"shop/pages": {ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "pages"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "web", Port: 8080}}}},
	}}
	empty := lbService()
	pages := lbService("http://10.0.0.9:8080")
	lbs := map[string]*translate.LoadBalancer{"nginx_shop-app-http": {Service: empty}, "nginx_shop-pages-8080": {Service: pages}}
	env := &translate.IngressEnv{Snapshot: snap, AllowEmptyServices: true, LoadBalancer: func(key translate.PortKey, name string) *translate.LoadBalancer {
		lb, ok := lbs[name]
		require.True(t, ok, "unexpected load balancer %s", name)
		return lb
	}}
	ing := &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Annotations: map[string]string{
			AnnotationPrefix + "default-backend":  "pages",
			AnnotationPrefix + "backend-protocol": "GRPC",
		}},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: "web.example.com", IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
			Paths: []netv1.HTTPIngressPath{{Path: "/", PathType: ptr(netv1.PathTypePrefix), Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "app", Port: netv1.ServiceBackendPort{Name: "http"}}}}},
		}}}}},
	}
	p := &translate.Part{}
	Translate(env, &Options{}, p, ing)
	require.Empty(t, p.Errs)
	require.Len(t, p.Routers, 1)
	fallback := "nginx_shop-web_default-backend-shop-pages-8080-79f67a43" // shared by the paths that reach it alike
	assert.Equal(t, weightedTo(fallback), p.Routers[0].Service, "no servers: everything goes to the default backend")
	fb := findService(t, p, fallback)
	assert.Equal(t, []dynamic.Server{{URL: "h2c://10.0.0.9:8080"}}, fb.LoadBalancer.Servers, "the default backend is reached as the path's servers are")

	refilled := lbService("http://10.0.0.1:80")
	p.ReplaceService(empty, refilled)
	got := p.Routers[0].Service
	require.NotNil(t, got.LoadBalancer, "with servers again the path sends to them")
	assert.Equal(t, []dynamic.Server{{URL: "h2c://10.0.0.1:80"}}, got.LoadBalancer.Servers)
	assert.Equal(t, []dynamic.Server{{URL: "http://10.0.0.1:80"}}, refilled.LoadBalancer.Servers, "the base is not modified")
}

// TestBackendTLSClosesEveryPath: a backend TLS annotation that cannot be
// honoured closes every path of the Ingress: each keeps a router that
// answers 403 (so that no shorter path of the host takes its requests),
// and no router reaches the backend, nor any transport of it.
func TestBackendTLSClosesEveryPath(t *testing.T) {
	snap := &testobjects.Snapshot{ServiceByKey: map[string]*corev1.Service{}}
	env := &translate.IngressEnv{Snapshot: snap, LoadBalancer: func(translate.PortKey, string) *translate.LoadBalancer {
		return &translate.LoadBalancer{Service: lbService("http://10.0.0.1:80")}
	}}
	ing := &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Annotations: map[string]string{
			AnnotationPrefix + "backend-protocol": "HTTPS",
			AnnotationPrefix + "proxy-ssl-secret": "shop/absent",
		}},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: "web.example.com", IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
			Paths: []netv1.HTTPIngressPath{
				{Path: "/", PathType: ptr(netv1.PathTypePrefix), Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "app", Port: netv1.ServiceBackendPort{Number: 80}}}},
				{Path: "/b", PathType: ptr(netv1.PathTypePrefix), Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "app", Port: netv1.ServiceBackendPort{Number: 80}}}},
			},
		}}}}},
	}
	p := &translate.Part{}
	Translate(env, &Options{}, p, ing)
	require.Len(t, p.Routers, 2, "a closed router for each path")
	for _, r := range p.Routers {
		assert.Equal(t, []string{"nginx_shop-web_closed"}, r.Config.Middlewares, r.Key)
		assert.Equal(t, "nginx_shop-web_closed", r.Config.Service, r.Key)
		assert.Empty(t, r.Service.LoadBalancer.Servers, "nothing reaches the backend")
	}
	require.Len(t, p.Services, 1, "only the closed routers' service")
	require.Len(t, p.Middlewares, 1)
	assert.Equal(t, []string{closedRange}, (*p.Middlewares[0].Middleware)["ipAllowList"].(map[string]any)["sourceRange"])
	assert.Empty(t, p.Transports)
	require.Len(t, p.Errs, 1, "one problem for the Ingress, not one per path")
	assert.Contains(t, p.Errs[0].Error(), "secret shop/absent not found")
	assert.Equal(t, []translate.Key{{Namespace: "shop", Name: "absent"}}, p.Secrets, "the Secret's arrival must translate the Ingress again")
}

func findService(t *testing.T, p *translate.Part, name string) *dynamic.Service {
	t.Helper()
	for _, ns := range p.Services {
		if ns.Name == name {
			return ns.Service
		}
	}
	t.Fatalf("no service %s", name)
	return nil
}

func lbService(urls ...string) *dynamic.Service {
	s := dynamic.NewServersService()
	for _, u := range urls {
		s.LoadBalancer.Servers = append(s.LoadBalancer.Servers, dynamic.Server{URL: u})
	}
	return s
}

func ptr[T any](v T) *T { return &v }
