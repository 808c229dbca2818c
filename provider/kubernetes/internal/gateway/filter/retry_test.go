package filter

import (
	"testing"

	"github.com/stretchr/testify/require"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

func TestHTTPRuleRetry(t *testing.T) {
	codes := func(cs ...int) []gwapiv1.HTTPRouteRetryStatusCode {
		out := make([]gwapiv1.HTTPRouteRetryStatusCode, len(cs))
		for i, c := range cs {
			out[i] = gwapiv1.HTTPRouteRetryStatusCode(c)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		retry    *gwapiv1.HTTPRouteRetry
		timeouts *gwapiv1.HTTPRouteTimeouts
		want     dynamic.Middleware
	}{
		{"none", nil, nil, nil},
		{"the conformance test's three retries on 500", &gwapiv1.HTTPRouteRetry{Codes: codes(500), Attempts: new(3)}, nil,
			dynamic.Middleware{"retry": map[string]any{"attempts": 4, "status": []string{"500"}}}},
		{"no attempts: one retry; no codes: connection errors only", &gwapiv1.HTTPRouteRetry{}, nil,
			dynamic.Middleware{"retry": map[string]any{"attempts": 2}}},
		{"backoff twice over, so that jitter never comes earlier; the request timeout bounds them all",
			&gwapiv1.HTTPRouteRetry{Codes: codes(502, 503), Attempts: new(2), Backoff: duration("250ms")},
			&gwapiv1.HTTPRouteTimeouts{Request: duration("5s"), BackendRequest: duration("1s")},
			dynamic.Middleware{"retry": map[string]any{"attempts": 3, "status": []string{"502", "503"}, "initialInterval": "500ms", "timeout": "5s"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HTTPRuleRetry(rule0, tc.retry, tc.timeouts)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	_, err := HTTPRuleRetry(rule0, &gwapiv1.HTTPRouteRetry{Codes: codes(200), Attempts: new(0), Backoff: duration("soon")}, nil)
	require.EqualError(t, err, "spec.rules[0].retry.attempts: 0 is not a number of retries (1 or more); "+
		"spec.rules[0].retry.codes[0]: 200 is not an error status (400 to 599); "+
		`spec.rules[0].retry.backoff: "soon" is not a Gateway API duration (such as 1h30m, 500ms)`)
}
