package ingress

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func TestTranslateBrokenIngressLeavesOthersIntact(t *testing.T) {
	good := testobjects.NewIngress("apps", "good", testobjects.WithCreated(200),
		testobjects.WithPath("good.example.com", "/", "whoami", 80, ""),
		testobjects.WithPath("good.example.com", "/api", "whoami", 80, ""))
	tests := []struct {
		desc       string
		broken     *netv1.Ingress
		extra      []any
		wantFields []string // fields of the broken Ingress's errors
	}{
		{
			desc:       "missing service",
			broken:     testobjects.NewIngress("apps", "broken", testobjects.WithCreated(100), testobjects.WithPath("broken.example.com", "/", "nope", 80, "")),
			wantFields: []string{"spec.rules[0].http.paths[0].backend.service"},
		},
		{
			desc: "missing service next to the good one's service",
			broken: testobjects.NewIngress("apps", "broken", testobjects.WithCreated(100),
				testobjects.WithPath("good.example.com", "/x", "whoami", 80, ""),
				testobjects.WithPath("good.example.com", "/y", "nope", 80, "")),
			wantFields: []string{"spec.rules[1].http.paths[0].backend.service"},
		},
		{
			desc:       "unknown port of the same service",
			broken:     testobjects.NewIngress("apps", "broken", testobjects.WithCreated(100), testobjects.WithPath("broken.example.com", "/", "whoami", 81, "")),
			wantFields: []string{"spec.rules[0].http.paths[0].backend.service"},
		},
		{
			desc: "bad annotation",
			broken: testobjects.NewIngress("apps", "broken", testobjects.WithCreated(100), testobjects.WithAnnotation(testobjects.Annotation("router.priority"), "high"),
				testobjects.WithPath("good.example.com", "/", "whoami", 80, "")),
			wantFields: []string{"metadata.annotations[" + testobjects.Annotation("router.priority") + "]"},
		},
		{
			desc:       "missing default backend service",
			broken:     testobjects.NewIngress("apps", "broken", testobjects.WithCreated(100), testobjects.WithDefaultBackend("nope", 80)),
			wantFields: []string{"spec.defaultBackend.service"},
		},
		{
			desc:       "missing secret",
			broken:     testobjects.NewIngress("apps", "broken", testobjects.WithCreated(100), testobjects.WithTLS("nope")),
			wantFields: []string{"spec.tls[0].secretName"},
		},
	}
	alone := translateOnce(t, testobjects.NewSnapshot(append(testobjects.Backend("apps", "whoami", "10.0.0.1"), good)...), nil)
	require.Empty(t, alone.Errors)
	require.Len(t, alone.Configuration.HTTP.Routers, 2)

	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			objs := append(testobjects.Backend("apps", "whoami", "10.0.0.1"), good, tc.broken)
			objs = append(objs, tc.extra...)
			res := translateOnce(t, testobjects.NewSnapshot(objs...), nil)

			for key, want := range alone.Configuration.HTTP.Routers {
				assert.Equal(t, want, res.Configuration.HTTP.Routers[key], "router %s of the good Ingress", key)
			}
			for key, want := range alone.Configuration.HTTP.Services {
				assert.Equal(t, want, res.Configuration.HTTP.Services[key], "service %s", key)
			}
			var fields []string
			for _, e := range res.Errors {
				assert.Equal(t, "Ingress", e.Kind)
				assert.Equal(t, "apps", e.Namespace)
				assert.Equal(t, "broken", e.Name, "only the broken Ingress has errors: %v", e)
				assert.Equal(t, SeverityError, e.Severity)
				fields = append(fields, e.Field)
			}
			assert.Equal(t, tc.wantFields, fields)
			for key, rt := range res.Configuration.HTTP.Routers {
				if _, ok := alone.Configuration.HTTP.Routers[key]; ok {
					continue
				}
				assert.Equal(t, "broken", rt.Observability.Metadata.Ingress.IngressName, "extra router %s", key)
				assert.NotEqual(t, "apps-nope-80", rt.Service)
			}
			assert.NotContains(t, res.Configuration.HTTP.Services, "apps-nope-80")
		})
	}
}

func TestTranslateMissingServiceError(t *testing.T) {
	ing := testobjects.NewIngress("apps", "web", testobjects.WithPath("", "/", "nope", 80, ""))
	res := translateOnce(t, testobjects.NewSnapshot(ing), nil)
	assert.Empty(t, res.Configuration.HTTP.Routers)
	assert.Empty(t, res.Configuration.HTTP.Services)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "Ingress apps/web: spec.rules[0].http.paths[0].backend.service: service apps/nope not found", res.Errors[0].Error())
}

func TestObjectErrorError(t *testing.T) {
	base := errors.New("boom")
	tests := []struct {
		err  *ObjectError
		want string
	}{
		{err: &ObjectError{Kind: "Ingress", Namespace: "ns", Name: "web", Field: "spec.rules[0]", Err: base}, want: "Ingress ns/web: spec.rules[0]: boom"},
		{err: &ObjectError{Kind: "Service", Namespace: "ns", Name: "svc", Err: base}, want: "Service ns/svc: boom"},
		{err: &ObjectError{Kind: "IngressClass", Name: "traefik", Err: base}, want: "IngressClass traefik: boom"},
		{err: &ObjectError{Kind: "IngressClass", Name: "traefik", Field: "spec.controller", Severity: SeverityWarning, Err: base}, want: "IngressClass traefik: spec.controller: boom"},
		{err: &ObjectError{Kind: "EndpointSlice", Namespace: "ns", Name: "s-1", Field: "endpoints[3].addresses[0]", Err: fmt.Errorf("wrapped: %w", base)},
			want: "EndpointSlice ns/s-1: endpoints[3].addresses[0]: wrapped: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.err.Error())
			assert.ErrorIs(t, tc.err, base)
		})
	}
}

// TestTranslateErrorsSortedNaturally: the problems of one slice keep the
// order Select gives them, indices compared as numbers (addresses[2] before
// addresses[10]), as the errors of a fixture with many bad addresses show
// (fixtures/hostile-addresses/errors.txt).
func TestTranslateErrorsSortedNaturally(t *testing.T) {
	svc, slice := webServiceAndSlice()
	for i := range 11 {
		slice.Endpoints[0].Addresses = append(slice.Endpoints[0].Addresses, fmt.Sprintf("bad-%d", i))
	}
	ing := &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "default"},
		Spec: netv1.IngressSpec{DefaultBackend: &netv1.IngressBackend{
			Service: &netv1.IngressServiceBackend{Name: "web", Port: netv1.ServiceBackendPort{Number: 80}},
		}},
	}
	opts := &Provider{}
	opts.SetDefaults()
	res := Translate(testobjects.NewSnapshot(svc, slice, ing), opts)
	var fields []string
	for _, e := range res.Errors {
		if e.Kind == "EndpointSlice" {
			fields = append(fields, e.Field)
		}
	}
	require.Len(t, fields, 11)
	for i, f := range fields {
		assert.Equal(t, fmt.Sprintf("endpoints[0].addresses[%d]", i+1), f)
	}
}
