package filter

import (
	"testing"

	"github.com/stretchr/testify/require"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func mirrorFilter(name string, percent *int32, fraction *gwapiv1.Fraction) gwapiv1.HTTPRouteFilter {
	return gwapiv1.HTTPRouteFilter{Type: gwapiv1.HTTPRouteFilterRequestMirror, RequestMirror: &gwapiv1.HTTPRequestMirrorFilter{
		BackendRef: gwapiv1.BackendObjectReference{Name: gwapiv1.ObjectName(name), Port: new(int32(8080))},
		Percent:    percent,
		Fraction:   fraction,
	}}
}

func TestMirrorPercent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		percent  *int32
		fraction *gwapiv1.Fraction
		want     int
	}{
		{"neither: every request", nil, nil, 100},
		{"percent", new(int32(20)), nil, 20},
		{"no request", new(int32(0)), nil, 0},
		{"the conformance test's fraction", nil, &gwapiv1.Fraction{Numerator: 25, Denominator: new(int32(50))}, 50},
		{"fraction of Gateway API's denominator, 100", nil, &gwapiv1.Fraction{Numerator: 35}, 35},
		{"whole fraction", nil, &gwapiv1.Fraction{Numerator: 3, Denominator: new(int32(3))}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{mirrorFilter("infra-backend-v2", tc.percent, tc.fraction)}}
			res, err := HTTPRuleFilters(Env{}, rule0, "r", r)
			require.NoError(t, err)
			require.Empty(t, res.Middlewares)
			require.Equal(t, []Mirror{{
				Field:      "spec.rules[0].filters[0].requestMirror",
				BackendRef: r.Filters[0].RequestMirror.BackendRef,
				Percent:    tc.want,
			}}, res.Mirrors)
		})
	}
}

func TestMirrorErrors(t *testing.T) {
	base := "spec.rules[0].filters[0].requestMirror"
	for _, tc := range []struct {
		name     string
		percent  *int32
		fraction *gwapiv1.Fraction
		field    string
	}{
		{"not a whole percentage", nil, &gwapiv1.Fraction{Numerator: 1, Denominator: new(int32(3))}, base + ".fraction"},
		{"a thousandth", nil, &gwapiv1.Fraction{Numerator: 1, Denominator: new(int32(1000))}, base + ".fraction"},
		{"more than the whole", nil, &gwapiv1.Fraction{Numerator: 4, Denominator: new(int32(3))}, base + ".fraction.numerator"},
		{"no denominator", nil, &gwapiv1.Fraction{Numerator: 0, Denominator: new(int32(0))}, base + ".fraction.denominator"},
		{"percent over 100", new(int32(101)), nil, base + ".percent"},
		{"percent and fraction", new(int32(10)), &gwapiv1.Fraction{Numerator: 1}, base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{mirrorFilter("m", tc.percent, tc.fraction)}}
			_, err := HTTPRuleFilters(Env{}, rule0, "r", r)
			requireOneError(t, err, tc.field, gwapiv1.RouteReasonUnsupportedValue)
		})
	}
}

// The conformance test HTTPRouteRequestMultipleMirrors: two mirrors of
// one rule, in order, and the service the caller builds of them.
func TestMirroringService(t *testing.T) {
	r := &gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{
		mirrorFilter("infra-backend-v2", nil, nil),
		mirrorFilter("infra-backend-v3", new(int32(35)), nil),
		mirrorFilter("infra-backend-v4", new(int32(0)), nil),
	}}
	res, err := HTTPRuleFilters(Env{}, rule0, "r", r)
	require.NoError(t, err)
	require.Len(t, res.Mirrors, 3)
	targets := make([]MirrorTarget, len(res.Mirrors))
	for i, m := range res.Mirrors {
		targets[i] = MirrorTarget{Service: "svc-" + string(m.BackendRef.Name), Percent: m.Percent}
	}
	requireJSON(t, `{"service":"rule-service","mirrors":[
		{"name":"svc-infra-backend-v2","percent":100},
		{"name":"svc-infra-backend-v3","percent":35}]}`, MirroringService("rule-service", targets))

	// Nothing to mirror: no wrapper, the main service is used as is.
	require.Nil(t, MirroringService("rule-service", targets[2:]))
	require.Nil(t, MirroringService("rule-service", nil))
}
