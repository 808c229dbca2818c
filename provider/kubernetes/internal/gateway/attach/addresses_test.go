package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestGatewayAddresses(t *testing.T) {
	ip, hostname := gatewayv1.IPAddressType, gatewayv1.HostnameAddressType
	fake := gatewayv1.AddressType("test/fake-invalid-type")
	have := []gatewayv1.GatewayStatusAddress{
		{Type: &ip, Value: "192.0.2.10"},
		{Value: "2001:db8::10"}, // type inferred: IPAddress
		{Value: "lb.example.com"},
	}
	tests := []struct {
		name     string
		have     []gatewayv1.GatewayStatusAddress
		spec     []gatewayv1.GatewaySpecAddress
		accepted want
		program  want
		status   []string
	}{
		{
			name: "no request: every known address", have: have,
			accepted: want{"Accepted", condTrue, "Accepted"}, program: want{"Programmed", condTrue, "Programmed"},
			status: []string{"IPAddress 192.0.2.10", "IPAddress 2001:db8::10", "Hostname lb.example.com"},
		},
		{
			name:     "no request and no known address",
			accepted: want{"Accepted", condTrue, "Accepted"}, program: want{"Programmed", condFalse, "AddressNotAssigned"},
		},
		{
			// gateway-static-addresses, first state: an unsupported type
			// refuses the Gateway.
			name: "an unsupported address type", have: have,
			spec: []gatewayv1.GatewaySpecAddress{
				{Type: &fake, Value: "fake address teehee!"}, {Value: "198.51.100.1"}, {Value: "192.0.2.10"},
			},
			accepted: want{"Accepted", condFalse, "UnsupportedAddress"}, program: want{"Programmed", condFalse, "Invalid"},
			status: []string{"IPAddress 192.0.2.10"},
		},
		{
			// Second state: the unusable address keeps it from being
			// programmed.
			name: "a value the proxy does not have", have: have,
			spec:     []gatewayv1.GatewaySpecAddress{{Value: "198.51.100.1"}, {Value: "192.0.2.10"}},
			accepted: want{"Accepted", condTrue, "Accepted"}, program: want{"Programmed", condFalse, "AddressNotUsable"},
			status: []string{"IPAddress 192.0.2.10"},
		},
		{
			// Last state: only the usable address, which is published.
			name: "a value the proxy has", have: have,
			spec:     []gatewayv1.GatewaySpecAddress{{Value: "192.0.2.10"}},
			accepted: want{"Accepted", condTrue, "Accepted"}, program: want{"Programmed", condTrue, "Programmed"},
			status: []string{"IPAddress 192.0.2.10"},
		},
		{
			name: "IP addresses compare by value", have: have,
			spec:     []gatewayv1.GatewaySpecAddress{{Type: &ip, Value: "2001:0db8:0::10"}},
			accepted: want{"Accepted", condTrue, "Accepted"}, program: want{"Programmed", condTrue, "Programmed"},
			status: []string{"IPAddress 2001:db8::10"},
		},
		{
			// gateway-optional-address-value: a type without a value takes
			// the proxy's addresses of that type.
			name: "a type without value", have: have,
			spec:     []gatewayv1.GatewaySpecAddress{{Type: &ip}},
			accepted: want{"Accepted", condTrue, "Accepted"}, program: want{"Programmed", condTrue, "Programmed"},
			status: []string{"IPAddress 192.0.2.10", "IPAddress 2001:db8::10"},
		},
		{
			name: "a type the proxy has no address of", have: have[:2],
			spec:     []gatewayv1.GatewaySpecAddress{{Type: &hostname}},
			accepted: want{"Accepted", condTrue, "Accepted"}, program: want{"Programmed", condFalse, "AddressNotAssigned"},
		},
		{
			name: "a hostname, in any case, listed once", have: have,
			spec:     []gatewayv1.GatewaySpecAddress{{Type: &hostname, Value: "LB.example.com"}, {Type: &hostname}},
			accepted: want{"Accepted", condTrue, "Accepted"}, program: want{"Programmed", condTrue, "Programmed"},
			status: []string{"Hostname lb.example.com"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := gateway("gw", listener("http", 80, gatewayv1.HTTPProtocolType))
			gw.Spec.Addresses = tt.spec
			opts := testOptions()
			opts.Addresses = tt.have
			g := processed(t, gw, opts, Lookups{})
			requireConditions(t, g.Conditions, gwGen, tt.accepted, tt.program)
			var got []string
			for _, a := range g.Addresses {
				got = append(got, string(*a.Type)+" "+a.Value)
			}
			require.Equal(t, tt.status, got)
			require.Equal(t, tt.program.status == condTrue, g.Programmed)
		})
	}
}

func TestGatewayAddressesLimit(t *testing.T) {
	var have []gatewayv1.GatewayStatusAddress
	for i := range 20 {
		have = append(have, gatewayv1.GatewayStatusAddress{Value: "10.0.0." + string(rune('a'+i)) + ".example.com"})
	}
	c := checkAddresses(nil, have)
	require.Len(t, c.status, maxStatusAddresses)
}
