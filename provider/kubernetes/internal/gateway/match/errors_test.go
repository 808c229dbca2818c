package match_test

import (
	"errors"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
)

func TestErrors(t *testing.T) {
	httpErr := func(m gatewayv1.HTTPRouteMatch) error { _, err := match.HTTP(nil, m); return err }
	grpcErr := func(m gatewayv1.GRPCRouteMatch) error { _, err := match.GRPC(nil, m); return err }
	for _, tc := range []struct {
		name        string
		err         error
		field       string
		value       string
		unsupported bool   // wraps ErrUnsupported
		regexp      bool   // wraps a *syntax.Error
		msg         string // in the error's text
	}{
		{
			name:        "a path type the API may add",
			err:         httpErr(gatewayv1.HTTPRouteMatch{Path: &gatewayv1.HTTPPathMatch{Type: new(gatewayv1.PathMatchType("Suffix")), Value: new("/a")}}),
			field:       "path.type",
			value:       "Suffix",
			unsupported: true,
			msg:         "want Exact, PathPrefix or RegularExpression",
		},
		{name: "a relative exact path", err: httpErr(gatewayv1.HTTPRouteMatch{Path: exact("a")}), field: "path.value", value: "a", msg: "must start with /"},
		{name: "a relative prefix", err: httpErr(gatewayv1.HTTPRouteMatch{Path: prefix("")}), field: "path.value", msg: "must start with /"},
		{name: "a bad escape", err: httpErr(gatewayv1.HTTPRouteMatch{Path: prefix("/a%zz")}), field: "path.value", value: "/a%zz", msg: `a "%" not followed by two hexadecimal digits`},
		{name: "a cut escape", err: httpErr(gatewayv1.HTTPRouteMatch{Path: exact("/a%2")}), field: "path.value", value: "/a%2", msg: "hexadecimal"},
		{name: "a bad path expression", err: httpErr(gatewayv1.HTTPRouteMatch{Path: regex("/(a")}), field: "path.value", value: "/(a", regexp: true, msg: "missing closing )"},
		{name: "an expression that only wrapping would mend", err: httpErr(gatewayv1.HTTPRouteMatch{Path: regex("a)|(b")}), field: "path.value", value: "a)|(b", regexp: true},
		{name: "an empty path expression", err: httpErr(gatewayv1.HTTPRouteMatch{Path: regex("")}), field: "path.value", msg: "an empty regular expression"},
		{name: "a method not in the API", err: httpErr(gatewayv1.HTTPRouteMatch{Method: method("get")}), field: "method", value: "get", unsupported: true, msg: "want one of GET"},
		{
			name:        "a header match type the API may add",
			err:         httpErr(gatewayv1.HTTPRouteMatch{Headers: append(headers("a", "1"), gatewayv1.HTTPHeaderMatch{Type: new(gatewayv1.HeaderMatchType("Prefix")), Name: "b", Value: "x"})}),
			field:       "headers[1].type",
			value:       "Prefix",
			unsupported: true,
		},
		{name: "an empty header name", err: httpErr(gatewayv1.HTTPRouteMatch{Headers: headers("", "1")}), field: "headers[0].name", msg: "must not be empty"},
		{name: "an empty header value", err: httpErr(gatewayv1.HTTPRouteMatch{Headers: headers("a", "")}), field: "headers[0].value", msg: "must not be empty"},
		{
			name:   "a bad header expression",
			err:    httpErr(gatewayv1.HTTPRouteMatch{Headers: append(headers("a", "1", "b", "2"), headerRegexp("c", "[z-a]"))}),
			field:  "headers[2].value",
			value:  "[z-a]",
			regexp: true,
		},
		{name: "the Host header", err: httpErr(gatewayv1.HTTPRouteMatch{Headers: headers("host", "a.example.com")}), field: "headers[0].name", value: "host", unsupported: true, msg: "Traefik cannot match this header"},
		{name: "the Transfer-Encoding header", err: httpErr(gatewayv1.HTTPRouteMatch{Headers: headers("a", "1", "Transfer-Encoding", "chunked")}), field: "headers[1].name", value: "Transfer-Encoding", unsupported: true},
		{name: "an empty query value", err: httpErr(gatewayv1.HTTPRouteMatch{QueryParams: query("a", "")}), field: "queryParams[0].value", msg: "must not be empty"},
		{name: "a bad query expression", err: httpErr(gatewayv1.HTTPRouteMatch{QueryParams: append(query("a", "1"), queryRegexp("b", "a**"))}), field: "queryParams[1].value", value: "a**", regexp: true},
		{
			name:        "a query match type the API may add",
			err:         httpErr(gatewayv1.HTTPRouteMatch{QueryParams: []gatewayv1.HTTPQueryParamMatch{{Type: new(gatewayv1.QueryParamMatchType("Prefix")), Name: "a", Value: "b"}}}),
			field:       "queryParams[0].type",
			value:       "Prefix",
			unsupported: true,
		},
		{
			name:        "a gRPC method match type the API may add",
			err:         grpcErr(gatewayv1.GRPCRouteMatch{Method: grpcMethod("Prefix", "a", "")}),
			field:       "method.type",
			value:       "Prefix",
			unsupported: true,
		},
		{name: "an Exact service with a slash", err: grpcErr(gatewayv1.GRPCRouteMatch{Method: grpcExact("a/b", "C")}), field: "method.service", value: "a/b", msg: "not a gRPC service name"},
		{name: "an Exact method with a slash", err: grpcErr(gatewayv1.GRPCRouteMatch{Method: grpcExact("a.B", "C/d")}), field: "method.method", value: "C/d", msg: "not a gRPC method name"},
		{name: "an Exact match of nothing", err: grpcErr(gatewayv1.GRPCRouteMatch{Method: grpcExact("", "")}), field: "method", msg: "an Exact match needs a service, a method or both"},
		{name: "a bad service expression", err: grpcErr(gatewayv1.GRPCRouteMatch{Method: grpcRegexp("(", "")}), field: "method.service", value: "(", regexp: true},
		{name: "a bad method expression", err: grpcErr(gatewayv1.GRPCRouteMatch{Method: grpcRegexp("a", "[")}), field: "method.method", value: "[", regexp: true},
		{
			name:        "a gRPC header match type the API may add",
			err:         grpcErr(gatewayv1.GRPCRouteMatch{Headers: []gatewayv1.GRPCHeaderMatch{{Type: new(gatewayv1.GRPCHeaderMatchType("Prefix")), Name: "a", Value: "b"}}}),
			field:       "headers[0].type",
			value:       "Prefix",
			unsupported: true,
		},
		{name: "the Host header of a gRPC call", err: grpcErr(gatewayv1.GRPCRouteMatch{Headers: grpcHeaders("HOST", "a")}), field: "headers[0].name", value: "HOST", unsupported: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fe *match.FieldError
			require.ErrorAs(t, tc.err, &fe)
			assert.Equal(t, tc.field, fe.Field)
			assert.Equal(t, tc.value, fe.Value)
			assert.Equal(t, tc.unsupported, errors.Is(tc.err, match.ErrUnsupported), tc.err.Error())
			var se *syntax.Error
			assert.Equal(t, tc.regexp, errors.As(tc.err, &se), tc.err.Error())
			assert.Contains(t, tc.err.Error(), tc.msg)
			assert.True(t, strings.HasPrefix(tc.err.Error(), tc.field+": "), tc.err.Error())

			under := fe.Under("spec.rules[0].matches[1]")
			assert.Equal(t, "spec.rules[0].matches[1]."+tc.field, under.Field)
			assert.Equal(t, tc.field, fe.Field, "Under leaves the error as it was")
			assert.Equal(t, errors.Is(tc.err, match.ErrUnsupported), errors.Is(under, match.ErrUnsupported))
		})
	}
}

func TestIgnoredDuplicatesAreNotChecked(t *testing.T) {
	// The specification ignores a match on a header or parameter name
	// already matched: its value is not even read.
	_, err := match.HTTP(nil, gatewayv1.HTTPRouteMatch{
		Headers:     append(headers("a", "1"), headerRegexp("A", "(")),
		QueryParams: append(query("q", "1"), queryRegexp("q", "(")),
	})
	require.NoError(t, err)
}

func TestLongValuesInErrorsAreCut(t *testing.T) {
	long := strings.Repeat("a", 4000) + "("
	err := func() error {
		_, err := match.HTTP(nil, gatewayv1.HTTPRouteMatch{Headers: []gatewayv1.HTTPHeaderMatch{headerRegexp("x", long)}})
		return err
	}()
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 1200, err.Error())
	assert.Contains(t, err.Error(), "(4,001 bytes)")
	var fe *match.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, long, fe.Value, "the value itself is whole")
}
