package attach

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Gateway is a Gateway of ours as this controller serves it.
type Gateway struct {
	Namespace  string
	Name       string
	Generation int64
	// Accepted is true when the Gateway yields configuration: its class is
	// accepted, its spec is one this controller supports and at least one
	// listener is accepted.
	Accepted bool
	// Programmed is true when it is accepted and has its addresses.
	Programmed bool
	// Listeners are in spec order.
	Listeners []Listener
	// Addresses are for status.addresses.
	Addresses []gatewayv1.GatewayStatusAddress
	// Conditions are the Gateway's computed conditions: Accepted,
	// Programmed and ResolvedRefs.
	Conditions []metav1.Condition
	// BackendClientCertificate is the Secret whose key pair the Gateway
	// presents to backends that ask for a client certificate
	// (spec.tls.backend.clientCertificateRef), nil when none is usable.
	BackendClientCertificate *SecretRef
}

// Listener returns the listener called name.
func (g *Gateway) Listener(name gatewayv1.SectionName) (*Listener, bool) {
	for i := range g.Listeners {
		if g.Listeners[i].Name == name {
			return &g.Listeners[i], true
		}
	}
	return nil, false
}

// ProcessGateway computes a Gateway's listeners and conditions. It returns
// false when the Gateway is not ours: no class, a class naming another
// controller, or a class that is not the one the Gateway names. Every
// condition is observed at the Gateway's generation.
//
// Listeners are first checked alone (buildListener), then against each other
// (findConflicts): a listener is Accepted when neither found a problem. The
// Gateway is Accepted when its class is, it asks for nothing unsupported
// (parameters, address types) and at least one listener is accepted; the
// reason is ListenersNotValid, with status True or False, as soon as any
// listener is refused. It is Programmed when accepted and its addresses are
// there. A listener is Programmed when accepted on an accepted Gateway and,
// if it terminates TLS, with a usable certificate; unresolved references
// alone (a bad second certificate, an unknown route kind beside a known one)
// leave it programmed with what resolved.
func ProcessGateway(gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, opts Options, look Lookups) (Gateway, bool) {
	if gw == nil {
		return Gateway{}, false
	}
	cls := ProcessClass(class, opts.ControllerName)
	if !cls.Ours || string(gw.Spec.GatewayClassName) != cls.Name {
		return Gateway{}, false
	}
	g := Gateway{Namespace: gw.Namespace, Name: gw.Name, Generation: gw.Generation}

	checks := make([]listenerCheck, len(gw.Spec.Listeners))
	take := make([]bool, len(gw.Spec.Listeners))
	for i := range gw.Spec.Listeners {
		var l Listener
		l, checks[i] = buildListener(gw, i, opts, look)
		take[i] = checks[i].supported
		g.Listeners = append(g.Listeners, l)
	}
	conflicts := findConflicts(g.Listeners, take)

	var refused, unresolved []string
	for i := range g.Listeners {
		l := &g.Listeners[i]
		if c, ok := conflicts[i]; ok {
			l.Conflicted = true
			checks[i].rejected = append(checks[i].rejected, problem{string(c.reason), c.message(*l)})
		}
		l.Accepted = len(checks[i].rejected) == 0
		l.ResolvedRefs = len(checks[i].refs) == 0
		if !l.Accepted {
			refused = append(refused, string(l.Name))
		}
		if !l.ResolvedRefs {
			unresolved = append(unresolved, string(l.Name))
		}
	}

	addrs := checkAddresses(gw.Spec.Addresses, opts.Addresses)
	g.Addresses = addrs.status

	var rejected []problem
	if !cls.Accepted {
		rejected = append(rejected, problem{string(gatewayv1.GatewayReasonInvalid),
			fmt.Sprintf("spec.gatewayClassName: GatewayClass %s is not accepted", cls.Name)})
	}
	if gw.Spec.Infrastructure != nil && gw.Spec.Infrastructure.ParametersRef != nil {
		p := gw.Spec.Infrastructure.ParametersRef
		rejected = append(rejected, problem{string(gatewayv1.GatewayReasonInvalidParameters),
			fmt.Sprintf("spec.infrastructure.parametersRef: %s %s is not supported: this controller takes no parameters",
				groupKind(p.Group, p.Kind), p.Name)})
	}
	for _, msg := range addrs.unsupported {
		rejected = append(rejected, problem{string(gatewayv1.GatewayReasonUnsupportedAddress), msg})
	}
	if len(refused) == len(g.Listeners) {
		rejected = append(rejected, problem{string(gatewayv1.GatewayReasonListenersNotValid),
			strings.TrimSuffix("no listener is accepted: "+strings.Join(refused, ", "), ": ")})
	}
	g.Accepted = len(rejected) == 0
	accepted := conditionFrom(string(gatewayv1.GatewayConditionAccepted), rejected,
		gatewayv1.GatewayReasonAccepted, "Gateway is accepted", gw.Generation)
	if g.Accepted && len(refused) > 0 {
		accepted = newCondition(string(gatewayv1.GatewayConditionAccepted), true, gatewayv1.GatewayReasonListenersNotValid,
			"listener(s) not accepted: "+strings.Join(refused, ", "), gw.Generation)
	}

	var notProgrammed []problem
	if !g.Accepted {
		notProgrammed = append(notProgrammed, problem{string(gatewayv1.GatewayReasonInvalid), "Gateway is not accepted"})
	}
	for _, msg := range addrs.notUsable {
		notProgrammed = append(notProgrammed, problem{string(gatewayv1.GatewayReasonAddressNotUsable), msg})
	}
	for _, msg := range addrs.notAssigned {
		notProgrammed = append(notProgrammed, problem{string(gatewayv1.GatewayReasonAddressNotAssigned), msg})
	}
	g.Programmed = len(notProgrammed) == 0
	programmed := conditionFrom(string(gatewayv1.GatewayConditionProgrammed), notProgrammed,
		gatewayv1.GatewayReasonProgrammed, "Gateway is programmed", gw.Generation)

	var refsProblems []problem
	if p := g.checkBackendClientCertificate(gw, look); p != nil {
		refsProblems = append(refsProblems, *p)
	}
	if len(unresolved) > 0 {
		refsProblems = append(refsProblems, problem{string(gatewayv1.GatewayReasonListenersNotResolved),
			"listener(s) with unresolved references: " + strings.Join(unresolved, ", ")})
	}
	resolved := conditionFrom(string(gatewayv1.GatewayConditionResolvedRefs), refsProblems,
		gatewayv1.GatewayReasonResolvedRefs, "All references are resolved", gw.Generation)
	g.Conditions = sortConditions([]metav1.Condition{accepted, programmed, resolved})

	for i := range g.Listeners {
		finishListener(&g.Listeners[i], checks[i], conflicts[i], g.Accepted, gw.Generation)
	}
	return g, true
}

// finishListener sets a checked listener's Programmed flag and conditions.
func finishListener(l *Listener, check listenerCheck, c conflict, gatewayAccepted bool, generation int64) {
	var notProgrammed []problem
	switch {
	case !l.Accepted:
		notProgrammed = append(notProgrammed, problem{string(gatewayv1.ListenerReasonInvalid), "listener is not accepted"})
	case !gatewayAccepted:
		notProgrammed = append(notProgrammed, problem{string(gatewayv1.ListenerReasonInvalid), "Gateway is not accepted"})
	case check.noCertificate:
		notProgrammed = append(notProgrammed, problem{string(gatewayv1.ListenerReasonInvalid), "no usable certificate to terminate TLS"})
	}
	l.Programmed = len(notProgrammed) == 0

	conflicted := newCondition(string(gatewayv1.ListenerConditionConflicted), false,
		gatewayv1.ListenerReasonNoConflicts, "listener is distinct", generation)
	if l.Conflicted {
		conflicted = newCondition(string(gatewayv1.ListenerConditionConflicted), true, c.reason, c.message(*l), generation)
	}
	l.Conditions = sortConditions([]metav1.Condition{
		conditionFrom(string(gatewayv1.ListenerConditionAccepted), check.rejected,
			gatewayv1.ListenerReasonAccepted, "listener is accepted", generation),
		conflicted,
		conditionFrom(string(gatewayv1.ListenerConditionResolvedRefs), check.refs,
			gatewayv1.ListenerReasonResolvedRefs, "all references are resolved", generation),
		conditionFrom(string(gatewayv1.ListenerConditionProgrammed), notProgrammed,
			gatewayv1.ListenerReasonProgrammed, "served on entry point "+l.EntryPoint, generation),
	})
}

// checkBackendClientCertificate resolves spec.tls.backend.clientCertificateRef
// as a listener's certificateRef is resolved (a core Secret holding a key
// pair, in another namespace only with a ReferenceGrant), and keeps it;
// the problem is the Gateway's ResolvedRefs one.
func (g *Gateway) checkBackendClientCertificate(gw *gatewayv1.Gateway, look Lookups) *problem {
	if gw.Spec.TLS == nil || gw.Spec.TLS.Backend == nil || gw.Spec.TLS.Backend.ClientCertificateRef == nil {
		return nil
	}
	secret, p := checkCertificateRef(gw.Namespace, "spec.tls.backend.clientCertificateRef", *gw.Spec.TLS.Backend.ClientCertificateRef, look)
	if p != nil {
		if p.reason == string(gatewayv1.ListenerReasonInvalidCertificateRef) {
			p.reason = string(gatewayv1.GatewayReasonInvalidClientCertificateRef)
		}
		return p
	}
	g.BackendClientCertificate = &secret
	return nil
}
