package ingress

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// TestLongValuesInErrors: an error about a value of 250,000 bytes (an
// annotation, a host, a path, a name in a backend) quotes its start and
// says its length, in a text of a few hundred bytes, and still names the
// object and the field.
func TestLongValuesInErrors(t *testing.T) {
	long := strings.Repeat("x", 250_000)
	names := strings.Repeat("m00000@file,", 20_000) // the start of a long list of middlewares
	length := regexp.MustCompile(`\.\.\."? \(2[45]\d,\d{3} bytes\)`)

	withRegexpPath := func(path string) testobjects.IngressOption {
		return func(ing *netv1.Ingress) {
			ing.Spec.Rules = append(ing.Spec.Rules, netv1.IngressRule{IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
				Paths: []netv1.HTTPIngressPath{{Path: path, Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "whoami", Port: netv1.ServiceBackendPort{Number: 80}}}}},
			}}})
		}
	}
	annotated := func(key, value string) *corev1.Service {
		svc := testobjects.NewService("apps", "annotated", testobjects.ServicePort("", 80))
		svc.Annotations = map[string]string{testobjects.Annotation(key): value}
		return svc
	}
	external := testobjects.NewService("apps", "external", testobjects.ServicePort("", 80))
	external.Spec.Type, external.Spec.ExternalName = corev1.ServiceTypeExternalName, long+".localhost"
	opts := &Provider{AllowExternalNameServices: true}
	opts.SetDefaults()

	for _, tc := range []struct {
		name  string
		objs  []any
		field string // of the error about the value
		max   int    // bytes of its text
	}{
		{"priority", []any{testobjects.NewIngress("apps", "long", testobjects.WithAnnotation(testobjects.Annotation("router.priority"), long), testobjects.WithPath("", "/", "whoami", 80, ""))},
			"metadata.annotations[" + testobjects.Annotation("router.priority") + "]", 1024},
		{"control character", []any{testobjects.NewIngress("apps", "long", testobjects.WithAnnotation(testobjects.Annotation("router.middlewares"), "\x00"+names), testobjects.WithPath("", "/", "whoami", 80, ""))},
			"metadata.annotations[" + testobjects.Annotation("router.middlewares") + "]", 1024},
		{"boolean", []any{testobjects.NewIngress("apps", "long", testobjects.WithAnnotation(testobjects.Annotation("router.tls"), long), testobjects.WithPath("", "/", "whoami", 80, ""))},
			"metadata.annotations[" + testobjects.Annotation("router.tls") + "]", 1024},
		{"path matcher", []any{testobjects.NewIngress("apps", "long", testobjects.WithAnnotation(testobjects.Annotation("router.pathmatcher"), long), testobjects.WithPath("", "/", "whoami", 80, ""))},
			"metadata.annotations[" + testobjects.Annotation("router.pathmatcher") + "]", 1024},
		{"service annotation", []any{annotated("service.serversscheme", long), testobjects.NewIngress("apps", "long", testobjects.WithPath("", "/", "annotated", 80, ""))},
			"spec.rules[0].http.paths[0].backend.service", 1024},
		{"service annotation the parser refuses", []any{annotated("service.sticky.cookie.maxage", long), testobjects.NewIngress("apps", "long", testobjects.WithPath("", "/", "annotated", 80, ""))},
			"spec.rules[0].http.paths[0].backend.service", 1024},
		{"wildcard host", []any{testobjects.NewIngress("apps", "long", testobjects.WithPath("*.\xff"+long, "/", "whoami", 80, ""))},
			"spec.rules[0].host", 1024},
		{"regular expression", []any{testobjects.NewIngress("apps", "long", testobjects.WithAnnotation(testobjects.Annotation("router.pathmatcher"), "PathRegexp"), withRegexpPath("/("+long))},
			"spec.rules[0].http.paths[0].path", 1024},
		{"backend service name", []any{testobjects.NewIngress("apps", "long", testobjects.WithPath("", "/", long, 80, ""))},
			"spec.rules[0].http.paths[0].backend.service", 1024},
		{"secret name", []any{testobjects.NewIngress("apps", "long", testobjects.WithTLS(long), testobjects.WithPath("", "/", "whoami", 80, ""))},
			"spec.tls[0].secretName", 1024},
		{"external name", []any{external, testobjects.NewIngress("apps", "long", testobjects.WithPath("", "/", "external", 80, ""))},
			"spec.rules[0].http.paths[0].backend.service", 1024},
		{"rule of a tie", []any{testobjects.NewIngress("apps", "long", testobjects.WithCreated(1), testobjects.WithPath("", "/"+long, "whoami", 80, "")), testobjects.NewIngress("apps", "same", testobjects.WithCreated(2), testobjects.WithPath("", "/"+long, "whoami", 80, ""))},
			"spec.rules[0].http.paths[0]", 2048}, // the rule and two router names
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := append(testobjects.Backend("apps", "whoami", "10.0.0.1"), tc.objs...)
			res := translateOnce(t, testobjects.NewSnapshot(objs...), opts)
			var found bool
			for _, e := range res.Errors {
				text := e.Error()
				assert.Less(t, len(text), tc.max, "%.600s", text)
				if e.Kind == "Ingress" && e.Field == tc.field {
					found = true
					assert.Regexp(t, length, text, "the length of the value")
				}
			}
			require.True(t, found, "an error of field %s among %d", tc.field, len(res.Errors))
		})
	}
}
