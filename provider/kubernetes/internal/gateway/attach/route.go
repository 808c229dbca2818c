package attach

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Route is what attachment needs of a route, whatever its kind: who it is,
// the hostnames it asks for and the parents it names. Every route kind of
// the Gateway API group fits it; HTTPRoute and GRPCRoute have constructors.
type Route struct {
	Kind       gatewayv1.Kind
	Namespace  string
	Name       string
	Generation int64
	// CreationTimestamp orders routes when two kinds claim one hostname
	// (ResolveKindConflicts).
	CreationTimestamp metav1.Time
	Hostnames         []gatewayv1.Hostname
	ParentRefs        []gatewayv1.ParentReference
}

// RouteFromHTTP returns the view of an HTTPRoute. It shares the route's
// slices, which attachment never modifies.
func RouteFromHTTP(r *gatewayv1.HTTPRoute) Route {
	return Route{
		Kind: KindHTTPRoute, Namespace: r.Namespace, Name: r.Name, Generation: r.Generation,
		CreationTimestamp: r.CreationTimestamp, Hostnames: r.Spec.Hostnames, ParentRefs: r.Spec.ParentRefs,
	}
}

// RouteFromGRPC returns the view of a GRPCRoute.
func RouteFromGRPC(r *gatewayv1.GRPCRoute) Route {
	return Route{
		Kind: KindGRPCRoute, Namespace: r.Namespace, Name: r.Name, Generation: r.Generation,
		CreationTimestamp: r.CreationTimestamp, Hostnames: r.Spec.Hostnames, ParentRefs: r.Spec.ParentRefs,
	}
}

// String names the route as messages do: Kind namespace/name.
func (r Route) String() string {
	return string(r.Kind) + " " + r.Namespace + "/" + r.Name
}

// before orders routes by age, then by namespace/name, then by kind: the
// API's precedence for routes that compete.
func (r Route) before(o Route) bool {
	if !r.CreationTimestamp.Equal(&o.CreationTimestamp) {
		return r.CreationTimestamp.Before(&o.CreationTimestamp)
	}
	if r.Namespace != o.Namespace {
		return r.Namespace < o.Namespace
	}
	if r.Name != o.Name {
		return r.Name < o.Name
	}
	return r.Kind < o.Kind
}
