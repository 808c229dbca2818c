package attach

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// maxRouteParents is the most entries RouteStatus.Parents may hold.
const maxRouteParents = 32

// ClassStatus returns the GatewayClass status to write: the existing one
// with the class's computed conditions merged in at now. Fields this package
// does not compute (supportedFeatures) are kept.
func ClassStatus(existing gatewayv1.GatewayClassStatus, class Class, now metav1.Time) gatewayv1.GatewayClassStatus {
	out := *existing.DeepCopy()
	out.Conditions = MergeConditions(existing.Conditions, class.Conditions, classConditionTypes, now)
	return out
}

// GatewayStatus returns the Gateway status to write: addresses, the
// Gateway's conditions merged into the existing ones, and one entry per
// listener in spec order, each merged with the existing entry of that name.
// Entries of listeners no longer in the spec are dropped: the Gateway is
// wholly ours.
func GatewayStatus(existing gatewayv1.GatewayStatus, gw Gateway, now metav1.Time) gatewayv1.GatewayStatus {
	out := gatewayv1.GatewayStatus{
		Conditions: MergeConditions(existing.Conditions, gw.Conditions, gatewayConditionTypes, now),
	}
	for _, a := range gw.Addresses {
		out.Addresses = append(out.Addresses, *a.DeepCopy())
	}
	for _, l := range gw.Listeners {
		var old []metav1.Condition
		for _, e := range existing.Listeners {
			if e.Name == l.Name {
				old = e.Conditions
				break
			}
		}
		kinds := make([]gatewayv1.RouteGroupKind, len(l.SupportedKinds))
		for i, k := range l.SupportedKinds {
			kinds[i] = *k.DeepCopy()
		}
		out.Listeners = append(out.Listeners, gatewayv1.ListenerStatus{
			Name:           l.Name,
			SupportedKinds: kinds,
			AttachedRoutes: l.AttachedRoutes,
			Conditions:     MergeConditions(old, l.Conditions, listenerConditionTypes, now),
		})
	}
	return out
}

// RouteStatus returns the route status to write. Entries written by other
// controllers are kept as they are, first and in their order; ours follow,
// one per parent of att in spec order, each merged with our existing entry
// for the same parentRef. Our entries for parents no longer named, or no
// longer ours, are removed. Every parent carries the route's ResolvedRefs
// from refs (a BackendCheck from CheckBackends; the zero value counts as a
// route without backendRefs). The list is cut at the API's limit of 32,
// other controllers' entries first.
func RouteStatus(existing gatewayv1.RouteStatus, att RouteAttachment, refs BackendCheck,
	controller gatewayv1.GatewayController, now metav1.Time,
) gatewayv1.RouteStatus {
	if refs.Reason == "" {
		refs = CheckBackends(att.Route, nil, Lookups{})
	}
	out := gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{}}
	for _, e := range existing.Parents {
		if e.ControllerName != controller && len(out.Parents) < maxRouteParents {
			out.Parents = append(out.Parents, *e.DeepCopy())
		}
	}
	for _, p := range att.Parents {
		if len(out.Parents) == maxRouteParents {
			break
		}
		var old []metav1.Condition
		for _, e := range existing.Parents {
			if e.ControllerName == controller && sameParentRef(e.ParentRef, p.ParentRef, att.Route.Namespace) {
				old = e.Conditions
				break
			}
		}
		out.Parents = append(out.Parents, gatewayv1.RouteParentStatus{
			ParentRef:      *p.ParentRef.DeepCopy(),
			ControllerName: controller,
			Conditions:     MergeConditions(old, parentConditions(p, refs, att.Route.Generation), routeConditionTypes, now),
		})
	}
	return out
}

// parentConditions are one parent's computed conditions.
func parentConditions(p ParentAttachment, refs BackendCheck, generation int64) []metav1.Condition {
	conds := []metav1.Condition{
		newCondition(string(gatewayv1.RouteConditionAccepted), p.Accepted, p.Reason, p.Message, generation),
		refs.condition(generation),
	}
	if p.Accepted && p.PartiallyInvalid != "" {
		conds = append(conds, newCondition(string(gatewayv1.RouteConditionPartiallyInvalid), true,
			p.partialReason, p.PartiallyInvalid, generation))
	}
	return sortConditions(conds)
}

// sameParentRef compares two parentRefs of a route in routeNamespace with
// their defaults applied, so an entry written with explicit defaults matches
// a spec that leaves them out.
func sameParentRef(a, b gatewayv1.ParentReference, routeNamespace string) bool {
	deref := func(s *string, def string) string {
		if s == nil || *s == "" {
			return def
		}
		return *s
	}
	group := func(r gatewayv1.ParentReference) string {
		if r.Group == nil {
			return string(GroupGateway)
		}
		return string(*r.Group)
	}
	kind := func(r gatewayv1.ParentReference) string { return deref((*string)(r.Kind), string(KindGateway)) }
	ns := func(r gatewayv1.ParentReference) string { return deref((*string)(r.Namespace), routeNamespace) }
	section := func(r gatewayv1.ParentReference) string { return deref((*string)(r.SectionName), "") }
	port := func(r gatewayv1.ParentReference) int32 {
		if r.Port == nil {
			return 0
		}
		return *r.Port
	}
	return group(a) == group(b) && kind(a) == kind(b) && ns(a) == ns(b) && a.Name == b.Name &&
		section(a) == section(b) && port(a) == port(b)
}
