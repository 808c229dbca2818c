package match_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
	"github.com/sliceway/sliceway/rule"
)

func TestGRPC(t *testing.T) {
	for _, tc := range []struct {
		name       string
		hostnames  []string
		match      gatewayv1.GRPCRouteMatch
		rule       string
		precedence match.Precedence
		yes, no    []*http.Request
	}{
		{
			name: "no method: every call",
			rule: `PathPrefix("/")`,
			yes:  []*http.Request{grpcCall("h", "a.B", "C"), get("http://h/")},
		},
		{
			name:       "a service and a method without a type are Exact",
			match:      gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{Service: new("pkg.Svc"), Method: new("Get")}},
			rule:       `Path("/pkg.Svc/Get")`,
			precedence: match.Precedence{GRPCService: 7, GRPCMethod: 3},
			yes:        []*http.Request{grpcCall("h", "pkg.Svc", "Get")},
			no:         []*http.Request{grpcCall("h", "pkg.Svc", "GetX"), grpcCall("h", "pkg.svc", "Get"), grpcCall("h", "x.pkg.Svc", "Get")},
		},
		{
			name:       "an Exact service: any of its methods",
			match:      gatewayv1.GRPCRouteMatch{Method: grpcExact("pkg.Svc", "")},
			rule:       `PathPrefix("/pkg.Svc/")`,
			precedence: match.Precedence{GRPCService: 7},
			yes:        []*http.Request{grpcCall("h", "pkg.Svc", "Get"), grpcCall("h", "pkg.Svc", "List")},
			no:         []*http.Request{grpcCall("h", "pkg.SvcX", "Get"), grpcCall("h", "pkg", "Get"), get("http://h/pkg.Svc")},
		},
		{
			name:       "an Exact method: of any service",
			match:      gatewayv1.GRPCRouteMatch{Method: grpcExact("", "Get")},
			rule:       `PathRegexp("^/[^/]+/Get$")`,
			precedence: match.Precedence{GRPCMethod: 3},
			yes:        []*http.Request{grpcCall("h", "a.B", "Get"), grpcCall("h", "pkg.Svc", "Get")},
			no:         []*http.Request{grpcCall("h", "a.B", "GetX"), grpcCall("h", "a.B", "XGet"), get("http://h/Get"), get("http://h/a/b/Get")},
		},
		{
			name:       "RegularExpression: each part matches whole",
			match:      gatewayv1.GRPCRouteMatch{Method: grpcRegexp(`pkg\.v[0-9]+\.Svc`, "Get|List")},
			rule:       `PathRegexp("^/(?:pkg\\.v[0-9]+\\.Svc)/(?:Get|List)$")`,
			precedence: match.Precedence{GRPCService: len(`pkg\.v[0-9]+\.Svc`), GRPCMethod: len("Get|List")},
			yes:        []*http.Request{grpcCall("h", "pkg.v1.Svc", "Get"), grpcCall("h", "pkg.v22.Svc", "List")},
			no:         []*http.Request{grpcCall("h", "xpkg.v1.Svc", "Get"), grpcCall("h", "pkg.v1.Svc", "GetX"), grpcCall("h", "pkg.v1.Svc", "Delete")},
		},
		{
			name:       "RegularExpression service only",
			match:      gatewayv1.GRPCRouteMatch{Method: grpcRegexp(`.*\.Admin`, "")},
			rule:       `PathRegexp("^/(?:.*\\.Admin)/[^/]+$")`,
			precedence: match.Precedence{GRPCService: len(`.*\.Admin`)},
			yes:        []*http.Request{grpcCall("h", "a.Admin", "Get")},
			no:         []*http.Request{grpcCall("h", "a.AdminX", "Get"), get("http://h/a.Admin/")},
		},
		{
			name:       "RegularExpression method only",
			match:      gatewayv1.GRPCRouteMatch{Method: grpcRegexp("", "(?i)get")},
			rule:       `PathRegexp("^/[^/]+/(?:(?i)get)$")`,
			precedence: match.Precedence{GRPCMethod: 7},
			yes:        []*http.Request{grpcCall("h", "a.B", "GET"), grpcCall("h", "a.B", "get")},
			no:         []*http.Request{grpcCall("h", "a.B", "getx")},
		},
		{
			name:  "RegularExpression of neither: every call",
			match: gatewayv1.GRPCRouteMatch{Method: grpcRegexp("", "")},
			rule:  `PathPrefix("/")`,
			yes:   []*http.Request{grpcCall("h", "a.B", "C")},
		},
		{
			name:      "hostnames and headers",
			hostnames: []string{"grpc.example.com"},
			match: gatewayv1.GRPCRouteMatch{
				Method:  grpcExact("pkg.Svc", "Get"),
				Headers: append(grpcHeaders("version", "two", "Version", "ignored"), gatewayv1.GRPCHeaderMatch{Type: new(gatewayv1.GRPCHeaderMatchRegularExpression), Name: "color", Value: "blue|green"}),
			},
			rule:       `Host("grpc.example.com") && Path("/pkg.Svc/Get") && Header("version", "two") && HeaderRegexp("color", "^(?:blue|green)$")`,
			precedence: match.Precedence{Host: match.HostRank{Exact: true}, GRPCService: 7, GRPCMethod: 3, Headers: 2},
			yes:        []*http.Request{grpcCall("grpc.example.com", "pkg.Svc", "Get", "version", "two", "color", "green")},
			no: []*http.Request{
				grpcCall("grpc.example.com", "pkg.Svc", "Get", "version", "ignored", "color", "green"),
				grpcCall("grpc.example.com", "pkg.Svc", "Get", "version", "two", "color", "greenish"),
				grpcCall("other.example.com", "pkg.Svc", "Get", "version", "two", "color", "green"),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := match.GRPC(tc.hostnames, tc.match)
			require.NoError(t, err)
			require.Len(t, rules, 1)
			assert.Equal(t, tc.rule, rules[0].Rule)
			assert.Equal(t, tc.precedence, rules[0].Precedence)
			e := parse(t, rules[0].Rule)
			for _, req := range tc.yes {
				assert.True(t, e.MatchRequest(rule.NewRequest(req)), describe(req))
			}
			for _, req := range tc.no {
				assert.False(t, e.MatchRequest(rule.NewRequest(req)), describe(req))
			}
		})
	}
}

func TestGRPCWithoutPOST(t *testing.T) {
	// The rule does not ask for POST: the backend answers other methods.
	rules, err := match.GRPC(nil, gatewayv1.GRPCRouteMatch{Method: grpcExact("pkg.Svc", "Get")})
	require.NoError(t, err)
	assert.True(t, parse(t, rules[0].Rule).MatchRequest(rule.NewRequest(get("http://h/pkg.Svc/Get"))))
}
