package manifests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewayManifest has each Gateway API kind the front end reads, in v1
// and in the older versions read as v1, beside a Service.
const gatewayManifest = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: sliceway
spec:
  controllerName: sliceway.io/gateway-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
spec:
  gatewayClassName: sliceway
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: Selector
        selector:
          matchLabels:
            team: shop
status:
  listeners:
  - name: http
    attachedRoutes: 1
    supportedKinds: []
    conditions: []
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: web
spec:
  parentRefs:
  - name: edge
    namespace: infra
  hostnames: ["web.example"]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /}
    backendRefs:
    - name: web
      port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata:
  name: greeter
  namespace: shop
spec:
  parentRefs: [{name: edge, namespace: infra}]
  rules:
  - matches:
    - method: {service: helloworld.Greeter}
    backendRefs: [{name: greeter, port: 50051}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata:
  name: from-shop
  namespace: backends
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]
  to: [{group: "", kind: Service}]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: HTTPRoute
metadata:
  name: legacy
  namespace: shop
spec:
  hostnames: ["legacy.example"]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata:
  name: old-grant
  namespace: backends
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]
  to: [{group: "", kind: Service}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: GRPCRoute
metadata:
  name: old-greeter
  namespace: shop
spec:
  hostnames: ["grpc.example"]
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
`

// TestDecodeGatewayKinds: with the Gateway front end on, the Gateway API
// kinds are read, as v1 whatever version they were written in; with it
// off, they are skipped with a warning, as any kind nobody reads.
func TestDecodeGatewayKinds(t *testing.T) {
	t.Run("the Gateway front end on", func(t *testing.T) {
		objs, problems := Decode("g.yaml", []byte(gatewayManifest), WantedKinds(true))
		require.Empty(t, problemLines(problems))
		assert.Equal(t, []string{
			"GatewayClass /sliceway @1",
			"Gateway infra/edge @2",
			"HTTPRoute /web @3",
			"GRPCRoute shop/greeter @4",
			"ReferenceGrant backends/from-shop @5",
			"HTTPRoute shop/legacy @6",
			"ReferenceGrant backends/old-grant @7",
			"GRPCRoute shop/old-greeter @8",
			"Service /web @9",
		}, objRefs(t, objs))
		for _, o := range objs[:8] {
			assert.Equal(t, gatewayv1.GroupVersion.String(), o.Object.GetObjectKind().GroupVersionKind().GroupVersion().String(), "%s", o.Source())
		}
		gw := objs[1].Object.(*gatewayv1.Gateway)
		assert.Equal(t, gatewayv1.NamespacesFromSelector, *gw.Spec.Listeners[0].AllowedRoutes.Namespaces.From)
		assert.Equal(t, int32(1), gw.Status.Listeners[0].AttachedRoutes, "the status is read as written")
		legacy := objs[5].Object.(*gatewayv1.HTTPRoute)
		assert.Equal(t, []gatewayv1.Hostname{"legacy.example"}, legacy.Spec.Hostnames)
		assert.IsType(t, &gatewayv1.ReferenceGrant{}, objs[6].Object)
		assert.IsType(t, &gatewayv1.GRPCRoute{}, objs[7].Object)
	})
	t.Run("the Ingress providers alone", func(t *testing.T) {
		objs, problems := Decode("g.yaml", []byte(gatewayManifest), WantedKinds(false))
		assert.Equal(t, []string{"Service /web @9"}, objRefs(t, objs))
		require.Len(t, problems, 8)
		for _, p := range problems {
			assert.True(t, p.Warning, p.Error())
			assert.Contains(t, p.Error(), "is not used, skipped")
		}
		assert.Equal(t, "g.yaml: document 3: gateway.networking.k8s.io/v1 HTTPRoute is not used, skipped", problems[2].Error())
	})
}

// TestDecodeGatewayKindsRefused: a Gateway API object that cannot be read
// is an error naming its document and what is wrong; a Gateway API kind
// the front end does not read is a warning, as any other kind.
func TestDecodeGatewayKindsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      string
		warning   bool
	}{
		{"a version that is not read as v1",
			"apiVersion: gateway.networking.k8s.io/v1alpha1\nkind: HTTPRoute\nmetadata:\n  name: web\n",
			"x.yaml: document 2: gateway.networking.k8s.io/v1alpha1 HTTPRoute: this version is not read; write it as gateway.networking.k8s.io/v1 (read: gateway.networking.k8s.io/v1, gateway.networking.k8s.io/v1beta1)", false},
		{"GRPCRoute of v1beta1, which never existed",
			"apiVersion: gateway.networking.k8s.io/v1beta1\nkind: GRPCRoute\nmetadata:\n  name: g\n",
			"x.yaml: document 2: gateway.networking.k8s.io/v1beta1 GRPCRoute: this version is not read; write it as gateway.networking.k8s.io/v1 (read: gateway.networking.k8s.io/v1, gateway.networking.k8s.io/v1alpha2)", false},
		{"no name",
			"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  namespace: shop\n",
			"x.yaml: document 2: HTTPRoute: metadata.name is required", false},
		{"a field of the wrong type",
			"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\nspec:\n  hostnames: web.example\n",
			"x.yaml: document 2: gateway.networking.k8s.io/v1 HTTPRoute: ", false},
		{"a Gateway API kind nobody reads",
			"apiVersion: gateway.networking.k8s.io/v1\nkind: TLSRoute\nmetadata:\n  name: t\n",
			"x.yaml: document 2: gateway.networking.k8s.io/v1 TLSRoute is not used, skipped", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, problems := Decode("x.yaml", []byte(svcDoc("web")+"---\n"+tc.doc), WantedKinds(true))
			assert.Equal(t, []string{"Service /web @1"}, objRefs(t, objs), "the other documents are read")
			require.Len(t, problems, 1, "%q", problemLines(problems))
			assert.Equal(t, tc.warning, problems[0].Warning)
			assert.True(t, strings.HasPrefix(problems[0].Error(), tc.want), "%q", problems[0].Error())
		})
	}
	t.Run("the wrong type names the field", func(t *testing.T) {
		_, problems := Decode("x.yaml", []byte("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\nspec:\n  hostnames: web.example\n"), WantedKinds(true))
		require.Len(t, problems, 1)
		assert.Contains(t, problems[0].Error(), "hostnames")
	})
}

// TestOlderGatewayVersionsAreRead: every older version said to be read is
// one the scheme decodes and asGatewayV1 turns into its v1 kind.
func TestOlderGatewayVersionsAreRead(t *testing.T) {
	for _, gvk := range olderGatewayVersions {
		t.Run(gvk.String(), func(t *testing.T) {
			require.True(t, IsGatewayKind(gvk))
			obj, err := decodingScheme.New(gvk)
			require.NoError(t, err)
			v1, ok := asGatewayV1(obj)
			require.True(t, ok)
			want := gatewayV1.WithKind(gvk.Kind)
			assert.Equal(t, want, v1.GetObjectKind().GroupVersionKind())
			kinds, _, err := decodingScheme.ObjectKinds(v1)
			require.NoError(t, err)
			assert.Contains(t, kinds, want, "the Go type is the v1 one")
		})
	}
}

func TestWantedKinds(t *testing.T) {
	httpRoute := gatewayV1.WithKind("HTTPRoute")
	service := schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	for _, tc := range []struct {
		gvk                 schema.GroupVersionKind
		ingress, withGatway bool
	}{
		{service, true, true},
		{httpRoute, false, true},
		{gatewayV1.WithKind("GatewayClass"), false, true},
		{gatewayV1.WithKind("ReferenceGrant"), false, true},
		// Wanted, so that the decoder says the version is not read.
		{schema.GroupVersionKind{Group: gatewayv1.GroupName, Version: "v1alpha1", Kind: "HTTPRoute"}, false, true},
		{gatewayV1.WithKind("TLSRoute"), false, false},
		{gatewayV1.WithKind("BackendTLSPolicy"), false, true},
		{schema.GroupVersionKind{Group: "gateway.networking.x-k8s.io", Version: "v1alpha1", Kind: "HTTPRoute"}, false, false},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, false, false},
	} {
		assert.Equal(t, tc.ingress, WantedKinds(false)(tc.gvk), "%v without the Gateway front end", tc.gvk)
		assert.Equal(t, tc.ingress, IsUsedKind(tc.gvk), "%v", tc.gvk)
		assert.Equal(t, tc.withGatway, WantedKinds(true)(tc.gvk), "%v with the Gateway front end", tc.gvk)
	}
}
