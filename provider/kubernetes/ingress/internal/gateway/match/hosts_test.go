package match_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/match"
)

func TestHostnames(t *testing.T) {
	for _, tc := range []struct {
		hostnames []string
		yes, no   []string // request hosts
	}{
		{
			// A suffix match: one or more labels, unlike an Ingress wildcard.
			hostnames: []string{"*.example.com"},
			yes:       []string{"a.example.com", "a.b.example.com", "x-1.y.z.example.com", "A.EXAMPLE.COM:8443", "a.example.com."},
			no:        []string{"example.com", "aexample.com", ".example.com", "a..example.com", "a.example.com.evil.org", "a.example.org", "a.example.comx"},
		},
		{
			hostnames: []string{"foo.example.com"},
			yes:       []string{"foo.example.com", "FOO.example.com:80", "foo.example.com."},
			no:        []string{"a.foo.example.com", "example.com", "foo.example.com.evil.org"},
		},
		{
			hostnames: []string{"a.io", "*.b.io", "*.cc.io"},
			yes:       []string{"a.io", "x.b.io", "x.y.cc.io"},
			no:        []string{"x.a.io", "b.io", "cc.io"},
		},
		{
			hostnames: nil,
			yes:       []string{"anything.at.all", "10.0.0.1:8080"},
		},
	} {
		t.Run(strings.Join(tc.hostnames, ","), func(t *testing.T) {
			for _, host := range tc.yes {
				assert.True(t, matches(t, tc.hostnames, gatewayv1.HTTPRouteMatch{}, get("http://"+host+"/")), host)
			}
			for _, host := range tc.no {
				assert.False(t, matches(t, tc.hostnames, gatewayv1.HTTPRouteMatch{}, get("http://"+host+"/")), host)
			}
		})
	}
}

func TestHostnameErrors(t *testing.T) {
	for _, bad := range []string{"", "*", "*.", "*.*.example.com", "a.*.example.com", "foo_bar.example.com", "a.example.com:80", "-a.example.com", "10.0.0.1.", "é.example.com", "A_B.example.com"} {
		for _, build := range []func() error{
			func() error {
				_, err := match.HTTP([]string{"ok.example.com", bad}, gatewayv1.HTTPRouteMatch{})
				return err
			},
			func() error { _, err := match.GRPC([]string{bad}, gatewayv1.GRPCRouteMatch{}); return err },
		} {
			err := build()
			var he *match.HostnameError
			require.ErrorAs(t, err, &he, "%q", bad)
			assert.Equal(t, bad, he.Hostname)
			assert.Contains(t, err.Error(), "is not a precise or wildcard DNS name")
			assert.False(t, errors.Is(err, match.ErrUnsupported))
		}
	}
	// The longest hostname the API allows, and one more character.
	longest := strings.Repeat("a.", 125) + "abc"
	require.Len(t, longest, 253)
	_, err := match.HTTP([]string{longest}, gatewayv1.HTTPRouteMatch{})
	require.NoError(t, err)
	_, err = match.HTTP([]string{"b" + longest}, gatewayv1.HTTPRouteMatch{})
	var he *match.HostnameError
	require.ErrorAs(t, err, &he)
}
