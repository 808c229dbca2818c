package nginx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// What a tenant gets from the annotations that used to fail open: a
// refused snippet, an unreadable limit, an auth host on the never-a-server
// list. The fixtures access-snippets*, access-rate-limit and
// access-auth-hosts* show the whole configuration; these tests hold the
// rules one annotation at a time.

// tenantIngress is an Ingress of namespace shop with one Prefix / path
// on host to the Service named service, port http.
func tenantIngress(name, host, service string, annotations map[string]string) *netv1.Ingress {
	backend := netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: service, Port: netv1.ServiceBackendPort{Name: "http"}}}
	return &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Annotations: annotations},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: host, IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
			Paths: []netv1.HTTPIngressPath{{Path: "/", PathType: ptr(netv1.PathTypePrefix), Backend: backend}},
		}}}}},
	}
}

// translateOn translates ing under opts, with hostIngs the Ingresses of
// its host (ing among them) and every Service port one server.
func translateOn(opts *Options, ing *netv1.Ingress, hostIngs ...*netv1.Ingress) *translate.Part {
	if len(hostIngs) == 0 {
		hostIngs = []*netv1.Ingress{ing}
	}
	snap := &testobjects.Snapshot{ServiceByKey: map[string]*corev1.Service{}}
	for _, name := range []string{"app", "app-v2"} {
		snap.ServiceByKey["shop/"+name] = &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	}
	env := &translate.IngressEnv{Snapshot: snap, PlanOptions: translate.PlanOptions{MaxOutput: translate.DefaultMaxIngressOutput},
		Hosts: func(string) []*netv1.Ingress { return hostIngs },
		LoadBalancer: func(translate.PortKey, string) *translate.LoadBalancer {
			return &translate.LoadBalancer{Service: lbService("http://10.0.0.1:8080")}
		}}
	p := &translate.Part{}
	Translate(env, opts, p, ing)
	return p
}

// requireClosed: every router of p answers 403 to every client (the
// closed middleware, a service without servers), and one error, naming
// the annotation, says so.
func requireClosed(t *testing.T, p *translate.Part, annotation string) {
	t.Helper()
	require.NotEmpty(t, p.Routers, "a closed path keeps its routers, so no shorter path takes its requests")
	for _, r := range p.Routers {
		require.Len(t, r.Config.Middlewares, 1, r.Key)
		assert.Equal(t, "nginx_shop-web_closed", r.Config.Middlewares[0], r.Key)
		assert.Empty(t, r.Service.LoadBalancer.Servers, "%s: nothing reaches the backend", r.Key)
	}
	require.Len(t, p.Errs, 1)
	assert.Contains(t, p.Errs[0].Error(), "metadata.annotations["+AnnotationPrefix+annotation+"]")
	assert.Contains(t, p.Errs[0].Error(), "(it controls access: the Ingress's paths answer 403)")
}

// requireServed: p's router sends to the backend's servers.
func requireServed(t *testing.T, p *translate.Part) {
	t.Helper()
	require.Len(t, p.Routers, 1)
	r := p.Routers[0]
	assert.NotContains(t, r.Config.Middlewares, "nginx_shop-web_closed")
	require.NotNil(t, r.Service.LoadBalancer, r.Key)
	assert.Equal(t, "http://10.0.0.1:8080", r.Service.LoadBalancer.Servers[0].URL)
}

func TestSnippetsCloseUnlessDropped(t *testing.T) {
	for _, name := range []string{"configuration-snippet", "server-snippet", "stream-snippet"} {
		t.Run(name, func(t *testing.T) {
			ing := tenantIngress("web", "web.example.com", "app", map[string]string{AnnotationPrefix + name: "deny all;"})

			p := translateOn(&Options{}, ing)
			requireClosed(t, p, name)
			assert.Contains(t, p.Errs[0].Error(), `"deny all;": not supported: it is raw nginx configuration`)
			assert.Contains(t, p.Errs[0].Error(), "dropSnippets")

			p = translateOn(&Options{DropSnippets: true}, ing)
			requireServed(t, p)
			require.Len(t, p.Errs, 1, "a dropped snippet is still reported")
			assert.Contains(t, p.Errs[0].Error(), `"deny all;": not supported: it is raw nginx configuration; dropped, as dropSnippets says (the Ingress is served without it)`)
		})
	}
	for _, name := range []string{"auth-snippet", "modsecurity-snippet"} {
		ing := tenantIngress("web", "web.example.com", "app", map[string]string{AnnotationPrefix + name: "deny all;"})
		requireClosed(t, translateOn(&Options{DropSnippets: true}, ing), name)
	}
}

// A canary with a snippet is not used, unless snippets may be dropped:
// the main Ingress reads the canary's annotations under the same options
// as the canary's own translation, so the two agree.
func TestSnippetOfACanaryFollowsDropSnippets(t *testing.T) {
	main := tenantIngress("web", "web.example.com", "app", nil)
	canary := tenantIngress("web-v2", "web.example.com", "app-v2", map[string]string{
		AnnotationPrefix + "canary": "true", AnnotationPrefix + "canary-weight": "50",
		AnnotationPrefix + "configuration-snippet": "deny all;",
	})
	canary.CreationTimestamp = metav1.Unix(1, 0)

	p := translateOn(&Options{}, main, main, canary)
	require.Len(t, p.Routers, 1)
	assert.Nil(t, p.Routers[0].Service.Weighted, "the closed canary takes no share")
	p = translateOn(&Options{}, canary, main, canary)
	require.Len(t, p.Errs, 1)
	assert.Contains(t, p.Errs[0].Error(), "(it controls access: the canary is not used)")

	p = translateOn(&Options{DropSnippets: true}, main, main, canary)
	require.Len(t, p.Routers, 1)
	require.NotNil(t, p.Routers[0].Service.Weighted, "with dropSnippets the canary takes its share")
	p = translateOn(&Options{DropSnippets: true}, canary, main, canary)
	require.Len(t, p.Errs, 1, "only the dropped snippet: the canary finds its main Ingress")
	assert.Contains(t, p.Errs[0].Error(), "(the Ingress is served without it)")
}

// A limit that cannot be read closes the Ingress: the backend asked not
// to take more, so it is not served without the limit. 0 is no limit.
func TestUnreadableLimitCloses(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{"limit-rps", "many"},
		{"limit-rps", "-5"},
		{"limit-rpm", "1e3"},
		{"limit-connections", "10 per client"},
		{"limit-burst-multiplier", "0"},
	} {
		ing := tenantIngress("web", "web.example.com", "app", map[string]string{AnnotationPrefix + c.name: c.value})
		p := translateOn(&Options{}, ing)
		requireClosed(t, p, c.name)
		assert.Contains(t, p.Errs[0].Error(), `"`+c.value+`": must be a whole number`)
	}
	for _, name := range []string{"limit-rps", "limit-rpm", "limit-connections"} {
		p := translateOn(&Options{}, tenantIngress("web", "web.example.com", "app", map[string]string{AnnotationPrefix + name: "0"}))
		requireServed(t, p)
		assert.Empty(t, p.Routers[0].Config.Middlewares, "%s 0 is no limit", name)
		assert.Empty(t, p.Errs)
	}
	// Refused without closing: they would only limit more, or slow answers.
	for _, name := range []string{"limit-rate", "limit-rate-after", "limit-whitelist"} {
		p := translateOn(&Options{}, tenantIngress("web", "web.example.com", "app", map[string]string{AnnotationPrefix + name: "10.0.0.0/8"}))
		requireServed(t, p)
		require.Len(t, p.Errs, 1)
		assert.Contains(t, p.Errs[0].Error(), "(the Ingress is served without it)")
	}
}

// An auth-url or auth-signin aimed inward closes the Ingress: no router
// asks the host, none reaches the backend. allowedAuthHosts serves the
// hosts it lists, and only those.
func TestInwardAuthHostCloses(t *testing.T) {
	allowed := &Options{AllowedAuthHosts: []string{"169.254.169.254", "127.0.0.1", "::1"}}
	for _, c := range []struct {
		annotation string
		anns       map[string]string
		want       string
		allowed    bool // served under allowed
	}{
		{"auth-url", map[string]string{"auth-url": "http://169.254.169.254/latest/meta-data/", "auth-response-headers": "X-Creds"},
			`"http://169.254.169.254/latest/meta-data/": host "169.254.169.254" is a cloud metadata address; it is never an auth service`, true},
		{"auth-url", map[string]string{"auth-url": "http://127.0.0.1:8080/api/config"},
			`"http://127.0.0.1:8080/api/config": host "127.0.0.1" is loopback; it is never an auth service`, true},
		// The list names 127.0.0.1, not this spelling of it.
		{"auth-url", map[string]string{"auth-url": "http://127.1:8080/api/config"}, `host "127.1" is not a dotted-decimal IPv4 address`, false},
		{"auth-signin", map[string]string{"auth-url": "https://auth.example.com/check", "auth-signin": "http://[::1]:9000/"},
			`"http://[::1]:9000/": host "::1" is loopback; it is never a sign-in page`, true},
	} {
		anns := map[string]string{}
		for k, v := range c.anns {
			anns[AnnotationPrefix+k] = v
		}
		ing := tenantIngress("web", "web.example.com", "app", anns)
		p := translateOn(&Options{}, ing)
		requireClosed(t, p, c.annotation)
		assert.Contains(t, p.Errs[0].Error(), c.want)
		for _, m := range p.Middlewares {
			assert.NotContains(t, *m.Middleware, "forwardAuth", "%s: nothing asks the host", m.Name)
		}

		p = translateOn(allowed, ing)
		if !c.allowed {
			requireClosed(t, p, c.annotation)
			continue
		}
		requireServed(t, p)
		assert.Empty(t, p.Errs)
		assert.Equal(t, []string{"nginx_shop-web_forward-auth"}, p.Routers[0].Config.Middlewares)
	}
}
