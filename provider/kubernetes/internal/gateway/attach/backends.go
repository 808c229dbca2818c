package attach

import (
	"fmt"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Backend is one backendRef after resolution.
type Backend struct {
	// Namespace, Name and Port name the referent; Port is 0 when the
	// reference has none.
	Namespace string
	Name      string
	Port      int32
	// Weight is the reference's weight, 1 when unset.
	Weight int32
	// AppProtocol and PortName are the Service port's appProtocol and
	// name, once it is found.
	AppProtocol string
	PortName    string
	// Usable is true when traffic may be forwarded to it; otherwise Reason
	// and Message say why.
	Usable  bool
	Reason  gatewayv1.RouteConditionReason
	Message string
}

// RuleBackends is one rule's backendRefs after resolution.
type RuleBackends struct {
	// Backends are in spec order, usable or not.
	Backends []Backend
	// UsableWeight and UnusableWeight are the sums of the weights of the
	// usable and unusable backends. The API requires the share of traffic
	// that would have gone to unusable backends, UnusableWeight out of
	// UsableWeight+UnusableWeight, to be answered with an error status
	// instead (BackendCheck.ErrorStatus): a weighted service whose members
	// are the usable backends with their weights plus one member answering
	// ErrorStatus with weight UnusableWeight. A rule whose backends are all
	// unusable answers ErrorStatus to all its traffic.
	UsableWeight   int64
	UnusableWeight int64
	// Mirrors are the rule's RequestMirror backends (CheckMirrors), by
	// the filter's field path, e.g. spec.rules[0].filters[1].requestMirror.
	Mirrors map[string]Backend
}

// BackendCheck is the resolution of a route's backendRefs.
type BackendCheck struct {
	// ResolvedRefs, Reason and Message make the route's ResolvedRefs
	// condition, the same on every parent: True when every reference is
	// usable, else False with the first unusable one's reason and every
	// problem in the message.
	ResolvedRefs bool
	Reason       gatewayv1.RouteConditionReason
	Message      string
	// Rules are in spec order.
	Rules []RuleBackends
	// ErrorStatus is the HTTP status for the unusable share: 500 for
	// HTTPRoute as the API says; for GRPCRoute the API asks for gRPC status
	// UNAVAILABLE, which gRPC clients derive from HTTP 503.
	ErrorStatus int

	problems []string // of Message
}

// appProtocols lists, for each route kind, the Service port appProtocol
// values (lower case) its traffic can be sent to: the Kubernetes standard
// ones (KEP-3726) and the common plain names. gRPC needs HTTP/2, so
// WebSocket ports and plain "http" (HTTP/1.1) cannot take a GRPCRoute. Route
// kinds not listed are not checked.
var appProtocols = map[gatewayv1.Kind][]string{
	KindHTTPRoute: {"", "http", "https", "h2c", "kubernetes.io/h2c", "kubernetes.io/ws", "kubernetes.io/wss"},
	KindGRPCRoute: {"", "https", "h2c", "grpc", "kubernetes.io/h2c"},
}

// HTTPRouteBackendRefs returns each rule's backendRefs of an HTTPRoute, for
// CheckBackends.
func HTTPRouteBackendRefs(r *gatewayv1.HTTPRoute) [][]gatewayv1.BackendRef {
	rules := make([][]gatewayv1.BackendRef, len(r.Spec.Rules))
	for i, rule := range r.Spec.Rules {
		for _, b := range rule.BackendRefs {
			rules[i] = append(rules[i], b.BackendRef)
		}
	}
	return rules
}

// GRPCRouteBackendRefs returns each rule's backendRefs of a GRPCRoute.
func GRPCRouteBackendRefs(r *gatewayv1.GRPCRoute) [][]gatewayv1.BackendRef {
	rules := make([][]gatewayv1.BackendRef, len(r.Spec.Rules))
	for i, rule := range r.Spec.Rules {
		for _, b := range rule.BackendRefs {
			rules[i] = append(rules[i], b.BackendRef)
		}
	}
	return rules
}

// CheckBackends resolves every backendRef of route, rules[i] holding rule
// i's references, and returns the route's ResolvedRefs verdict and what each
// rule can forward to.
func CheckBackends(route Route, rules [][]gatewayv1.BackendRef, look Lookups) BackendCheck {
	check := BackendCheck{ResolvedRefs: true, Reason: gatewayv1.RouteReasonResolvedRefs,
		Message: "all references are resolved", ErrorStatus: ErrorStatus(route.Kind)}
	for i, refs := range rules {
		var rb RuleBackends
		for j, ref := range refs {
			b := CheckBackendRef(route, ref.BackendObjectReference, look)
			b.Weight = 1
			if ref.Weight != nil {
				b.Weight = *ref.Weight
			}
			if b.Usable {
				rb.UsableWeight += int64(b.Weight)
			} else {
				rb.UnusableWeight += int64(b.Weight)
				check.unresolved(b, fmt.Sprintf("spec.rules[%d].backendRefs[%d]", i, j))
			}
			rb.Backends = append(rb.Backends, b)
		}
		check.Rules = append(check.Rules, rb)
	}
	return check
}

// unresolved files the problem of b, the reference at field: the first
// one decides the reason.
func (c *BackendCheck) unresolved(b Backend, field string) {
	if c.ResolvedRefs {
		c.ResolvedRefs, c.Reason = false, b.Reason
	}
	c.problems = append(c.problems, field+": "+b.Message)
	c.Message = problemList(c.problems)
}

// Unresolved files a reference beside the backendRefs that the route's
// translation cannot follow (an ExtensionRef filter sliceway has no
// extension for), at field, with the reason and message of the route's
// ResolvedRefs condition, which turns False; the first problem decides
// the reason.
func (c *BackendCheck) Unresolved(field string, reason gatewayv1.RouteConditionReason, message string) {
	c.unresolved(Backend{Reason: reason, Message: message}, field)
}

// ErrorStatus returns the HTTP status that answers traffic meant for an
// unusable backend of a route of kind.
func ErrorStatus(kind gatewayv1.Kind) int {
	if kind == KindGRPCRoute {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// CheckBackendRef resolves one backend reference of route; it also serves
// references outside backendRefs, such as a mirror filter's. The checks run
// in this order, the first failure deciding the reason:
//
//  1. the referent must be a core Service (InvalidKind);
//  2. in another namespace, a ReferenceGrant there must allow the route
//     (RefNotPermitted), checked before existence so that a route cannot
//     probe for Services it may not use;
//  3. it must have a port, and the Service must exist and have that port
//     (BackendNotFound);
//  4. the port's appProtocol must suit the route's kind (UnsupportedProtocol).
//
// The returned Backend's Weight is left 0; CheckBackends fills it.
func CheckBackendRef(route Route, ref gatewayv1.BackendObjectReference, look Lookups) Backend {
	group, kind := gatewayv1.Group(""), KindService
	if ref.Group != nil {
		group = *ref.Group
	}
	if ref.Kind != nil {
		kind = *ref.Kind
	}
	b := Backend{Namespace: route.Namespace, Name: string(ref.Name)}
	if ref.Namespace != nil && *ref.Namespace != "" {
		b.Namespace = string(*ref.Namespace)
	}
	if ref.Port != nil {
		b.Port = *ref.Port
	}
	if group != "" || kind != KindService {
		return b.unusable(gatewayv1.RouteReasonInvalidKind,
			fmt.Sprintf("%s %s/%s: kind is not supported; only core Services are", groupKind(group, kind), b.Namespace, b.Name))
	}
	from := ReferenceFrom{Group: GroupGateway, Kind: route.Kind, Namespace: route.Namespace}
	to := ReferenceTo{Group: "", Kind: KindService, Namespace: b.Namespace, Name: b.Name}
	if !look.referencePermitted(from, to) {
		return b.unusable(gatewayv1.RouteReasonRefNotPermitted,
			fmt.Sprintf("Service %s/%s is in another namespace and no ReferenceGrant there allows %ss from %s to use it",
				b.Namespace, b.Name, route.Kind, route.Namespace))
	}
	if ref.Port == nil {
		return b.unusable(gatewayv1.RouteReasonBackendNotFound,
			fmt.Sprintf("Service %s/%s: port is required", b.Namespace, b.Name))
	}
	var svc Service
	found := false
	if look.Service != nil {
		svc, found = look.Service(b.Namespace, b.Name)
	}
	if !found {
		return b.unusable(gatewayv1.RouteReasonBackendNotFound, fmt.Sprintf("Service %s/%s not found", b.Namespace, b.Name))
	}
	var port *ServicePort
	for i := range svc.Ports {
		if svc.Ports[i].Port == b.Port {
			port = &svc.Ports[i]
			break
		}
	}
	if port == nil {
		return b.unusable(gatewayv1.RouteReasonBackendNotFound,
			fmt.Sprintf("Service %s/%s has no port %d", b.Namespace, b.Name, b.Port))
	}
	if allowed, checked := appProtocols[route.Kind]; checked && !contains(allowed, strings.ToLower(port.AppProtocol)) {
		return b.unusable(gatewayv1.RouteReasonUnsupportedProtocol,
			fmt.Sprintf("Service %s/%s port %d: appProtocol %q cannot carry a %s", b.Namespace, b.Name, b.Port, port.AppProtocol, route.Kind))
	}
	b.Usable, b.AppProtocol, b.PortName = true, port.AppProtocol, port.Name
	return b
}

func (b Backend) unusable(reason gatewayv1.RouteConditionReason, message string) Backend {
	b.Usable, b.Reason, b.Message = false, reason, message
	return b
}

// condition returns the ResolvedRefs condition observed at generation.
func (c BackendCheck) condition(generation int64) metav1.Condition {
	return newCondition(string(gatewayv1.RouteConditionResolvedRefs), c.ResolvedRefs, c.Reason, c.Message, generation)
}
