package ingress

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/nginx"
	to "github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// FuzzNGINXNamespaceIsolation: for an Ingress of namespace alpha and a
// newer one of namespace beta, each with arbitrary ingress-nginx
// annotations (every family: seeds below), a shared host or not, aliases,
// www names, canaries, TLS, spec.defaultBackend, the routers that serve
// alpha's paths (their rules, priorities, services, middlewares and TLS
// options, written out) are the same with and without beta's Ingress, and
// beta's default backend is no fallback of alpha's hosts.
func FuzzNGINXNamespaceIsolation(f *testing.F) {
	seeds := [][6]string{
		{"auth-tls-secret", "client-ca", "auth-tls-secret", "client-ca", "", ""},
		{"auth-tls-secret", "client-ca", "", "", "", ""},
		{"", "", "app-root", "/zz", "", ""},
		{"", "", "use-regex", "true", "rewrite-target", "/$1"},
		{"ssl-redirect", "false", "force-ssl-redirect", "true", "", ""},
		{"server-alias", "beta.example", "server-alias", "alpha.example", "from-to-www-redirect", "true"},
		{"from-to-www-redirect", "true", "server-alias", "www.alpha.example", "", ""},
		{"", "", "canary", "true", "canary-weight", "100"},
		{"canary", "true", "canary-by-header", "X-Canary", "", ""},
		{"affinity", "cookie", "affinity", "cookie", "session-cookie-path", "/"},
		{"backend-protocol", "HTTPS", "proxy-ssl-secret", "alpha/client-ca", "proxy-ssl-verify", "on"},
		{"whitelist-source-range", "10.0.0.0/8", "auth-type", "basic", "auth-secret", "auth"},
		{"enable-cors", "true", "limit-rps", "5", "default-backend", "web"},
		{"permanent-redirect", "https://x.example/", "configuration-snippet", "deny all;", "", ""},
	}
	for i, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], "/zz", uint8(i))
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], "/", uint8(i)|0x0f)
	}
	f.Add("", "", "", "", "", "", "/zz", uint8(32|16)) // beta's default backend, a rule on alpha's host
	f.Add("", "", "", "", "", "", "/zz", uint8(32))    // on alpha's host alone
	f.Fuzz(func(t *testing.T, aKey, aValue, bKey, bValue, bKey2, bValue2, bPath string, flags uint8) {
		alpha := isolationIngress("alpha", 100, "alpha.example", "/", flags&1 != 0, map[string]string{aKey: aValue})
		exact := netv1.PathTypeExact
		alpha.Spec.Rules[0].HTTP.Paths = append(alpha.Spec.Rules[0].HTTP.Paths, netv1.HTTPIngressPath{Path: "/admin", PathType: &exact,
			Backend: alpha.Spec.Rules[0].HTTP.Paths[0].Backend})
		host := "alpha.example"
		switch flags >> 1 & 3 {
		case 1:
			host = "www.alpha.example"
		case 2:
			host = "beta.example"
		}
		beta := isolationIngress("beta", 200, host, bPath, flags&8 != 0, map[string]string{bKey: bValue, bKey2: bValue2})
		if flags&16 != 0 {
			beta.Spec.Rules = append(beta.Spec.Rules, isolationIngress("beta", 0, "alpha.example", "/alpha", false, nil).Spec.Rules...)
		}
		if flags&32 != 0 {
			// Its hosts' fallback: never alpha's host's.
			beta.Spec.DefaultBackend = &beta.Spec.Rules[0].HTTP.Paths[0].Backend
		}
		base := isolationCluster(t)
		alone := renderNGINXObjects(t, nil, append(base, alpha)...)
		both := renderNGINXObjects(t, nil, append(base, alpha, beta)...)
		want, got := namespaceRouters(alone.Configuration, "alpha"), namespaceRouters(both.Configuration, "alpha")
		if len(want) != len(got) {
			t.Fatalf("alpha's routers: %d alone, %d beside beta's Ingress\nalone: %v\nboth:  %v", len(want), len(got), want, got)
		}
		for name, text := range want {
			if got[name] != text {
				t.Fatalf("router %s changed beside beta's Ingress:\nalone: %s\nboth:  %s", name, text, got[name])
			}
		}
		// Nor does beta's spec.defaultBackend take the requests no path
		// of alpha's hosts matches.
		alphaHosts := (&nginx.Options{}).Hosts(alpha)
		for name, rt := range both.Configuration.HTTP.Routers {
			if strings.HasPrefix(name, "nginx_beta-") && strings.Contains(name, "_default-backend") {
				for _, h := range rt.TLSHosts() {
					if slices.Contains(alphaHosts, h) {
						t.Fatalf("beta's default backend is the fallback of alpha's host %s: router %s", h, name)
					}
				}
			}
		}
	})
}

// isolationIngress is an nginx Ingress of ns with one Prefix path on host
// to Service web port 80, spec.tls for the host when tls.
func isolationIngress(ns string, created int64, host, path string, tls bool, annotations map[string]string) *netv1.Ingress {
	ing := tenantIngress(ns, "site", created, nil, path)
	ing.Spec.Rules[0].Host = host
	for k, v := range annotations {
		if k != "" {
			to.WithAnnotation("nginx.ingress.kubernetes.io/"+k, v)(ing)
		}
	}
	if tls {
		ing.Spec.TLS = []netv1.IngressTLS{{Hosts: []string{host}, SecretName: "cert"}}
	}
	return ing
}

// isolationCluster is what both namespaces have: Service web with a
// server, a CA, an htpasswd Secret and a certificate.
func isolationCluster(t *testing.T) []any {
	crt, key := to.SelfSignedPEM(t)
	objs := []any{to.NewClass("nginx", "k8s.io/ingress-nginx", false)}
	for i, ns := range []string{"alpha", "beta"} {
		objs = append(objs, to.TLSSecret(ns, "cert", crt, key),
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "client-ca"}, Data: map[string][]byte{"ca.crt": crt}},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "auth"}, Data: map[string][]byte{"auth": []byte("alice:{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M=\n")}})
		objs = append(objs, to.Backend(ns, "web", "10.0.0."+string(rune('1'+i)))...)
	}
	return objs
}
