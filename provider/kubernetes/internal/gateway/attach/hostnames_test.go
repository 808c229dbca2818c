package attach

import (
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func hostnames(hs ...string) []gatewayv1.Hostname {
	if hs == nil {
		return nil
	}
	out := make([]gatewayv1.Hostname, len(hs))
	for i, h := range hs {
		out[i] = gatewayv1.Hostname(h)
	}
	return out
}

func TestEffectiveHostnames(t *testing.T) {
	tests := []struct {
		name     string
		listener string // "" for none
		route    []string
		want     []string
		ok       bool
	}{
		{"neither names a host: every host", "", nil, nil, true},
		{"listener without hostname takes the route's", "", []string{"first.com", "sub.first.com", "first.com"}, []string{"first.com", "sub.first.com"}, true},
		{"route without hostnames takes the listener's", "foo.example.com", nil, []string{"foo.example.com"}, true},
		{"route without hostnames takes a wildcard listener's", "*.example.com", nil, []string{"*.example.com"}, true},
		// httproute-hostname-intersection, listener-1 very.specific.com.
		{"precise listener, precise route match", "very.specific.com",
			[]string{"non.matching.com", "*.nonmatchingwildcard.io", "very.specific.com"}, []string{"very.specific.com"}, true},
		{"precise listener, wildcard route covering it", "very.specific.com",
			[]string{"non.matching.com", "*.specific.com"}, []string{"very.specific.com"}, true},
		// listener-2 *.wildcard.io.
		{"wildcard listener keeps the route's hosts under it", "*.wildcard.io",
			[]string{"non.matching.com", "wildcard.io", "foo.wildcard.io", "bar.wildcard.io", "foo.bar.wildcard.io"},
			[]string{"foo.wildcard.io", "bar.wildcard.io", "foo.bar.wildcard.io"}, true},
		// listener-3 *.anotherwildcard.io.
		{"equal wildcards", "*.anotherwildcard.io", []string{"*.anotherwildcard.io"}, []string{"*.anotherwildcard.io"}, true},
		{"narrower route wildcard", "*.example.com", []string{"*.foo.example.com"}, []string{"*.foo.example.com"}, true},
		{"narrower listener wildcard", "*.foo.example.com", []string{"*.example.com"}, []string{"*.foo.example.com"}, true},
		{"wildcard needs a label in front", "*.example.com", []string{"example.com"}, nil, false},
		{"suffix must end at a label boundary", "*.example.com", []string{"badexample.com"}, nil, false},
		// no-intersecting-hosts.
		{"nothing in common", "very.specific.com", []string{"specific.but.wrong.com", "wildcard.io"}, nil, false},
		{"unrelated wildcards", "*.wildcard.io", []string{"*.anotherwildcard.io"}, nil, false},
		{"the listener example of the API", "*.example.com", []string{"test.example.com", "test.example.net"}, []string{"test.example.com"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l *gatewayv1.Hostname
			if tt.listener != "" {
				h := gatewayv1.Hostname(tt.listener)
				l = &h
			}
			got, ok := EffectiveHostnames(l, hostnames(tt.route...))
			require.Equal(t, tt.ok, ok)
			require.Equal(t, hostnames(tt.want...), got)
		})
	}
}

func TestHostnamesOverlap(t *testing.T) {
	tests := []struct {
		a, b    []string
		overlap bool
	}{
		{nil, []string{"a.com"}, true},
		{[]string{"a.com"}, nil, true},
		{[]string{"a.com"}, []string{"b.com"}, false},
		{[]string{"a.com", "x.example.com"}, []string{"*.example.com"}, true},
		{[]string{"*.example.com"}, []string{"*.other.com"}, false},
		{[]string{"*.example.com"}, []string{"*.a.example.com"}, true},
	}
	for _, tt := range tests {
		require.Equalf(t, tt.overlap, HostnamesOverlap(hostnames(tt.a...), hostnames(tt.b...)), "%v and %v", tt.a, tt.b)
	}
}
