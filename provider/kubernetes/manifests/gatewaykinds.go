package manifests

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayv1alpha2 "sigs.k8s.io/gateway-api/apis/v1alpha2"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	gatewayscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// The group versions of the Gateway API that manifests may be written in
// (gateway-api's own SchemeGroupVersion variables are deprecated).
var (
	gatewayV1       = schema.GroupVersion{Group: gatewayv1.GroupName, Version: "v1"}
	gatewayV1beta1  = schema.GroupVersion{Group: gatewayv1.GroupName, Version: "v1beta1"}
	gatewayV1alpha2 = schema.GroupVersion{Group: gatewayv1.GroupName, Version: "v1alpha2"}
)

// GatewayKinds are the Gateway API kinds the Gateway front end reads, as
// the cluster stores them: gateway.networking.k8s.io/v1. The Ingress
// providers read none of them: UsedKinds does not list them, and
// IsUsedKind skips them with a warning. WantedKinds(true) reads both.
var GatewayKinds = []schema.GroupVersionKind{
	gatewayV1.WithKind("GatewayClass"),
	gatewayV1.WithKind("Gateway"),
	gatewayV1.WithKind("HTTPRoute"),
	gatewayV1.WithKind("GRPCRoute"),
	gatewayV1.WithKind("ReferenceGrant"),
	gatewayV1.WithKind("BackendTLSPolicy"),
}

// IsGatewayKind says whether gvk is one of GatewayKinds, in any version of
// the Gateway API group: an older version is read as v1 when it can be
// (olderGatewayVersions) and refused with an error naming the versions
// read when it cannot, rather than skipped as a kind nobody reads.
func IsGatewayKind(gvk schema.GroupVersionKind) bool {
	return gvk.Group == gatewayv1.GroupName && slices.ContainsFunc(GatewayKinds, func(k schema.GroupVersionKind) bool { return k.Kind == gvk.Kind })
}

// WantedKinds is the wanted function of Read, Decode and NewSet for the
// front ends that run: IsUsedKind for the Ingress providers alone, and
// with the Gateway front end (gatewayFrontEnd) the Gateway API kinds too,
// so that a manifest of HTTPRoutes is read rather than warned about.
func WantedKinds(gatewayFrontEnd bool) func(schema.GroupVersionKind) bool {
	if !gatewayFrontEnd {
		return IsUsedKind
	}
	return func(gvk schema.GroupVersionKind) bool { return IsUsedKind(gvk) || IsGatewayKind(gvk) }
}

// decodingScheme knows the kinds of client-go's clientset and those of the
// Gateway API's, so that one decoder reads a manifest that mixes them.
var decodingScheme = newDecodingScheme()

func newDecodingScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(gatewayscheme.AddToScheme(s))
	return s
}

// manifestDecoder decodes the kinds of decodingScheme without converting
// or defaulting: the objects as they are given.
var manifestDecoder = serializer.NewCodecFactory(decodingScheme).UniversalDeserializer()

// gatewayResources are the resources of GatewayKinds, which
// meta.UnsafeGuessKindToResource gets wrong for Gateway ("gatewaies").
var gatewayResources = map[string]string{
	"GatewayClass":     "gatewayclasses",
	"Gateway":          "gateways",
	"HTTPRoute":        "httproutes",
	"GRPCRoute":        "grpcroutes",
	"ReferenceGrant":   "referencegrants",
	"BackendTLSPolicy": "backendtlspolicies",
}

// resourceOf is the resource that serves objects of gvk: the Gateway API
// kinds' from gatewayResources, the others' as the API server's
// conventions give it (the kinds of client-go all follow them).
func resourceOf(gvk schema.GroupVersionKind) schema.GroupVersionResource {
	if r, ok := gatewayResources[gvk.Kind]; ok && isGatewayGroup(gvk.Group) {
		return gvk.GroupVersion().WithResource(r)
	}
	resource, _ := meta.UnsafeGuessKindToResource(gvk)
	return resource
}

// isGatewayGroup says whether objects of the resource belong in the
// cluster's Gateway API clientset.
func isGatewayGroup(group string) bool { return group == gatewayv1.GroupName }

// olderGatewayVersions are the versions of the kinds in GatewayKinds
// besides v1 that asGatewayV1 reads as v1: those the gateway-api module
// still defines.
var olderGatewayVersions = []schema.GroupVersionKind{
	gatewayV1beta1.WithKind("GatewayClass"),
	gatewayV1beta1.WithKind("Gateway"),
	gatewayV1beta1.WithKind("HTTPRoute"),
	gatewayV1beta1.WithKind("ReferenceGrant"),
	gatewayV1alpha2.WithKind("GRPCRoute"),
	gatewayV1alpha2.WithKind("ReferenceGrant"),
}

// checkGatewayVersion refuses a kind of GatewayKinds in a version that is
// neither v1 nor one of olderGatewayVersions, naming those that are read.
func checkGatewayVersion(gvk schema.GroupVersionKind) error {
	if !IsGatewayKind(gvk) || gvk.Version == gatewayV1.Version || slices.Contains(olderGatewayVersions, gvk) {
		return nil
	}
	read := []string{gatewayV1.String()}
	for _, older := range olderGatewayVersions {
		if older.Kind == gvk.Kind {
			read = append(read, older.GroupVersion().String())
		}
	}
	return fmt.Errorf("%s %s: this version is not read; write it as %s (read: %s)",
		excerpt.Text(gvk.GroupVersion().String()), excerpt.Text(gvk.Kind), gatewayV1, strings.Join(read, ", "))
}

// asGatewayV1 reads an object of one of olderGatewayVersions as its v1
// object; ok is false for any other object, which it returns as it is.
// The older types are defined on the v1 ones (type HTTPRoute
// v1.HTTPRoute): their fields are the same, and the API server serves
// these CRDs without a conversion webhook (conversion strategy None),
// changing only the apiVersion. So does this.
func asGatewayV1(obj runtime.Object) (out runtime.Object, ok bool) {
	var kind string
	switch o := obj.(type) {
	case *gatewayv1beta1.GatewayClass:
		out, kind = (*gatewayv1.GatewayClass)(o), "GatewayClass"
	case *gatewayv1beta1.Gateway:
		out, kind = (*gatewayv1.Gateway)(o), "Gateway"
	case *gatewayv1beta1.HTTPRoute:
		out, kind = (*gatewayv1.HTTPRoute)(o), "HTTPRoute"
	case *gatewayv1beta1.ReferenceGrant:
		out, kind = (*gatewayv1.ReferenceGrant)(o), "ReferenceGrant"
	case *gatewayv1alpha2.GRPCRoute:
		out, kind = (*gatewayv1.GRPCRoute)(o), "GRPCRoute"
	case *gatewayv1alpha2.ReferenceGrant:
		out, kind = (*gatewayv1.ReferenceGrant)(o), "ReferenceGrant"
	default:
		return obj, false
	}
	out.GetObjectKind().SetGroupVersionKind(gatewayV1.WithKind(kind))
	return out, true
}
