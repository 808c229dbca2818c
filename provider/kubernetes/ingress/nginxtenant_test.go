package ingress

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	to "github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
	"github.com/sliceway/sliceway/rule"
)

// A tenant with rights in one namespace (attacker) adds Ingresses on a
// host of another namespace (victim, whose Ingress is older). Whatever it
// asks for, the routers of the victim's paths stay as they are, and a
// request for the victim's paths gets what it got before.

const tenantHost = "victim.example"

// tenantCluster is the victim's namespace: an Ingress of the host with
// spec.tls and client certificates, paths / and Exact /admin.
func tenantCluster(t *testing.T, victimAnnotations map[string]string) []any {
	crt, key := to.SelfSignedPEM(t)
	exact := netv1.PathTypeExact
	victim := tenantIngress("victim", "app", 100, victimAnnotations, "/", "/admin")
	victim.Spec.Rules[0].HTTP.Paths[1].PathType = &exact
	victim.Spec.TLS = []netv1.IngressTLS{{Hosts: []string{tenantHost}, SecretName: "cert"}}
	objs := []any{
		to.NewClass("nginx", "k8s.io/ingress-nginx", false), victim,
		to.TLSSecret("victim", "cert", crt, key),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "victim", Name: "client-ca"}, Data: map[string][]byte{"ca.crt": crt}},
	}
	objs = append(objs, to.Backend("victim", "web", "10.0.0.1")...)
	return append(objs, to.Backend("attacker", "web", "10.0.0.2")...)
}

// tenantIngress is an nginx Ingress of tenantHost with Prefix paths to
// Service web port 80.
func tenantIngress(ns, name string, created int64, annotations map[string]string, paths ...string) *netv1.Ingress {
	opts := []to.IngressOption{to.WithClassName("nginx"), to.WithCreated(created)}
	for k, v := range annotations {
		opts = append(opts, to.WithAnnotation("nginx.ingress.kubernetes.io/"+k, v))
	}
	ing := to.NewIngress(ns, name, opts...)
	prefix := netv1.PathTypePrefix
	rule := netv1.IngressRule{Host: tenantHost, IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{}}}
	for _, p := range paths {
		rule.HTTP.Paths = append(rule.HTTP.Paths, netv1.HTTPIngressPath{Path: p, PathType: &prefix,
			Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "web", Port: netv1.ServiceBackendPort{Number: 80}}}})
	}
	ing.Spec.Rules = []netv1.IngressRule{rule}
	return ing
}

func renderNGINXObjects(t *testing.T, configure func(*NGINXProvider), objs ...any) *Result {
	t.Helper()
	np := &NGINXProvider{}
	np.SetDefaults()
	if configure != nil {
		configure(np)
	}
	require.NoError(t, np.Init())
	return Translate(to.NewSnapshot(objs...), &np.Provider)
}

// namespaceRouters are the routers of ns's paths, with what each names
// (service, middlewares, TLS option) written out, so that two
// configurations compare by what the routers do.
func namespaceRouters(conf *dynamic.Configuration, ns string) map[string]string {
	out := map[string]string{}
	for name, rt := range conf.HTTP.Routers {
		if !strings.HasPrefix(name, "nginx_"+ns+"-") {
			continue
		}
		text := fmt.Sprintf("rule=%s priority=%d service=%s", rt.Rule, rt.Priority, jsonText(conf.HTTP.Services[rt.Service]))
		for _, m := range rt.Middlewares {
			text += " mw=" + jsonText(conf.HTTP.Middlewares[m])
		}
		if rt.TLS != nil {
			text += " tls=" + rt.TLS.Options
			if conf.TLS != nil && conf.TLS.Options[rt.TLS.Options] != nil {
				text += jsonText(conf.TLS.Options[rt.TLS.Options])
			}
		}
		out[name] = text
	}
	return out
}

// routeRequest is the router Traefik would choose for a request: the
// highest priority among those whose rule matches (TLS routers for https).
func routeRequest(t *testing.T, conf *dynamic.Configuration, https bool, path string) string {
	t.Helper()
	best, bestPriority := "", -1
	for name, rt := range conf.HTTP.Routers {
		if (rt.TLS != nil) != https {
			continue
		}
		m, err := rule.Parse(rt.Rule)
		require.NoError(t, err, rt.Rule)
		if m.Match(tenantHost, path) && rt.Priority > bestPriority {
			best, bestPriority = name, rt.Priority
		}
	}
	return best
}

func TestNGINXTenantCannotChangeAnotherNamespacesRouters(t *testing.T) {
	clientCert := map[string]string{"auth-tls-secret": "victim/client-ca"}
	for _, tc := range []struct {
		name     string
		victim   map[string]string
		attacker map[string]string
		tls      bool // the attacker's Ingress lists the host in spec.tls
		// errs are texts the attacker's Ingress is told.
		errs []string
	}{
		{name: "no annotations on a client-certificate host", victim: clientCert},
		{name: "its own client certificates", victim: clientCert, attacker: map[string]string{"auth-tls-secret": "attacker/missing"},
			errs: []string{`host "victim.example" belongs to namespace victim (its oldest Ingress is victim/app), whose Ingresses decide its client certificates`}},
		{name: "app-root", attacker: map[string]string{"app-root": "/zz"}},
		{name: "use-regex", attacker: map[string]string{"use-regex": "true"}},
		{name: "rewrite-target", attacker: map[string]string{"rewrite-target": "/"}},
		{name: "spec.tls on a host without client certificates", tls: true},
		{name: "spec.tls and ssl-redirect off", victim: clientCert, tls: true, attacker: map[string]string{"ssl-redirect": "false"}},
		{name: "server-alias and from-to-www", attacker: map[string]string{"server-alias": "other.example", "from-to-www-redirect": "true"}},
		{name: "canary of the victim's path", attacker: map[string]string{"canary": "true", "canary-weight": "100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := tenantCluster(t, tc.victim)
			alone := renderNGINXObjects(t, nil, base...)
			attacker := tenantIngress("attacker", "squat", 200, tc.attacker, "/zz", "/")
			if tc.tls {
				attacker.Spec.TLS = []netv1.IngressTLS{{Hosts: []string{tenantHost}, SecretName: "cert"}}
			}
			both := renderNGINXObjects(t, nil, append(base, attacker)...)

			require.Equal(t, namespaceRouters(alone.Configuration, "victim"), namespaceRouters(both.Configuration, "victim"))
			for _, https := range []bool{false, true} {
				for _, path := range []string{"/", "/admin", "/ADMIN", "/admin-x", "/x"} {
					require.Equal(t, routeRequest(t, alone.Configuration, https, path), routeRequest(t, both.Configuration, https, path), "https=%v %s", https, path)
				}
			}
			// Every TLS router of the host names one option.
			options := map[string]bool{}
			for _, rt := range both.Configuration.HTTP.Routers {
				if rt.TLS != nil {
					options[rt.TLS.Options] = true
				}
			}
			require.LessOrEqual(t, len(options), 1, "TLS options of the host: %v", options)
			var told []string
			for _, e := range both.Errors {
				if e.Namespace == "attacker" {
					told = append(told, e.Error())
				}
			}
			for _, want := range tc.errs {
				require.Contains(t, strings.Join(told, "\n"), want)
			}
		})
	}
}

// The attacker's own paths of a client-certificate host are served with
// the host's client certificates; with exclusiveHosts not at all.
func TestNGINXTenantPathsOnAnOwnedHost(t *testing.T) {
	base := append(tenantCluster(t, map[string]string{"auth-tls-secret": "client-ca"}),
		tenantIngress("attacker", "squat", 200, nil, "/zz"))
	res := renderNGINXObjects(t, nil, base...)
	zz := res.Configuration.HTTP.Routers["nginx_attacker-squat-victim-example-zz_tls"]
	require.NotNil(t, zz)
	require.Equal(t, "nginx_victim-example_client-cert", zz.TLS.Options)
	require.Equal(t, "nginx_attacker-squat-victim-example-zz_tls", routeRequest(t, res.Configuration, true, "/zz"))

	res = renderNGINXObjects(t, func(p *NGINXProvider) { p.ExclusiveHosts = true }, base...)
	require.Equal(t, "nginx_victim-app-victim-example_tls", routeRequest(t, res.Configuration, true, "/zz"))
	var told []string
	for _, e := range res.Errors {
		told = append(told, e.Error())
	}
	require.Contains(t, strings.Join(told, "\n"), "exclusiveHosts keeps other namespaces off it")
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
