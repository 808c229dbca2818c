package attach

import (
	"fmt"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayLookup returns the processed Gateway namespace/name if it is ours,
// else nil. CountAttachedRoutes later writes into the Gateways it returns.
type GatewayLookup func(namespace, name string) *Gateway

// RouteAttachment is a route's relation to each of our Gateways it names.
type RouteAttachment struct {
	Route Route
	// Parents has one entry per parentRef to a Gateway of ours, in spec
	// order. References to other kinds of parent, to Gateways that do not
	// exist or that belong to other controllers get none: their status is
	// not ours to write.
	Parents []ParentAttachment
}

// ParentAttachment is the route's relation to one parentRef.
type ParentAttachment struct {
	// Index is the parentRef's position in spec.parentRefs.
	Index int
	// ParentRef is the parentRef with group, kind and namespace filled in,
	// as the route's status reports it.
	ParentRef        gatewayv1.ParentReference
	GatewayNamespace string
	GatewayName      string
	// Accepted, Reason and Message make the parent's Accepted condition.
	Accepted bool
	Reason   gatewayv1.RouteConditionReason
	Message  string
	// Listeners are the listeners the route is attached to through this
	// parentRef, in the Gateway's listener order; empty unless Accepted.
	Listeners []ListenerAttachment
	// PartiallyInvalid, when not empty, is the message of the parent's
	// PartiallyInvalid condition (set by ApplyDroppedRules).
	PartiallyInvalid string
	// partialReason is the reason of that condition.
	partialReason gatewayv1.RouteConditionReason
}

// ListenerAttachment is the route attached to one listener.
type ListenerAttachment struct {
	Listener   gatewayv1.SectionName
	EntryPoint string
	// Hostnames are the route's effective hostnames on this listener; nil
	// means every host.
	Hostnames []gatewayv1.Hostname
	// Programmed tells whether the listener is served: the attachment
	// counts either way, as the API asks, but configuration is only built
	// for programmed listeners.
	Programmed bool
}

// AttachRoute decides, for each parentRef of route naming one of our
// Gateways, which of its listeners take the route. A parentRef defaults to
// group gateway.networking.k8s.io, kind Gateway and the route's namespace.
// Its listeners are narrowed in three steps, each with its own reason when
// nothing is left:
//
//  1. sectionName and port, when set, must both match: NoMatchingParent;
//  2. the listener must admit the route's kind (supportedKinds) and
//     namespace (allowedRoutes.namespaces): NotAllowedByListeners;
//  3. the route's hostnames must meet the listener's: NoMatchingListenerHostname.
//
// The route is Accepted by the parent when at least one listener is left.
// Listener and Gateway conditions do not change attachment (the API counts
// attachedRoutes even on refused listeners); ListenerAttachment.Programmed
// says whether configuration should be built.
func AttachRoute(route Route, gateways GatewayLookup, look Lookups) RouteAttachment {
	att := RouteAttachment{Route: route}
	for i, ref := range route.ParentRefs {
		group, kind, namespace := GroupGateway, KindGateway, route.Namespace
		if ref.Group != nil {
			group = *ref.Group
		}
		if ref.Kind != nil {
			kind = *ref.Kind
		}
		if ref.Namespace != nil && *ref.Namespace != "" {
			namespace = string(*ref.Namespace)
		}
		if group != GroupGateway || kind != KindGateway || gateways == nil {
			continue
		}
		gw := gateways(namespace, string(ref.Name))
		if gw == nil {
			continue
		}
		ns := gatewayv1.Namespace(namespace)
		status := gatewayv1.ParentReference{Group: &group, Kind: &kind, Namespace: &ns, Name: ref.Name}
		if ref.SectionName != nil {
			s := *ref.SectionName
			status.SectionName = &s
		}
		if ref.Port != nil {
			p := *ref.Port
			status.Port = &p
		}
		p := attachParent(route, gw, status, look)
		p.Index = i
		att.Parents = append(att.Parents, p)
	}
	return att
}

// attachParent attaches route to the listeners of gw that ref selects.
func attachParent(route Route, gw *Gateway, ref gatewayv1.ParentReference, look Lookups) ParentAttachment {
	p := ParentAttachment{ParentRef: ref, GatewayNamespace: gw.Namespace, GatewayName: gw.Name}

	var candidates []*Listener
	for i := range gw.Listeners {
		l := &gw.Listeners[i]
		if ref.SectionName != nil && l.Name != *ref.SectionName {
			continue
		}
		if ref.Port != nil && l.Port != *ref.Port {
			continue
		}
		candidates = append(candidates, l)
	}
	if len(candidates) == 0 {
		return p.refuse(gatewayv1.RouteReasonNoMatchingParent,
			fmt.Sprintf("Gateway %s/%s has no listener%s", gw.Namespace, gw.Name, selectorText(ref)))
	}

	var allowed []*Listener
	for _, l := range candidates {
		if kindAllowed(l.SupportedKinds, route.Kind) && l.namespaces.allows(route.Namespace, look) {
			allowed = append(allowed, l)
		}
	}
	if len(allowed) == 0 {
		return p.refuse(gatewayv1.RouteReasonNotAllowedByListeners,
			fmt.Sprintf("no listener of Gateway %s/%s allows a %s from namespace %s (listeners: %s)",
				gw.Namespace, gw.Name, route.Kind, route.Namespace, listenerNames(candidates)))
	}

	for _, l := range allowed {
		hosts, ok := EffectiveHostnames(l.Hostname, route.Hostnames)
		if !ok {
			continue
		}
		p.Listeners = append(p.Listeners, ListenerAttachment{
			Listener: l.Name, EntryPoint: l.EntryPoint, Hostnames: hosts, Programmed: l.Programmed,
		})
	}
	if len(p.Listeners) == 0 {
		return p.refuse(gatewayv1.RouteReasonNoMatchingListenerHostname,
			fmt.Sprintf("none of the route's hostnames matches a hostname of listener(s) %s of Gateway %s/%s",
				listenerNames(allowed), gw.Namespace, gw.Name))
	}
	p.Accepted, p.Reason, p.Message = true, gatewayv1.RouteReasonAccepted, "route is accepted"
	return p
}

// refuse marks the parent not accepted and detaches it from every listener.
func (p ParentAttachment) refuse(reason gatewayv1.RouteConditionReason, message string) ParentAttachment {
	p.Accepted, p.Reason, p.Message, p.Listeners, p.PartiallyInvalid = false, reason, message, nil, ""
	return p
}

func kindAllowed(kinds []gatewayv1.RouteGroupKind, kind gatewayv1.Kind) bool {
	for _, k := range kinds {
		group := GroupGateway
		if k.Group != nil {
			group = *k.Group
		}
		if group == GroupGateway && k.Kind == kind {
			return true
		}
	}
	return false
}

func selectorText(ref gatewayv1.ParentReference) string {
	var parts []string
	if ref.SectionName != nil {
		parts = append(parts, fmt.Sprintf(" named %s", *ref.SectionName))
	}
	if ref.Port != nil {
		parts = append(parts, fmt.Sprintf(" on port %d", *ref.Port))
	}
	return strings.Join(parts, " and")
}

func listenerNames(ls []*Listener) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = string(l.Name)
	}
	return strings.Join(names, ", ")
}
