package match_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
	"github.com/sliceway/sliceway/rule"
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

// Listener isolation: a rule of a wider listener leaves the hosts of
// narrower ones to them, and says so only where its own hosts could be
// theirs; the rule reads back as Traefik reads it.
func TestIsolated(t *testing.T) {
	narrower := []string{"*.foo.example.com", "bar.example.com"}
	open := match.Isolated(match.Rule{Rule: `PathPrefix("/")`}, narrower)
	e := parse(t, open.Rule)
	for host, want := range map[string]bool{"a.example.com": true, "abc.foo.example.com": false, "bar.example.com": false, "example.org": true} {
		assert.Equal(t, want, e.MatchRequest(rule.NewRequest(get("http://"+host+"/"))), host)
	}

	rules, err := match.HTTP([]string{"*.example.com"}, gatewayv1.HTTPRouteMatch{})
	require.NoError(t, err)
	wild := match.Isolated(rules[0], narrower)
	e = parse(t, wild.Rule)
	assert.True(t, e.MatchRequest(rule.NewRequest(get("http://a.example.com/"))))
	assert.False(t, e.MatchRequest(rule.NewRequest(get("http://x.foo.example.com/"))))
	assert.Equal(t, rules[0].Precedence, wild.Precedence)

	rules, err = match.HTTP([]string{"baz.example.com"}, gatewayv1.HTTPRouteMatch{})
	require.NoError(t, err)
	assert.Equal(t, rules[0], match.Isolated(rules[0], narrower), "no host of the rule is a narrower listener's")

	assert.True(t, match.MoreSpecific(new("a.example.com"), nil))
	assert.True(t, match.MoreSpecific(new("*.a.example.com"), new("*.example.com")))
	assert.False(t, match.MoreSpecific(new("*.example.com"), new("*.example.com")))
	assert.False(t, match.MoreSpecific(new("a.example.org"), new("*.example.com")))
	assert.False(t, match.MoreSpecific(nil, new("*.example.com")))
}
