package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestListenerConflicts(t *testing.T) {
	cert := certs(secretRef("", "Secret", "", "tls-validity-checks-certificate"))
	passthrough := tlsMode(gatewayv1.TLSModePassthrough)

	tests := []struct {
		name      string
		listeners []gatewayv1.Listener
		// conflicted maps listener name to its Conflicted reason; listeners
		// not named must have none.
		conflicted map[string]gatewayv1.ListenerConditionReason
		gateway    want
	}{
		{
			// The listeners of httproute-listener-hostname-matching and of
			// the base same-namespace-with-https-listener Gateway are all
			// distinct: one port, different hostnames.
			name: "same port, different hostnames, wildcard beside precise",
			listeners: []gatewayv1.Listener{
				listener("listener-1", 80, gatewayv1.HTTPProtocolType, host("bar.com")),
				listener("listener-2", 80, gatewayv1.HTTPProtocolType, host("foo.bar.com")),
				listener("listener-3", 80, gatewayv1.HTTPProtocolType, host("*.bar.com")),
				listener("listener-4", 80, gatewayv1.HTTPProtocolType, host("*.foo.com")),
				listener("https", 443, gatewayv1.HTTPSProtocolType, cert),
				listener("https-with-hostname", 443, gatewayv1.HTTPSProtocolType, host("second-example.org"), cert),
				listener("https-with-wildcard-hostname", 443, gatewayv1.HTTPSProtocolType, host("*.wildcard.org"), cert),
				listener("https-with-hostname-matching-wildcard", 443, gatewayv1.HTTPSProtocolType, host("fourth-example.wildcard.org"), cert),
			},
			gateway: want{"Accepted", condTrue, "Accepted"},
		},
		{
			name: "same port and hostname: both refused, no winner",
			listeners: []gatewayv1.Listener{
				listener("a", 80, gatewayv1.HTTPProtocolType, host("foo.com")),
				listener("b", 80, gatewayv1.HTTPProtocolType, host("foo.com")),
				listener("c", 80, gatewayv1.HTTPProtocolType, host("bar.com")),
			},
			conflicted: map[string]gatewayv1.ListenerConditionReason{"a": "HostnameConflict", "b": "HostnameConflict"},
			gateway:    want{"Accepted", condTrue, "ListenersNotValid"},
		},
		{
			name: "two listeners without hostname on one port",
			listeners: []gatewayv1.Listener{
				listener("a", 80, gatewayv1.HTTPProtocolType),
				listener("b", 80, gatewayv1.HTTPProtocolType),
			},
			conflicted: map[string]gatewayv1.ListenerConditionReason{"a": "HostnameConflict", "b": "HostnameConflict"},
			gateway:    want{"Accepted", condFalse, "ListenersNotValid"},
		},
		{
			name: "HTTP and HTTPS on one port",
			listeners: []gatewayv1.Listener{
				listener("http", 80, gatewayv1.HTTPProtocolType, host("a.com")),
				listener("https", 80, gatewayv1.HTTPSProtocolType, host("b.com"), cert),
				listener("other", 8080, gatewayv1.HTTPProtocolType),
			},
			conflicted: map[string]gatewayv1.ListenerConditionReason{"http": "ProtocolConflict", "https": "ProtocolConflict"},
			gateway:    want{"Accepted", condTrue, "ListenersNotValid"},
		},
		{
			name: "TCP beside TLS on one port: every listener of the port is refused",
			listeners: []gatewayv1.Listener{
				listener("tcp", 9000, gatewayv1.TCPProtocolType),
				listener("tls", 9000, gatewayv1.TLSProtocolType, host("x.com"), passthrough),
				listener("http", 80, gatewayv1.HTTPProtocolType),
			},
			conflicted: map[string]gatewayv1.ListenerConditionReason{"tcp": "ProtocolConflict", "tls": "ProtocolConflict"},
			gateway:    want{"Accepted", condTrue, "ListenersNotValid"},
		},
		{
			name: "two TCP listeners on one port are not distinct",
			listeners: []gatewayv1.Listener{
				listener("a", 9000, gatewayv1.TCPProtocolType, host("a.com")),
				listener("b", 9000, gatewayv1.TCPProtocolType, host("b.com")),
			},
			conflicted: map[string]gatewayv1.ListenerConditionReason{"a": "HostnameConflict", "b": "HostnameConflict"},
			gateway:    want{"Accepted", condFalse, "ListenersNotValid"},
		},
		{
			name: "TCP and UDP on one port number never meet",
			listeners: []gatewayv1.Listener{
				listener("tcp", 9000, gatewayv1.TCPProtocolType),
				listener("udp", 9000, gatewayv1.UDPProtocolType),
			},
			gateway: want{"Accepted", condTrue, "Accepted"},
		},
		{
			name: "HTTPS and TLS share a port by SNI when hostnames differ",
			listeners: []gatewayv1.Listener{
				listener("https", 443, gatewayv1.HTTPSProtocolType, host("web.example.com"), cert),
				listener("tls", 443, gatewayv1.TLSProtocolType, host("db.example.com"), passthrough),
			},
			gateway: want{"Accepted", condTrue, "Accepted"},
		},
		{
			name: "HTTPS and TLS with one hostname on one port",
			listeners: []gatewayv1.Listener{
				listener("https", 443, gatewayv1.HTTPSProtocolType, host("x.example.com"), cert),
				listener("tls", 443, gatewayv1.TLSProtocolType, host("x.example.com"), passthrough),
			},
			conflicted: map[string]gatewayv1.ListenerConditionReason{"https": "HostnameConflict", "tls": "HostnameConflict"},
			gateway:    want{"Accepted", condFalse, "ListenersNotValid"},
		},
		{
			name: "an unsupported protocol takes no part in conflicts",
			listeners: []gatewayv1.Listener{
				listener("http", 80, gatewayv1.HTTPProtocolType),
				listener("odd", 80, "example.com/odd"),
			},
			gateway: want{"Accepted", condTrue, "ListenersNotValid"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			opts.RouteKinds = []gatewayv1.Kind{KindHTTPRoute, KindGRPCRoute, KindTLSRoute, KindTCPRoute, KindUDPRoute}
			g := processed(t, gateway("gw", tt.listeners...), opts, conformanceCluster().lookups())
			requireConditions(t, g.Conditions, gwGen, tt.gateway)
			for _, l := range g.Listeners {
				reason, conflicted := tt.conflicted[string(l.Name)]
				require.Equalf(t, conflicted, l.Conflicted, "listener %s", l.Name)
				if !conflicted {
					requireConditions(t, l.Conditions, gwGen, want{"Conflicted", condFalse, "NoConflicts"})
					continue
				}
				// Accepted carries the listener's first problem: the conflict,
				// or a missing entry point found before it (one entry point
				// per port cannot carry two protocol families either).
				requireConditions(t, l.Conditions, gwGen,
					want{"Conflicted", condTrue, string(reason)},
					want{"Accepted", condFalse, ""},
					want{"Programmed", condFalse, "Invalid"})
				accepted, _ := FindCondition(l.Conditions, "Accepted")
				require.Contains(t, []string{string(reason), "PortUnavailable"}, accepted.Reason)
				require.False(t, l.Programmed)
			}
		})
	}
}

func TestConflictMessageNamesTheOthers(t *testing.T) {
	g := processed(t, gateway("gw",
		listener("a", 80, gatewayv1.HTTPProtocolType, host("foo.com")),
		listener("b", 80, gatewayv1.HTTPProtocolType, host("foo.com")),
		listener("c", 80, gatewayv1.HTTPProtocolType, host("foo.com"))), testOptions(), Lookups{})
	c, _ := FindCondition(mustListener(t, &g, "a").Conditions, "Conflicted")
	require.Equal(t, "port 80 and foo.com are also used by listener(s) b, c", c.Message)
	acc, _ := FindCondition(mustListener(t, &g, "a").Conditions, "Accepted")
	require.Equal(t, "HostnameConflict", acc.Reason, "with an entry point, the conflict is the reason")
	a, _ := FindCondition(g.Conditions, "Accepted")
	require.Equal(t, "no listener is accepted: a, b, c", a.Message)
}
