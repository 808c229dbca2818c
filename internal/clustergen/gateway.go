package clustergen

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayClassName is the GatewayClass of the generated Gateway API
// objects; its controllerName is sliceway's default one. A benchmark of
// another implementation sets its own on the object it reads.
const GatewayClassName = "sliceway"

// gatewayControllerName is sliceway's default controllerName (the Gateway
// provider's option), which this package does not import.
const gatewayControllerName = "sliceway.io/gateway-controller"

// Gateway builds the Gateway API objects of a cluster of services
// services: a GatewayClass, one Gateway in Namespace with an HTTP listener
// on port 80, and for each service an HTTPRoute of its own host
// (<name>.example.com), one PathPrefix "/" rule to its Service's port 80,
// created when the service's other objects were.
func Gateway(services int) []runtime.Object {
	objs := make([]runtime.Object, 0, services+2)
	objs = append(objs,
		&gatewayv1.GatewayClass{TypeMeta: gatewayType("GatewayClass"), ObjectMeta: metav1.ObjectMeta{Name: GatewayClassName},
			Spec: gatewayv1.GatewayClassSpec{ControllerName: gatewayControllerName}},
		&gatewayv1.Gateway{TypeMeta: gatewayType("Gateway"), ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: "edge"},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: GatewayClassName,
				Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}}}})
	port := gatewayv1.PortNumber(80)
	prefix, root := gatewayv1.PathMatchPathPrefix, "/"
	for i := range services {
		name := Name(i)
		objs = append(objs, &gatewayv1.HTTPRoute{
			TypeMeta:   gatewayType("HTTPRoute"),
			ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, CreationTimestamp: Created(i)},
			Spec: gatewayv1.HTTPRouteSpec{
				CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge"}}},
				Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(name + ".example.com")},
				Rules: []gatewayv1.HTTPRouteRule{{
					Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: &prefix, Value: &root}}},
					BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
						BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(name), Port: &port}}}},
				}},
			},
		})
	}
	return objs
}

// WithoutIngresses is objs without its Ingresses and IngressClasses: the
// cluster of a Gateway API user, whose routes replace them.
func WithoutIngresses(objs []runtime.Object) []runtime.Object {
	out := objs[:0:0]
	for _, o := range objs {
		switch o.GetObjectKind().GroupVersionKind().Kind {
		case "Ingress", "IngressClass":
			continue
		}
		out = append(out, o)
	}
	return out
}

func gatewayType(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: kind}
}
