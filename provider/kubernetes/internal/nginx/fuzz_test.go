package nginx

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// FuzzTranslate translates an Ingress with arbitrary ingress-nginx
// annotations (three pairs, seeded with those of every fixture of
// fixtures/nginx) and an arbitrary path, on a TLS host, beside a Prefix /.
// Translation never panics (a panic would be the Ingress's
// TranslationPanic); it is deterministic; every name it writes starts
// with nginx_; every router has a rule and a service, and every service a
// router or a weighted parent that names it; a problem names the Ingress.
func FuzzTranslate(f *testing.F) {
	for _, seed := range fixtureAnnotationSeeds(f) {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], "/app")
	}
	f.Add("use-regex", "true", "rewrite-target", "/$1$2", "app-root", "/x", "/(a|b)(.*)")
	f.Add("canary", "true", "canary-weight", "50", "auth-type", "basic", "/")
	f.Add("whitelist-source-range", "::1/128,10.0.0.0/8", "denylist-source-range", "10.1.0.0/16", "limit-rps", "5", "/a")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, k3, v3, path string) {
		ing := fuzzIngress(map[string]string{AnnotationPrefix + k1: v1, AnnotationPrefix + k2: v2, AnnotationPrefix + k3: v3}, path)
		first, second := fuzzTranslate(ing), fuzzTranslate(ing)
		for _, e := range first.Errs {
			var tp *translate.TranslationPanic
			if errors.As(e, &tp) {
				t.Fatalf("translation panicked: %v", tp.Value)
			}
			if e.Namespace != "shop" || e.Name != "web" {
				t.Fatalf("a problem names another object: %v", e)
			}
		}
		if !reflect.DeepEqual(summary(first), summary(second)) {
			t.Fatalf("two translations differ:\n%v\n%v", summary(first), summary(second))
		}
		checkNames(t, first)
	})
}

func fuzzIngress(annotations map[string]string, path string) *netv1.Ingress {
	backend := netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "app", Port: netv1.ServiceBackendPort{Name: "http"}}}
	return &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Annotations: annotations},
		Spec: netv1.IngressSpec{
			TLS: []netv1.IngressTLS{{Hosts: []string{"web.example.com"}, SecretName: "cert"}},
			Rules: []netv1.IngressRule{{Host: "web.example.com", IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
				Paths: []netv1.HTTPIngressPath{
					{Path: "/", PathType: ptr(netv1.PathTypePrefix), Backend: backend},
					{Path: path, PathType: ptr(netv1.PathTypeImplementationSpecific), Backend: backend},
				},
			}}}},
		},
	}
}

// fuzzTranslate translates ing alone on its host, its Service with one
// server and an htpasswd Secret beside it.
func fuzzTranslate(ing *netv1.Ingress) *translate.Part {
	snap := &testobjects.Snapshot{
		ServiceByKey: map[string]*corev1.Service{"shop/app": {ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "app"},
			Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1", Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}},
		SecretByKey: map[string]*corev1.Secret{"shop/auth": {ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "auth"},
			Data: map[string][]byte{"auth": []byte("alice:{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M=\n")}}},
	}
	env := &translate.IngressEnv{Snapshot: snap, PlanOptions: translate.PlanOptions{MaxOutput: translate.DefaultMaxIngressOutput},
		Hosts: func(string) []*netv1.Ingress { return []*netv1.Ingress{ing} },
		LoadBalancer: func(translate.PortKey, string) *translate.LoadBalancer {
			return &translate.LoadBalancer{Service: lbService("http://10.0.0.1:8080")}
		}}
	p := &translate.Part{}
	Translate(env, &Options{}, p, ing)
	return p
}

// summary is what a part writes, by name.
func summary(p *translate.Part) map[string]any {
	out := map[string]any{}
	for _, r := range p.Routers {
		out["router "+r.Key] = *r.Config
	}
	for _, s := range p.Services {
		out["service "+s.Name] = s.Service
	}
	for _, m := range p.Middlewares {
		out["middleware "+m.Name] = m.Middleware
	}
	for _, tr := range p.Transports {
		out["transport "+tr.Name] = tr.Transport
	}
	var errs []string
	for _, e := range p.Errs {
		errs = append(errs, e.Error())
	}
	out["errors"] = errs
	return out
}

// checkNames: the part's names are the dialect's, and its routers and
// services refer to each other.
func checkNames(t *testing.T, p *translate.Part) {
	t.Helper()
	services := map[string]bool{}
	for _, s := range p.Services {
		services[s.Name] = true
		if w := s.Service.Weighted; w != nil {
			for _, c := range w.Services {
				services[c.Name] = true
			}
		}
	}
	for _, r := range p.Routers {
		if !strings.HasPrefix(r.Key, NamePrefix) || r.Config.Rule == "" || !strings.HasPrefix(r.Config.Service, NamePrefix) || r.Service == nil {
			t.Fatalf("router %s: %+v", r.Key, r.Config)
		}
		services[r.Config.Service] = true
		for _, m := range r.Config.Middlewares {
			if !slices.ContainsFunc(p.Middlewares, func(d translate.NamedMiddleware) bool { return d.Name == m }) {
				t.Fatalf("router %s names middleware %s, which the part does not define", r.Key, m)
			}
		}
	}
	for _, s := range p.Services {
		if !strings.HasPrefix(s.Name, NamePrefix) {
			t.Fatalf("service %s", s.Name)
		}
	}
	for _, m := range p.Middlewares {
		if !strings.HasPrefix(m.Name, NamePrefix) {
			t.Fatalf("middleware %s", m.Name)
		}
	}
}

// fixtureAnnotationSeeds are the ingress-nginx annotations of the
// fixtures' Ingresses, three pairs a seed.
func fixtureAnnotationSeeds(f *testing.F) [][6]string {
	files, err := filepath.Glob("../../../../fixtures/nginx/*/manifests.yaml")
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	var seeds [][6]string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			var obj struct {
				Kind     string            `json:"kind"`
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			if yaml.Unmarshal([]byte(doc), &obj) != nil || obj.Kind != "Ingress" {
				continue
			}
			var pairs []string
			keys := make([]string, 0, len(obj.Metadata.Annotations))
			for k := range obj.Metadata.Annotations {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if rest, ok := strings.CutPrefix(k, AnnotationPrefix); ok {
					pairs = append(pairs, rest, obj.Metadata.Annotations[k])
				}
			}
			for len(pairs) > 0 {
				var seed [6]string
				n := copy(seed[:], pairs)
				seeds = append(seeds, seed)
				pairs = pairs[n:]
			}
		}
	}
	return seeds
}
