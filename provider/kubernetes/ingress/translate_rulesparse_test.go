package ingress

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
	"github.com/sliceway/sliceway/rule"
)

// TestTranslatedRulesParse: every rule in a translated configuration is
// one Traefik (and the rule package) can load. An Ingress path whose rule
// could not be loaded must be reported, naming the Ingress and the field,
// and left out, not handed to the proxy, which refuses the router.
func TestTranslatedRulesParse(t *testing.T) {
	svc, slice := webServiceAndSlice()
	backend := netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "web", Port: netv1.ServiceBackendPort{Number: 80}}}
	ing := func(name, host, path string, annotations map[string]string) *netv1.Ingress {
		return &netv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: annotations},
			Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{
				Host: host,
				IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{
					{Path: path, PathType: new(netv1.PathTypeImplementationSpecific), Backend: backend},
				}}},
			}}},
		}
	}
	regexpMatcher := map[string]string{AnnotationPrefix + "router.pathmatcher": "PathRegexp"}
	snap := testobjects.NewSnapshot(svc, slice,
		ing("good", "a.example", "/ok", nil),
		ing("bad-regexp", "b.example", "/(", regexpMatcher),
		ing("bad-wildcard", "*.\xff.example", "/", nil),
	)
	opts := &Provider{}
	opts.SetDefaults()
	res := Translate(snap, opts)

	for name, r := range res.Configuration.HTTP.Routers {
		_, err := rule.Parse(r.Rule)
		assert.NoError(t, err, "router %s", name)
	}
	assert.Contains(t, res.Configuration.HTTP.Routers, "default-good-a-example-ok")
	var errs []string
	for _, e := range res.Errors {
		errs = append(errs, e.Error())
	}
	for _, want := range []string{"Ingress default/bad-regexp: spec.rules[0].http.paths[0].path", "Ingress default/bad-wildcard: spec.rules[0].host"} {
		assert.True(t, strings.Contains(strings.Join(errs, "\n"), want), "want an error %q in %q", want, errs)
	}
}
