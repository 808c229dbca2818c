package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/testobjects"
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
