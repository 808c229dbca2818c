package translate

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// An ingress-nginx object is refused in each of the three annotations
// that name objects, whatever the suffix, case or spaces around it, and
// wherever it stands in a list; the error names the annotation and the
// object. Names that merely contain nginx, or another provider's
// nginx-... objects, are taken.
func TestNGINXNamesRefused(t *testing.T) {
	tests := []struct {
		desc       string
		annotation string
		value      string
		wantErr    string // "" : accepted
	}{
		{desc: "middleware", annotation: "router.middlewares", value: "nginx_victim-app_basic-auth",
			wantErr: `middleware "nginx_victim-app_basic-auth" names an object of the ingress-nginx provider`},
		{desc: "middleware after another", annotation: "router.middlewares", value: "compress@file, nginx_victim-app_cors",
			wantErr: `middleware "nginx_victim-app_cors" names`},
		{desc: "middleware with the nginx provider's suffix", annotation: "router.middlewares", value: "nginx_a_b@kubernetesingressnginx",
			wantErr: `middleware "nginx_a_b@kubernetesingressnginx" names`},
		{desc: "middleware with the suffix of the provider reading sliceway", annotation: "router.middlewares", value: "nginx_a_b@http",
			wantErr: `middleware "nginx_a_b@http" names`},
		{desc: "middleware in capitals", annotation: "router.middlewares", value: "NGINX_a_b",
			wantErr: `middleware "NGINX_a_b" names`},
		{desc: "TLS option", annotation: "router.tls.options", value: "nginx_secure-example-com_client-cert",
			wantErr: `TLS option "nginx_secure-example-com_client-cert" names an object of the ingress-nginx provider`},
		{desc: "TLS option with a suffix", annotation: "router.tls.options", value: "nginx_x@sliceway",
			wantErr: `TLS option "nginx_x@sliceway" names`},
		{desc: "servers transport", annotation: "service.serverstransport", value: "nginx_victim-app_transport",
			wantErr: `servers transport "nginx_victim-app_transport" names an object of the ingress-nginx provider`},
		{desc: "servers transport in another case, with a suffix", annotation: "service.serversTransport", value: " Nginx_victim-app_transport@file",
			wantErr: `servers transport " Nginx_victim-app_transport@file" names`}, // quoted as written
		{desc: "a CRD middleware of namespace nginx", annotation: "router.middlewares", value: "nginx-auth@kubernetescrd"},
		{desc: "nginx inside a name", annotation: "router.middlewares", value: "my-nginx_auth@file"},
		{desc: "a TLS option named nginx", annotation: "router.tls.options", value: "nginx@file"},
		{desc: "a transport of the CRD provider", annotation: "service.serverstransport", value: "nginx-mtls@kubernetescrd"},
	}
	for _, test := range tests {
		t.Run(test.desc, func(t *testing.T) {
			annotations := oneAnn(test.annotation, test.value)
			var err error
			if test.annotation == "service.serverstransport" || test.annotation == "service.serversTransport" {
				_, err = parseServiceAnnotations(annotations)
			} else {
				_, err = parseRouterAnnotations(annotations)
			}
			if test.wantErr == "" {
				require.NoError(t, err)
				return
			}
			var ae *annotationError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, testobjects.Annotation(test.annotation), ae.Annotation, "the annotation as written")
			assert.ErrorIs(t, err, ErrIngressNGINXObject)
			assert.Contains(t, err.Error(), test.wantErr)
		})
	}
}

func TestCrossProviderNamespacesAllows(t *testing.T) {
	tests := []struct {
		desc    string
		names   []string
		allowed []string
		denied  []string
	}{
		{desc: "unset allows every namespace", names: nil, allowed: []string{"a", "tenant", ""}},
		{desc: "empty allows none", names: []string{}, denied: []string{"a", "tenant", ""}},
		{desc: "a list allows its namespaces only", names: []string{"platform", "ops", "ops"},
			allowed: []string{"platform", "ops"}, denied: []string{"plat", "platform2", "op", "tenant", "", "platform\x00ops"}},
	}
	for _, test := range tests {
		t.Run(test.desc, func(t *testing.T) {
			c := NewCrossProviderNamespaces(test.names)
			for _, ns := range test.allowed {
				assert.True(t, c.Allows(ns), "%q is allowed", ns)
			}
			for _, ns := range test.denied {
				assert.False(t, c.Allows(ns), "%q is denied", ns)
			}
		})
	}
	assert.Equal(t, NewCrossProviderNamespaces([]string{"b", "a"}), NewCrossProviderNamespaces([]string{"a", "b", "a"}),
		"the same namespaces make equal options, so plans made with one are taken with the other")
	assert.NotEqual(t, NewCrossProviderNamespaces(nil), NewCrossProviderNamespaces([]string{}), "unset and empty differ")
}

// crossProviderNamespaces refuses, outside its namespaces, an Ingress
// whose router annotations name another provider's middleware or TLS
// option: it gets no router, and its error names the annotation, the
// object and the namespace.
func TestPlanCrossProviderNamespaces(t *testing.T) {
	tests := []struct {
		desc        string
		namespace   string
		annotations map[string]string
		wantField   string // "": planned
		wantErr     string
	}{
		{desc: "middleware outside the list", namespace: "tenant", annotations: oneAnn("router.middlewares", "auth@file"),
			wantField: "metadata.annotations[traefik.ingress.kubernetes.io/router.middlewares]",
			wantErr:   `middleware "auth@file": namespace "tenant" is not in crossProviderNamespaces, so its objects may not name another provider's objects (the Ingress is skipped)`},
		{desc: "TLS option outside the list", namespace: "tenant",
			annotations: map[string]string{testobjects.Annotation("router.tls"): "true", testobjects.Annotation("router.tls.options"): "modern@file"},
			wantField:   "metadata.annotations[traefik.ingress.kubernetes.io/router.tls.options]",
			wantErr:     `TLS option "modern@file": namespace "tenant" is not in crossProviderNamespaces`},
		{desc: "middleware in the list", namespace: "platform", annotations: oneAnn("router.middlewares", "auth@file")},
		{desc: "TLS without options outside the list", namespace: "tenant", annotations: oneAnn("router.tls", "true")},
		{desc: "entry points outside the list", namespace: "tenant", annotations: oneAnn("router.entrypoints", "websecure")},
	}
	opts := PlanOptions{MaxOutput: DefaultMaxIngressOutput, CrossProvider: NewCrossProviderNamespaces([]string{"platform"})}
	for _, test := range tests {
		t.Run(test.desc, func(t *testing.T) {
			ing := testobjects.NewIngress(test.namespace, "web", testobjects.WithPath("web.example", "/", "web", 80, ""))
			ing.Annotations = test.annotations
			pl := PlanIngress(ing, opts, nil)
			if test.wantField == "" {
				assert.Empty(t, pl.errs)
				assert.Equal(t, 1, pl.Paths())
				return
			}
			assert.Zero(t, pl.Paths(), "no router")
			require.Len(t, pl.errs, 1)
			e := pl.errs[0]
			assert.Equal(t, "Ingress", e.Kind)
			assert.Equal(t, test.namespace+"/web", e.Namespace+"/"+e.Name)
			assert.Equal(t, test.wantField, e.Field)
			assert.True(t, errors.Is(e, ErrCrossProviderNamespace))
			assert.Contains(t, e.Err.Error(), test.wantErr)
		})
	}
}
