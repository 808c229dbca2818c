package filter

import (
	"testing"

	"github.com/stretchr/testify/require"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func duration(d string) *gwapiv1.Duration { return new(gwapiv1.Duration(d)) }

func TestHTTPRuleTimeouts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeouts *gwapiv1.HTTPRouteTimeouts
		want     string // the forwarding timeouts; "" for none
	}{
		{"none", nil, ""},
		{"an empty section", &gwapiv1.HTTPRouteTimeouts{}, ""},
		{"the conformance test's request timeout", &gwapiv1.HTTPRouteTimeouts{Request: duration("500ms")},
			`{"dialTimeout":"500ms","responseHeaderTimeout":"500ms","idleConnTimeout":"1m30s"}`},
		{"the conformance test's backend request timeout", &gwapiv1.HTTPRouteTimeouts{BackendRequest: duration("500ms")},
			`{"dialTimeout":"500ms","responseHeaderTimeout":"500ms","idleConnTimeout":"1m30s"}`},
		{"the smaller of the two", &gwapiv1.HTTPRouteTimeouts{Request: duration("1m"), BackendRequest: duration("45s")},
			`{"dialTimeout":"30s","responseHeaderTimeout":"45s","idleConnTimeout":"1m30s"}`},
		{"backend request under a disabled request timeout", &gwapiv1.HTTPRouteTimeouts{Request: duration("0s"), BackendRequest: duration("2s")},
			`{"dialTimeout":"2s","responseHeaderTimeout":"2s","idleConnTimeout":"1m30s"}`},
		{"disabled: Traefik's defaults, no header timeout", &gwapiv1.HTTPRouteTimeouts{Request: duration("0s")},
			`{"dialTimeout":"30s","idleConnTimeout":"1m30s"}`},
		{"several units", &gwapiv1.HTTPRouteTimeouts{Request: duration("1h2m3s4ms")},
			`{"dialTimeout":"30s","responseHeaderTimeout":"1h2m3.004s","idleConnTimeout":"1m30s"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HTTPRuleTimeouts(rule0, tc.timeouts)
			require.NoError(t, err)
			if tc.want == "" {
				require.Nil(t, got)
				return
			}
			requireJSON(t, tc.want, got)
		})
	}
}

func TestHTTPRuleTimeoutsErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeouts gwapiv1.HTTPRouteTimeouts
		field    string
	}{
		{"Go's syntax is more than Gateway API's", gwapiv1.HTTPRouteTimeouts{Request: duration("1.5s")}, "spec.rules[0].timeouts.request"},
		{"a unit Gateway API lacks", gwapiv1.HTTPRouteTimeouts{BackendRequest: duration("10us")}, "spec.rules[0].timeouts.backendRequest"},
		{"backend request longer than request", gwapiv1.HTTPRouteTimeouts{Request: duration("1s"), BackendRequest: duration("2s")},
			"spec.rules[0].timeouts.backendRequest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HTTPRuleTimeouts(rule0, &tc.timeouts)
			requireOneError(t, err, tc.field, gwapiv1.RouteReasonUnsupportedValue)
			require.Nil(t, got)
		})
	}
}
