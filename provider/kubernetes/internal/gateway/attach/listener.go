package attach

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Listener is one of a Gateway's listeners as this controller serves it.
type Listener struct {
	Name     gatewayv1.SectionName
	Port     int32
	Protocol gatewayv1.ProtocolType
	// Hostname is the listener's hostname; nil matches every host, and it is
	// always nil for TCP and UDP, which do not match on hostnames.
	Hostname *gatewayv1.Hostname
	// TLSMode is Terminate or Passthrough for HTTPS and TLS listeners and
	// empty otherwise.
	TLSMode gatewayv1.TLSModeType
	// EntryPoint is the entry point that serves the listener, empty when none
	// can (PortUnavailable).
	EntryPoint string
	// SupportedKinds are the route kinds that may attach.
	SupportedKinds []gatewayv1.RouteGroupKind
	// Certificates are the usable Secrets of certificateRefs, in spec order.
	Certificates []SecretRef

	Accepted     bool
	Conflicted   bool
	ResolvedRefs bool
	// Programmed is true when the caller should build configuration for the
	// listener: accepted, not conflicted, on an accepted Gateway, and with a
	// usable certificate if it terminates TLS.
	Programmed bool
	// AttachedRoutes is filled by CountAttachedRoutes.
	AttachedRoutes int32
	// Conditions are the listener's computed conditions.
	Conditions []metav1.Condition

	namespaces namespacePolicy
}

// SecretRef names a Secret.
type SecretRef struct {
	Namespace string
	Name      string
}

// problem is one reason a condition is False, with its message.
type problem struct {
	reason  string
	message string
}

// conditionFrom returns a True condition with okReason when there are no
// problems, else a False one with the first problem's reason and every
// problem in the message.
func conditionFrom[R ~string](condType string, problems []problem, okReason R, okMessage string, generation int64) metav1.Condition {
	if len(problems) == 0 {
		return newCondition(condType, true, okReason, okMessage, generation)
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.message
	}
	return newCondition(condType, false, problems[0].reason, problemList(msgs), generation)
}

// listenerCheck is what a listener's own spec says about it, before it is
// compared with its siblings.
type listenerCheck struct {
	// rejected are the reasons it cannot be Accepted, in precedence order.
	rejected []problem
	// refs are the reasons ResolvedRefs is False.
	refs []problem
	// supported is true when the protocol is one this controller carries;
	// only those take part in conflict detection.
	supported bool
	// noCertificate is true when it terminates TLS without a usable
	// certificate, so it cannot be programmed.
	noCertificate bool
}

// buildListener checks spec.listeners[index] of gw on its own: its protocol
// and the route kinds it carries, the namespaces it admits, its TLS settings
// and certificates, and the entry point that serves it.
func buildListener(gw *gatewayv1.Gateway, index int, opts Options, look Lookups) (Listener, listenerCheck) {
	spec := gw.Spec.Listeners[index]
	path := fmt.Sprintf("spec.listeners[%d]", index)
	l := Listener{Name: spec.Name, Port: spec.Port, Protocol: spec.Protocol, SupportedKinds: []gatewayv1.RouteGroupKind{}}
	var check listenerCheck

	kinds := opts.protocolKinds(spec.Protocol)
	if len(kinds) == 0 {
		check.rejected = append(check.rejected, problem{string(gatewayv1.ListenerReasonUnsupportedProtocol),
			fmt.Sprintf("%s.protocol: %q is not supported", path, spec.Protocol)})
		return l, check
	}
	check.supported = true
	if spec.Protocol != gatewayv1.TCPProtocolType && spec.Protocol != gatewayv1.UDPProtocolType && spec.Hostname != nil && *spec.Hostname != "" {
		h := *spec.Hostname
		l.Hostname = &h
	}

	tls := checkListenerTLS(gw, path, spec, look)
	l.TLSMode, l.Certificates, check.noCertificate = tls.mode, tls.certificates, tls.noCertificate
	check.rejected = append(check.rejected, tls.rejected...)
	check.refs = append(check.refs, tls.refs...)
	if field := clientValidationField(gw, spec); field != "" {
		// Serving the listener without the client certificate check it asks
		// for would be open where the user wanted it closed.
		check.rejected = append(check.rejected, problem{string(gatewayv1.ListenerReasonUnsupportedValue),
			field + ": client certificate validation is not supported"})
	}

	var invalidKinds []problem
	l.SupportedKinds, invalidKinds = listenerKinds(spec, path, kinds)
	check.refs = append(check.refs, invalidKinds...)

	policy, nsProblem := newNamespacePolicy(spec.AllowedRoutes, gw.Namespace, path)
	l.namespaces = policy
	if nsProblem != "" {
		check.rejected = append(check.rejected, problem{string(gatewayv1.ListenerReasonUnsupportedValue), nsProblem})
	}

	ep, onPort, ok := opts.entryPointFor(spec.Port, spec.Protocol)
	switch {
	case ok:
		l.EntryPoint = ep.Name
	case len(onPort) == 0:
		check.rejected = append(check.rejected, problem{string(gatewayv1.ListenerReasonPortUnavailable),
			fmt.Sprintf("%s.port: no entry point listens on port %d", path, spec.Port)})
	default:
		check.rejected = append(check.rejected, problem{string(gatewayv1.ListenerReasonPortUnavailable),
			fmt.Sprintf("%s.port: entry point %s on port %d serves %s, which cannot carry %s",
				path, onPort[0].Name, spec.Port, onPort[0].Protocol, spec.Protocol)})
	}
	return l, check
}

// clientValidationField returns the field that asks an HTTPS listener to
// validate client certificates, or "" when nothing does: the perPort entry of
// the listener's port when there is one, else the default.
func clientValidationField(gw *gatewayv1.Gateway, spec gatewayv1.Listener) string {
	if spec.Protocol != gatewayv1.HTTPSProtocolType || gw.Spec.TLS == nil || gw.Spec.TLS.Frontend == nil {
		return ""
	}
	for i, pp := range gw.Spec.TLS.Frontend.PerPort {
		if pp.Port == spec.Port {
			if pp.TLS.Validation == nil {
				return ""
			}
			return fmt.Sprintf("spec.tls.frontend.perPort[%d].tls.validation", i)
		}
	}
	if gw.Spec.TLS.Frontend.Default.Validation == nil {
		return ""
	}
	return "spec.tls.frontend.default.validation"
}

// listenerKinds returns the route kinds a listener admits: every kind its
// protocol carries here when allowedRoutes.kinds is empty, else the listed
// kinds that are among them. The others are InvalidRouteKinds problems; they
// do not stop the valid ones from being used.
func listenerKinds(spec gatewayv1.Listener, path string, kinds []gatewayv1.Kind) ([]gatewayv1.RouteGroupKind, []problem) {
	supported := []gatewayv1.RouteGroupKind{}
	add := func(k gatewayv1.Kind) {
		for _, s := range supported {
			if s.Kind == k {
				return
			}
		}
		group := GroupGateway
		supported = append(supported, gatewayv1.RouteGroupKind{Group: &group, Kind: k})
	}
	if spec.AllowedRoutes == nil || len(spec.AllowedRoutes.Kinds) == 0 {
		for _, k := range kinds {
			add(k)
		}
		return supported, nil
	}
	var problems []problem
	for i, rk := range spec.AllowedRoutes.Kinds {
		group := GroupGateway
		if rk.Group != nil {
			group = *rk.Group
		}
		if group == GroupGateway && contains(kinds, rk.Kind) {
			add(rk.Kind)
			continue
		}
		problems = append(problems, problem{string(gatewayv1.ListenerReasonInvalidRouteKinds),
			fmt.Sprintf("%s.allowedRoutes.kinds[%d]: %s is not a route kind a %s listener carries here (it carries %s)",
				path, i, groupKind(group, rk.Kind), spec.Protocol, kindNames(kinds))})
	}
	return supported, problems
}

func groupKind(group gatewayv1.Group, kind gatewayv1.Kind) string {
	if group == "" {
		return string(kind)
	}
	return string(kind) + "." + string(group)
}

func kindNames(kinds []gatewayv1.Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// namespacePolicy is a listener's allowedRoutes.namespaces, ready to ask.
type namespacePolicy struct {
	from             gatewayv1.FromNamespaces
	gatewayNamespace string
	selector         labels.Selector // nil admits nothing
}

// newNamespacePolicy reads allowedRoutes.namespaces; From defaults to Same.
// An unknown From value or a missing or invalid selector admits no namespace
// and is reported, since guessing would widen what the Gateway's owner
// allowed.
func newNamespacePolicy(ar *gatewayv1.AllowedRoutes, gatewayNamespace, path string) (namespacePolicy, string) {
	p := namespacePolicy{from: gatewayv1.NamespacesFromSame, gatewayNamespace: gatewayNamespace}
	if ar == nil || ar.Namespaces == nil {
		return p, ""
	}
	if ar.Namespaces.From != nil {
		p.from = *ar.Namespaces.From
	}
	switch p.from {
	case gatewayv1.NamespacesFromSame, gatewayv1.NamespacesFromAll, gatewayv1.NamespacesFromNone:
		return p, ""
	case gatewayv1.NamespacesFromSelector:
		if ar.Namespaces.Selector == nil {
			return p, path + ".allowedRoutes.namespaces.selector: required when from is Selector"
		}
		sel, err := metav1.LabelSelectorAsSelector(ar.Namespaces.Selector)
		if err != nil {
			return p, fmt.Sprintf("%s.allowedRoutes.namespaces.selector: %v", path, err)
		}
		p.selector = sel
		return p, ""
	default:
		return p, fmt.Sprintf("%s.allowedRoutes.namespaces.from: %q is not one of All, Same, Selector, None", path, p.from)
	}
}

// allows reports whether routes in namespace may attach.
func (p namespacePolicy) allows(namespace string, look Lookups) bool {
	switch p.from {
	case gatewayv1.NamespacesFromAll:
		return true
	case gatewayv1.NamespacesFromSame:
		return namespace == p.gatewayNamespace
	case gatewayv1.NamespacesFromSelector:
		if p.selector == nil {
			return false
		}
		return p.selector.Matches(labels.Set(namespaceLabels(namespace, look)))
	}
	return false
}

// namespaceLabels returns a namespace's labels with the name label the API
// server puts on every namespace, so selectors on it work even when the
// caller's copy lacks it or the namespace is not in its cache.
func namespaceLabels(namespace string, look Lookups) map[string]string {
	var found map[string]string
	if look.NamespaceLabels != nil {
		found, _ = look.NamespaceLabels(namespace)
	}
	out := make(map[string]string, len(found)+1)
	for k, v := range found {
		out[k] = v
	}
	out[corev1.LabelMetadataName] = namespace
	return out
}
