package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestProcessClass(t *testing.T) {
	withParams := class(ourCtrl)
	ns := gatewayv1.Namespace("config")
	withParams.Spec.ParametersRef = &gatewayv1.ParametersReference{Group: "example.com", Kind: "Config", Name: "proxy", Namespace: &ns}

	tests := []struct {
		name       string
		class      *gatewayv1.GatewayClass
		controller gatewayv1.GatewayController
		ours       bool
		accepted   bool
		want       []want
		message    string
	}{
		{name: "ours", class: class(ourCtrl), controller: ourCtrl, ours: true, accepted: true,
			want: []want{{"Accepted", condTrue, "Accepted"}}},
		{name: "another controller's: no conditions", class: class("example.net/other"), controller: ourCtrl},
		{name: "no controller name configured: nothing is ours", class: class(""), controller: ""},
		{name: "no class", controller: ourCtrl},
		{name: "parameters are refused", class: withParams, controller: ourCtrl, ours: true,
			want:    []want{{"Accepted", condFalse, "InvalidParameters"}},
			message: "GatewayClass sliceway: spec.parametersRef: Config.example.com config/proxy is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ProcessClass(tt.class, tt.controller)
			require.Equal(t, tt.ours, c.Ours)
			require.Equal(t, tt.accepted, c.Accepted)
			if !tt.ours {
				require.Empty(t, c.Conditions)
				return
			}
			// gatewayclass-observed-generation-bump: conditions follow the
			// class's generation.
			requireConditions(t, c.Conditions, tt.class.Generation, tt.want...)
			if tt.message != "" {
				require.Contains(t, c.Conditions[0].Message, tt.message)
			}
		})
	}
}
