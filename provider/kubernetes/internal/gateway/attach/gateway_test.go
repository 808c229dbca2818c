package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// listenerWant is what one listener should come out as.
type listenerWant struct {
	name       string
	kinds      []gatewayv1.Kind
	entryPoint string
	programmed bool
	conds      []want
}

func TestProcessGatewayListeners(t *testing.T) {
	httpKinds := []gatewayv1.Kind{KindHTTPRoute, KindGRPCRoute}
	accepted := want{"Accepted", condTrue, "Accepted"}
	resolved := want{"ResolvedRefs", condTrue, "ResolvedRefs"}
	programmed := want{"Programmed", condTrue, "Programmed"}
	notProgrammed := want{"Programmed", condFalse, "Invalid"}
	noConflict := want{"Conflicted", condFalse, "NoConflicts"}

	tests := []struct {
		name       string
		routeKinds []gatewayv1.Kind // nil: the default
		listeners  []gatewayv1.Listener
		gateway    []want
		want       []listenerWant
	}{
		{
			// gateway-invalid-listeners-unsupported-protocol, first Gateway.
			name:      "only an unsupported protocol: listener refused, Gateway not accepted",
			listeners: []gatewayv1.Listener{listener("invalid", 1111, "INVALID")},
			gateway:   []want{{"Accepted", condFalse, "ListenersNotValid"}, {"Programmed", condFalse, "Invalid"}},
			want: []listenerWant{{name: "invalid", kinds: nil, conds: []want{
				{"Accepted", condFalse, "UnsupportedProtocol"}, notProgrammed, resolved, noConflict,
			}}},
		},
		{
			// gateway-invalid-listeners-unsupported-protocol, second Gateway.
			name:      "one supported listener keeps the Gateway accepted, with ListenersNotValid",
			listeners: []gatewayv1.Listener{listener("http", 80, gatewayv1.HTTPProtocolType), listener("invalid", 1111, "INVALID")},
			gateway:   []want{{"Accepted", condTrue, "ListenersNotValid"}, {"Programmed", condTrue, "Programmed"}},
			want: []listenerWant{
				{name: "http", kinds: httpKinds, entryPoint: "web", programmed: true, conds: []want{accepted, programmed, resolved, noConflict}},
				{name: "invalid", conds: []want{{"Accepted", condFalse, "UnsupportedProtocol"}}},
			},
		},
		{
			name:      "a protocol whose route kinds are not translated is unsupported",
			listeners: []gatewayv1.Listener{listener("tls", 8443, gatewayv1.TLSProtocolType, tlsMode(gatewayv1.TLSModePassthrough))},
			gateway:   []want{{"Accepted", condFalse, "ListenersNotValid"}},
			want:      []listenerWant{{name: "tls", conds: []want{{"Accepted", condFalse, "UnsupportedProtocol"}}}},
		},
		{
			// gateway-invalid-route-kind, first Gateway.
			name:      "only an invalid route kind: InvalidRouteKinds and no supported kinds",
			listeners: []gatewayv1.Listener{listener("http", 80, gatewayv1.HTTPProtocolType, from(gatewayv1.NamespacesFromAll), kinds("InvalidRoute"))},
			gateway:   []want{{"Accepted", condTrue, "Accepted"}, {"ResolvedRefs", condFalse, "ListenersNotResolved"}},
			want: []listenerWant{{name: "http", kinds: nil, entryPoint: "web", programmed: true, conds: []want{
				accepted, {"ResolvedRefs", condFalse, "InvalidRouteKinds"}, programmed,
			}}},
		},
		{
			// gateway-invalid-route-kind, second Gateway.
			name:      "an invalid kind beside HTTPRoute: HTTPRoute alone is supported",
			listeners: []gatewayv1.Listener{listener("http", 80, gatewayv1.HTTPProtocolType, kinds("InvalidRoute", KindHTTPRoute))},
			want: []listenerWant{{name: "http", kinds: []gatewayv1.Kind{KindHTTPRoute}, entryPoint: "web", programmed: true, conds: []want{
				{"ResolvedRefs", condFalse, "InvalidRouteKinds"},
			}}},
		},
		{
			name: "a kind of another group is invalid even with a known name",
			listeners: []gatewayv1.Listener{listener("http", 80, gatewayv1.HTTPProtocolType, func(l *gatewayv1.Listener) {
				g := gatewayv1.Group("example.com")
				l.AllowedRoutes = &gatewayv1.AllowedRoutes{Kinds: []gatewayv1.RouteGroupKind{{Group: &g, Kind: KindHTTPRoute}}}
			})},
			want: []listenerWant{{name: "http", kinds: nil, entryPoint: "web", programmed: true, conds: []want{{"ResolvedRefs", condFalse, "InvalidRouteKinds"}}}},
		},
		{
			name:      "GRPCRoute only, when allowed kinds say so",
			listeners: []gatewayv1.Listener{listener("h", 80, gatewayv1.HTTPProtocolType, kinds(KindGRPCRoute, KindGRPCRoute))},
			want:      []listenerWant{{name: "h", kinds: []gatewayv1.Kind{KindGRPCRoute}, entryPoint: "web", programmed: true, conds: []want{resolved}}},
		},
		{
			name:      "no entry point on the port: PortUnavailable",
			listeners: []gatewayv1.Listener{listener("http", 81, gatewayv1.HTTPProtocolType)},
			gateway:   []want{{"Accepted", condFalse, "ListenersNotValid"}},
			want: []listenerWant{{name: "http", kinds: httpKinds, conds: []want{
				{"Accepted", condFalse, "PortUnavailable"}, notProgrammed,
			}}},
		},
		{
			name:      "an entry point on the port that cannot carry the protocol: PortUnavailable",
			listeners: []gatewayv1.Listener{listener("https", 80, gatewayv1.HTTPSProtocolType, certs(secretRef("", "Secret", "", "tls-validity-checks-certificate")))},
			want:      []listenerWant{{name: "https", kinds: httpKinds, conds: []want{{"Accepted", condFalse, "PortUnavailable"}}}},
		},
		{
			name:       "TCP and UDP listeners use the entry point of their transport",
			routeKinds: []gatewayv1.Kind{KindTCPRoute, KindUDPRoute},
			listeners:  []gatewayv1.Listener{listener("tcp", 9000, gatewayv1.TCPProtocolType), listener("udp", 9000, gatewayv1.UDPProtocolType)},
			gateway:    []want{{"Accepted", condTrue, "Accepted"}},
			want: []listenerWant{
				{name: "tcp", kinds: []gatewayv1.Kind{KindTCPRoute}, entryPoint: "tcp", programmed: true, conds: []want{accepted, noConflict}},
				{name: "udp", kinds: []gatewayv1.Kind{KindUDPRoute}, entryPoint: "udp", programmed: true, conds: []want{accepted, noConflict}},
			},
		},
		{
			name:      "tls on an HTTP listener is refused",
			listeners: []gatewayv1.Listener{listener("http", 80, gatewayv1.HTTPProtocolType, certs(secretRef("", "Secret", "", "tls-validity-checks-certificate")))},
			want:      []listenerWant{{name: "http", kinds: httpKinds, entryPoint: "web", conds: []want{{"Accepted", condFalse, "UnsupportedValue"}, notProgrammed}}},
		},
		{
			name:      "an unknown from value admits nothing and is refused",
			listeners: []gatewayv1.Listener{listener("http", 80, gatewayv1.HTTPProtocolType, from("Nearby"))},
			want:      []listenerWant{{name: "http", kinds: httpKinds, entryPoint: "web", conds: []want{{"Accepted", condFalse, "UnsupportedValue"}}}},
		},
		{
			name:      "from Selector without a selector is refused",
			listeners: []gatewayv1.Listener{listener("http", 80, gatewayv1.HTTPProtocolType, selector(nil))},
			want:      []listenerWant{{name: "http", kinds: httpKinds, entryPoint: "web", conds: []want{{"Accepted", condFalse, "UnsupportedValue"}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			opts.RouteKinds = tt.routeKinds
			g := processed(t, gateway("gw", tt.listeners...), opts, conformanceCluster().lookups())
			requireConditions(t, g.Conditions, gwGen, tt.gateway...)
			require.Len(t, g.Listeners, len(tt.listeners))
			for _, w := range tt.want {
				l := mustListener(t, &g, w.name)
				var got []gatewayv1.Kind
				for _, k := range l.SupportedKinds {
					require.Equal(t, GroupGateway, *k.Group)
					got = append(got, k.Kind)
				}
				require.Equal(t, w.kinds, got, "supported kinds")
				require.NotNil(t, l.SupportedKinds, "supportedKinds is reported even when empty")
				require.Equal(t, w.entryPoint, l.EntryPoint)
				require.Equal(t, w.programmed, l.Programmed)
				requireConditions(t, l.Conditions, gwGen, w.conds...)
			}
		})
	}
}

func TestProcessGatewayOwnership(t *testing.T) {
	gw := gateway("gw", listener("http", 80, gatewayv1.HTTPProtocolType))
	opts := testOptions()

	_, ok := ProcessGateway(gw, nil, opts, Lookups{})
	require.False(t, ok, "no class: not ours")
	_, ok = ProcessGateway(gw, class("example.net/other"), opts, Lookups{})
	require.False(t, ok, "another controller's class")
	other := class(ourCtrl)
	other.Name = "another-class"
	_, ok = ProcessGateway(gw, other, opts, Lookups{})
	require.False(t, ok, "a class the Gateway does not name")
	_, ok = ProcessGateway(nil, class(ourCtrl), opts, Lookups{})
	require.False(t, ok)

	// A class of ours that is not accepted still makes the Gateway ours, and
	// refused.
	withParams := class(ourCtrl)
	withParams.Spec.ParametersRef = &gatewayv1.ParametersReference{Group: "example.com", Kind: "Config", Name: "x"}
	g, ok := ProcessGateway(gw, withParams, opts, Lookups{})
	require.True(t, ok)
	require.False(t, g.Accepted)
	requireConditions(t, g.Conditions, gwGen, want{"Accepted", condFalse, "Invalid"}, want{"Programmed", condFalse, "Invalid"})
	l := mustListener(t, &g, "http")
	require.True(t, l.Accepted)
	require.False(t, l.Programmed, "nothing is served for a refused Gateway")
	requireConditions(t, l.Conditions, gwGen, want{"Programmed", condFalse, "Invalid"})
}

func TestProcessGatewayParameters(t *testing.T) {
	// gateway-invalid-parameters-ref.
	gw := gateway("gw", listener("http", 80, gatewayv1.HTTPProtocolType))
	gw.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{
		ParametersRef: &gatewayv1.LocalParametersReference{Group: "invalid.io", Kind: "InvalidParameters", Name: "invalid"},
	}
	g := processed(t, gw, testOptions(), Lookups{})
	require.False(t, g.Accepted)
	requireConditions(t, g.Conditions, gwGen, want{"Accepted", condFalse, "InvalidParameters"})
	c, _ := FindCondition(g.Conditions, "Accepted")
	require.Contains(t, c.Message, "spec.infrastructure.parametersRef")
}

func TestProcessGatewayFrontendValidationRefusesHTTPS(t *testing.T) {
	cert := certs(secretRef("", "Secret", "", "tls-validity-checks-certificate"))
	validation := &gatewayv1.FrontendTLSValidation{CACertificateRefs: []gatewayv1.ObjectReference{{Kind: "ConfigMap", Name: "ca"}}}
	tests := []struct {
		name     string
		frontend gatewayv1.FrontendTLSConfig
		refused  map[string]string // listener -> field named in the message
	}{
		{
			name:     "default validation refuses every HTTPS listener",
			frontend: gatewayv1.FrontendTLSConfig{Default: gatewayv1.TLSConfig{Validation: validation}},
			refused:  map[string]string{"https": "spec.tls.frontend.default.validation", "https-8443": "spec.tls.frontend.default.validation"},
		},
		{
			name: "a port without validation overrides the default",
			frontend: gatewayv1.FrontendTLSConfig{
				Default: gatewayv1.TLSConfig{Validation: validation},
				PerPort: []gatewayv1.TLSPortConfig{{Port: 8443}},
			},
			refused: map[string]string{"https": "spec.tls.frontend.default.validation"},
		},
		{
			name:     "validation on one port only",
			frontend: gatewayv1.FrontendTLSConfig{PerPort: []gatewayv1.TLSPortConfig{{Port: 8443, TLS: gatewayv1.TLSConfig{Validation: validation}}}},
			refused:  map[string]string{"https-8443": "spec.tls.frontend.perPort[0].tls.validation"},
		},
		{name: "a frontend block that validates nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := gateway("gw",
				listener("https", 443, gatewayv1.HTTPSProtocolType, cert),
				listener("https-8443", 8443, gatewayv1.HTTPSProtocolType, cert),
				listener("http", 80, gatewayv1.HTTPProtocolType))
			gw.Spec.TLS = &gatewayv1.GatewayTLSConfig{Frontend: &tt.frontend}
			opts := testOptions()
			opts.EntryPoints = append(opts.EntryPoints[:4], EntryPoint{Name: "websecure2", Port: 8443, Protocol: gatewayv1.HTTPSProtocolType})
			g := processed(t, gw, opts, conformanceCluster().lookups())
			for _, l := range g.Listeners {
				field, refused := tt.refused[string(l.Name)]
				if !refused {
					requireConditions(t, l.Conditions, gwGen, want{"Accepted", condTrue, "Accepted"})
					continue
				}
				requireConditions(t, l.Conditions, gwGen, want{"Accepted", condFalse, "UnsupportedValue"})
				c, _ := FindCondition(l.Conditions, "Accepted")
				require.Equal(t, field+": client certificate validation is not supported", c.Message)
			}
		})
	}
}

func TestProcessGatewayRouteKindsOption(t *testing.T) {
	opts := testOptions()
	opts.RouteKinds = []gatewayv1.Kind{KindHTTPRoute, KindTLSRoute}
	gw := gateway("gw",
		listener("tls", 8443, gatewayv1.TLSProtocolType, tlsMode(gatewayv1.TLSModePassthrough)),
		listener("http", 80, gatewayv1.HTTPProtocolType))
	g := processed(t, gw, opts, Lookups{})
	tls := mustListener(t, &g, "tls")
	require.True(t, tls.Programmed)
	require.Equal(t, gatewayv1.TLSModePassthrough, tls.TLSMode)
	require.Equal(t, "passthrough", tls.EntryPoint)
	require.Equal(t, []gatewayv1.RouteGroupKind{{Group: new(GroupGateway), Kind: KindTLSRoute}}, tls.SupportedKinds)
	http := mustListener(t, &g, "http")
	require.Equal(t, []gatewayv1.RouteGroupKind{{Group: new(GroupGateway), Kind: KindHTTPRoute}}, http.SupportedKinds,
		"GRPCRoute is not advertised when not translated")
}

func TestProcessGatewayTLSOnHTTPSEntryPoint(t *testing.T) {
	// A TLS listener may share an HTTPS entry point: both route by SNI.
	opts := testOptions()
	opts.RouteKinds = []gatewayv1.Kind{KindHTTPRoute, KindTLSRoute}
	gw := gateway("gw", listener("tls", 443, gatewayv1.TLSProtocolType, host("pass.example.com"), tlsMode(gatewayv1.TLSModePassthrough)))
	g := processed(t, gw, opts, Lookups{})
	require.Equal(t, "websecure", mustListener(t, &g, "tls").EntryPoint)
}

func TestProcessGatewayListenerHostnames(t *testing.T) {
	gw := gateway("gw",
		listener("http", 80, gatewayv1.HTTPProtocolType, host("foo.example.com")),
		listener("any", 8080, gatewayv1.HTTPProtocolType, host("")),
		listener("tcp", 9000, gatewayv1.TCPProtocolType, host("ignored.example.com")))
	g := processed(t, gw, testOptions(), Lookups{})
	require.Equal(t, gatewayv1.Hostname("foo.example.com"), *mustListener(t, &g, "http").Hostname)
	require.Nil(t, mustListener(t, &g, "any").Hostname, "an empty hostname matches every host")
	require.Nil(t, mustListener(t, &g, "tcp").Hostname, "TCP does not match on hostnames")
}

func TestProcessGatewayObservedGeneration(t *testing.T) {
	// gateway-observed-generation-bump: every condition follows the
	// Gateway's generation, including a listener added in the new one.
	gw := gateway("gw", listener("http", 80, gatewayv1.HTTPProtocolType, host("bar.com"), from(gatewayv1.NamespacesFromAll)))
	first := processed(t, gw, testOptions(), Lookups{})
	gw.Generation = gwGen + 1
	gw.Spec.Listeners = append(gw.Spec.Listeners,
		listener("alternate", 80, gatewayv1.HTTPProtocolType, host("foo.com"), from(gatewayv1.NamespacesFromAll)))
	second := processed(t, gw, testOptions(), Lookups{})

	for _, c := range first.Conditions {
		require.Equal(t, gwGen, c.ObservedGeneration)
	}
	for _, c := range second.Conditions {
		require.Equal(t, gwGen+1, c.ObservedGeneration)
	}
	for _, l := range second.Listeners {
		require.True(t, l.Accepted, "listener %s", l.Name)
		for _, c := range l.Conditions {
			require.Equal(t, gwGen+1, c.ObservedGeneration, "listener %s condition %s", l.Name, c.Type)
		}
	}
}

func TestProcessGatewayConditionOrder(t *testing.T) {
	g := processed(t, gateway("gw", listener("http", 80, gatewayv1.HTTPProtocolType)), testOptions(), Lookups{})
	var types []string
	for _, c := range g.Conditions {
		types = append(types, c.Type)
	}
	require.Equal(t, []string{"Accepted", "Programmed", "ResolvedRefs"}, types)
	types = nil
	for _, c := range g.Listeners[0].Conditions {
		types = append(types, c.Type)
	}
	require.Equal(t, []string{"Accepted", "Conflicted", "Programmed", "ResolvedRefs"}, types)
}

// spec.tls.backend.clientCertificateRef is resolved as a listener's
// certificate is: a usable one is kept for backends; one of another kind,
// missing, or across namespaces without a ReferenceGrant makes the
// Gateway's ResolvedRefs False (InvalidClientCertificateRef or
// RefNotPermitted) and leaves it accepted.
func TestProcessGatewayBackendClientCertificate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ref    gatewayv1.SecretObjectReference
		reason string
	}{
		{"usable", secretRef("", "Secret", "", "tls-validity-checks-certificate"), "ResolvedRefs"},
		{"another kind", secretRef("", "ConfigMap", "", "tls-validity-checks-certificate"), "InvalidClientCertificateRef"},
		{"missing", secretRef("", "Secret", "", "nonexistent"), "InvalidClientCertificateRef"},
		{"another namespace, no grant", secretRef("", "Secret", "other", "tls-validity-checks-certificate"), "RefNotPermitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := gateway("gw", listener("http", 80, gatewayv1.HTTPProtocolType))
			ref := tc.ref
			gw.Spec.TLS = &gatewayv1.GatewayTLSConfig{Backend: &gatewayv1.GatewayBackendTLS{ClientCertificateRef: &ref}}
			g := processed(t, gw, testOptions(), conformanceCluster().lookups())
			status := condFalse
			if tc.reason == "ResolvedRefs" {
				status = condTrue
				require.Equal(t, &SecretRef{Namespace: infraNS, Name: "tls-validity-checks-certificate"}, g.BackendClientCertificate)
			} else {
				require.Nil(t, g.BackendClientCertificate)
			}
			requireConditions(t, g.Conditions, gwGen, want{"Accepted", condTrue, "Accepted"}, want{"ResolvedRefs", status, tc.reason})
		})
	}
}
