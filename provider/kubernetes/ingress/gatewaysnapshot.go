package ingress

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewaySnapshot is what a Snapshot holds of the Gateway API when the
// client watches it (ClientOptions.Gateway): the objects the Gateway front
// end reads.
//
// It is an optional interface beside Snapshot, which stays as it is for
// those who implement it: the client's snapshot implements it exactly when
// the client watches the Gateway API, so that a type assertion tells a
// snapshot without Gateway API objects from one that does not watch them.
// Like Snapshot it is read-only: the objects are the informers' and must
// not be modified. Lists are in no particular order; the objects keep
// their status (the status writer merges its conditions into it), and
// have lost their managedFields (k8s.Keep.Transform).
type GatewaySnapshot interface {
	// GatewayClasses returns all GatewayClasses (cluster-scoped).
	GatewayClasses() []*gatewayv1.GatewayClass
	// Gateways returns the Gateways of the watched namespaces.
	Gateways() []*gatewayv1.Gateway
	// HTTPRoutes returns the HTTPRoutes of the watched namespaces.
	HTTPRoutes() []*gatewayv1.HTTPRoute
	// GRPCRoutes returns the GRPCRoutes of the watched namespaces.
	GRPCRoutes() []*gatewayv1.GRPCRoute
	// ReferenceGrants returns the ReferenceGrants of the watched
	// namespaces, as v1 (gateway-api v1.6 serves it).
	ReferenceGrants() []*gatewayv1.ReferenceGrant
	// Namespace returns the Namespace name, for the namespace selectors
	// of a listener's allowedRoutes: only its name and labels are kept.
	// nil when there is none.
	Namespace(name string) *corev1.Namespace
}

// gatewayListerSnapshot is the client's snapshot when it watches the
// Gateway API: the listerSnapshot (every optional reader of it included),
// and GatewaySnapshot from the Gateway API informers' listers.
type gatewayListerSnapshot struct{ listerSnapshot }

var _ GatewaySnapshot = gatewayListerSnapshot{}

func (s gatewayListerSnapshot) informers() *gatewayInformers { return s.c.gateway }

func (s gatewayListerSnapshot) GatewayClasses() []*gatewayv1.GatewayClass {
	list, _ := s.informers().classes.List(labels.Everything())
	return list
}

func (s gatewayListerSnapshot) Gateways() []*gatewayv1.Gateway {
	var out []*gatewayv1.Gateway
	for _, ns := range s.informers().spaces {
		list, _ := ns.gateways.List(labels.Everything())
		out = append(out, list...)
	}
	return out
}

func (s gatewayListerSnapshot) HTTPRoutes() []*gatewayv1.HTTPRoute {
	var out []*gatewayv1.HTTPRoute
	for _, ns := range s.informers().spaces {
		list, _ := ns.httpRoutes.List(labels.Everything())
		out = append(out, list...)
	}
	return out
}

func (s gatewayListerSnapshot) GRPCRoutes() []*gatewayv1.GRPCRoute {
	var out []*gatewayv1.GRPCRoute
	for _, ns := range s.informers().spaces {
		list, _ := ns.grpcRoutes.List(labels.Everything())
		out = append(out, list...)
	}
	return out
}

// routeGetter is what an incremental render of the Gateway front end
// needs of a snapshot beyond GatewaySnapshot: one route by name (nil when
// it is gone or not watched).
type routeGetter interface {
	HTTPRoute(namespace, name string) *gatewayv1.HTTPRoute
	GRPCRoute(namespace, name string) *gatewayv1.GRPCRoute
}

func (s gatewayListerSnapshot) HTTPRoute(namespace, name string) *gatewayv1.HTTPRoute {
	if ns := s.space(namespace); ns != nil {
		if r, err := ns.httpRoutes.HTTPRoutes(namespace).Get(name); err == nil {
			return r
		}
	}
	return nil
}

func (s gatewayListerSnapshot) GRPCRoute(namespace, name string) *gatewayv1.GRPCRoute {
	if ns := s.space(namespace); ns != nil {
		if r, err := ns.grpcRoutes.GRPCRoutes(namespace).Get(name); err == nil {
			return r
		}
	}
	return nil
}

// space is the informers of the Gateway API objects of namespace, nil
// when it is not watched.
func (s gatewayListerSnapshot) space(namespace string) *gatewayNamespaceInformers {
	for _, ns := range s.informers().spaces {
		if ns.namespace == metav1.NamespaceAll || ns.namespace == namespace {
			return ns
		}
	}
	return nil
}

func (s gatewayListerSnapshot) ReferenceGrants() []*gatewayv1.ReferenceGrant {
	var out []*gatewayv1.ReferenceGrant
	for _, ns := range s.informers().spaces {
		list, _ := ns.grants.List(labels.Everything())
		out = append(out, list...)
	}
	return out
}

func (s gatewayListerSnapshot) Namespace(name string) *corev1.Namespace {
	ns, err := s.informers().namespaces.Get(name)
	if err != nil {
		return nil
	}
	return ns
}
