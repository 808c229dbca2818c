package attach

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Kinds and groups this package names.
const (
	KindGateway   gatewayv1.Kind = "Gateway"
	KindHTTPRoute gatewayv1.Kind = "HTTPRoute"
	KindGRPCRoute gatewayv1.Kind = "GRPCRoute"
	KindTLSRoute  gatewayv1.Kind = "TLSRoute"
	KindTCPRoute  gatewayv1.Kind = "TCPRoute"
	KindUDPRoute  gatewayv1.Kind = "UDPRoute"
	KindService   gatewayv1.Kind = "Service"
	KindSecret    gatewayv1.Kind = "Secret"

	// GroupGateway is the Gateway API group; the core group is "".
	GroupGateway gatewayv1.Group = gatewayv1.GroupName
)

// EntryPoint is one of the proxy's entry points as the caller configured it.
// A listener is served on the entry point with its port and a protocol that
// can carry the listener's (see entryPointProtocols).
type EntryPoint struct {
	Name string
	Port int32
	// Protocol is what the entry point is set up for: HTTP, HTTPS, TLS, TCP
	// or UDP.
	Protocol gatewayv1.ProtocolType
}

// Options is what the caller knows about this proxy.
type Options struct {
	// ControllerName is the spec.controllerName of the GatewayClasses this
	// proxy implements; Gateways of other classes are not ours.
	ControllerName gatewayv1.GatewayController
	// EntryPoints are the proxy's entry points; when two can serve a
	// listener, the first in this list is used.
	EntryPoints []EntryPoint
	// Addresses are where clients reach the proxy (the published Service's
	// load balancer or a configured endpoint, as for Ingress status). A
	// Gateway's status.addresses come from these; with none, the Gateway is
	// not Programmed (AddressNotAssigned).
	Addresses []gatewayv1.GatewayStatusAddress
	// RouteKinds are the route kinds the caller translates, all in the
	// Gateway API group; nil means HTTPRoute and GRPCRoute. A listener whose
	// protocol carries none of them has protocol UnsupportedProtocol.
	RouteKinds []gatewayv1.Kind
}

// Lookups is what this package needs to know about the cluster beyond the
// object at hand. A nil function finds nothing and permits nothing, so a
// caller that forgets one fails closed.
type Lookups struct {
	// NamespaceLabels returns a Namespace's labels, for allowedRoutes
	// selectors.
	NamespaceLabels func(namespace string) (map[string]string, bool)
	// Service returns what backend checks need of a Service.
	Service func(namespace, name string) (Service, bool)
	// TLSSecret reports whether a Secret holds a usable certificate and key:
	// nil when it does, otherwise an error whose text goes into the
	// listener's condition (not found, not kubernetes.io/tls, no PEM...).
	// The caller decides, since parsing certificates is translation's job.
	TLSSecret func(namespace, name string) error
	// ReferencePermitted reports whether a ReferenceGrant lets from refer to
	// to; it is only asked about references across namespaces. GrantLookup
	// builds one from a list of ReferenceGrants.
	ReferencePermitted func(from ReferenceFrom, to ReferenceTo) bool
}

// Service is what backend checks need of a Service.
type Service struct {
	Ports []ServicePort
}

// ServicePort is one port of a Service.
type ServicePort struct {
	Name        string
	Port        int32
	AppProtocol string
}

// defaultRouteKinds are the kinds translated when Options.RouteKinds is nil.
var defaultRouteKinds = []gatewayv1.Kind{KindHTTPRoute, KindGRPCRoute}

// kindsForProtocol lists the route kinds a listener of each core protocol can
// carry, in the order supportedKinds reports them. A TLS listener could also
// carry TCPRoute when it terminates; no front end translates that, so it is
// left out rather than advertised.
var kindsForProtocol = map[gatewayv1.ProtocolType][]gatewayv1.Kind{
	gatewayv1.HTTPProtocolType:  {KindHTTPRoute, KindGRPCRoute},
	gatewayv1.HTTPSProtocolType: {KindHTTPRoute, KindGRPCRoute},
	gatewayv1.TLSProtocolType:   {KindTLSRoute},
	gatewayv1.TCPProtocolType:   {KindTCPRoute},
	gatewayv1.UDPProtocolType:   {KindUDPRoute},
}

// entryPointProtocols lists, for a listener protocol, the entry point
// protocols that can serve it. TLS passthrough is SNI routing on a TCP entry
// point, which an HTTPS entry point is as well, so a TLS listener may share
// one with HTTPS listeners; every other protocol needs its own kind.
var entryPointProtocols = map[gatewayv1.ProtocolType][]gatewayv1.ProtocolType{
	gatewayv1.HTTPProtocolType:  {gatewayv1.HTTPProtocolType},
	gatewayv1.HTTPSProtocolType: {gatewayv1.HTTPSProtocolType},
	gatewayv1.TLSProtocolType:   {gatewayv1.TLSProtocolType, gatewayv1.HTTPSProtocolType},
	gatewayv1.TCPProtocolType:   {gatewayv1.TCPProtocolType},
	gatewayv1.UDPProtocolType:   {gatewayv1.UDPProtocolType},
}

// routeKinds returns the kinds the caller translates.
func (o Options) routeKinds() []gatewayv1.Kind {
	if o.RouteKinds == nil {
		return defaultRouteKinds
	}
	return o.RouteKinds
}

// protocolKinds returns the route kinds a listener of protocol p can carry
// here: the protocol's kinds that the caller translates, in table order.
func (o Options) protocolKinds(p gatewayv1.ProtocolType) []gatewayv1.Kind {
	var kinds []gatewayv1.Kind
	for _, k := range kindsForProtocol[p] {
		for _, enabled := range o.routeKinds() {
			if k == enabled {
				kinds = append(kinds, k)
				break
			}
		}
	}
	return kinds
}

// entryPointFor returns the entry point serving a listener on port with
// protocol, or the entry points found on that port when none can serve it.
func (o Options) entryPointFor(port int32, protocol gatewayv1.ProtocolType) (EntryPoint, []EntryPoint, bool) {
	var onPort []EntryPoint
	for _, ep := range o.EntryPoints {
		if ep.Port != port {
			continue
		}
		for _, p := range entryPointProtocols[protocol] {
			if ep.Protocol == p {
				return ep, nil, true
			}
		}
		onPort = append(onPort, ep)
	}
	return EntryPoint{}, onPort, false
}
