package endpoints

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ---- helpers ----

func ptr[T any](v T) *T { return &v }

func slice(name string, t discoveryv1.AddressType, ports []discoveryv1.EndpointPort, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: name},
		AddressType: t,
		Ports:       ports,
		Endpoints:   eps,
	}
}

// tcp is a port with an explicit name and TCP protocol.
func tcp(name string, port int32) discoveryv1.EndpointPort {
	return discoveryv1.EndpointPort{Name: ptr(name), Protocol: ptr(corev1.ProtocolTCP), Port: ptr(port)}
}

// http is the port list most tests use: one port named "http", 8080.
func http() []discoveryv1.EndpointPort { return []discoveryv1.EndpointPort{tcp("http", 8080)} }

func conds(ready, serving, terminating *bool) discoveryv1.EndpointConditions {
	return discoveryv1.EndpointConditions{Ready: ready, Serving: serving, Terminating: terminating}
}

var (
	yes = ptr(true)
	no  = ptr(false)

	condReady       = conds(yes, yes, no)
	condTerminating = conds(no, yes, yes) // serving and terminating
	condUnusable    = conds(no, no, yes)  // terminating and not serving
	condNotReady    = conds(no, no, no)   // starting up
)

func ep(c discoveryv1.EndpointConditions, addrs ...string) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: addrs, Conditions: c}
}

func ready(addrs ...string) discoveryv1.Endpoint { return ep(condReady, addrs...) }

func term(addrs ...string) discoveryv1.Endpoint { return ep(condTerminating, addrs...) }

func normal(addr string, port int32) Backend { return Backend{Address: addr, Port: port} }

func fenced(addr string, port int32) Backend { return Backend{Address: addr, Port: port, Fenced: true} }

func problemStrings(ps []*Problem) []string {
	if len(ps) == 0 {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Error()
	}
	return out
}

type selectCase struct {
	name     string
	slices   []*discoveryv1.EndpointSlice
	port     string
	opts     Options
	want     []Backend
	problems []string
}

func runSelectCases(t *testing.T, cases []selectCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, problems := Select(tc.slices, tc.port, tc.opts)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.problems, problemStrings(problems))
			for _, p := range problems {
				require.Error(t, p.Err)
			}
		})
	}
}

// ---- API odds and ends ----

func TestParseTerminatingPolicy(t *testing.T) {
	good := []struct {
		in   string
		want TerminatingPolicy
	}{
		{"", TerminatingFallback},
		{"fallback", TerminatingFallback},
		{"fence", TerminatingFence},
		{"exclude", TerminatingExclude},
		{"Fence", TerminatingFence},
		{" EXCLUDE ", TerminatingExclude},
	}
	for _, tc := range good {
		t.Run("good/"+tc.in, func(t *testing.T) {
			got, err := ParseTerminatingPolicy(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	for _, in := range []string{"fenced", "drop", "true", "fall back", "-"} {
		t.Run("bad/"+in, func(t *testing.T) {
			got, err := ParseTerminatingPolicy(in)
			require.Error(t, err)
			assert.Empty(t, got)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q", in))
			for _, v := range []string{"fallback", "fence", "exclude"} {
				assert.Contains(t, err.Error(), `"`+v+`"`)
			}
		})
	}
}

func TestBackendHostPort(t *testing.T) {
	cases := []struct {
		b    Backend
		want string
	}{
		{normal("10.0.0.1", 80), "10.0.0.1:80"},
		{normal("fd00::1", 8080), "[fd00::1]:8080"},
		{fenced("::ffff:1.2.3.4", 443), "[::ffff:1.2.3.4]:443"},
		{normal("svc.example.com", 65535), "svc.example.com:65535"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.b.HostPort())
		})
	}
}

func TestProblemErrorAndUnwrap(t *testing.T) {
	inner := errors.New("boom")
	p := &Problem{Slice: "ns/name", Field: "endpoints[3].addresses[0]", Err: inner}
	assert.Equal(t, "endpointslice ns/name: endpoints[3].addresses[0]: boom", p.Error())
	require.ErrorIs(t, p, inner)

	var err error = p
	var target *Problem
	require.ErrorAs(t, err, &target)
	assert.Same(t, p, target)

	var nilP *Problem
	assert.Equal(t, "<nil>", nilP.Error())
	assert.NoError(t, nilP.Unwrap())

	_, problems := Select([]*discoveryv1.EndpointSlice{
		slice("s", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.999")),
	}, "http", Options{})
	require.Len(t, problems, 1)
	assert.Equal(t, `endpointslice ns/s: endpoints[0].addresses[0]: "10.0.0.999" is not a valid IPv4 address`, problems[0].Error())
	assert.Equal(t, "ns/s", problems[0].Slice)
	assert.Equal(t, "endpoints[0].addresses[0]", problems[0].Field)
}

// ---- rule 1: ports ----

func TestSelectPorts(t *testing.T) {
	v4 := discoveryv1.AddressTypeIPv4
	eps := []discoveryv1.Endpoint{ready("10.0.0.1")}
	cases := []selectCase{
		{
			name:   "nil ports",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, nil, eps...)},
			port:   "",
		},
		{
			name:   "empty ports",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{}, eps...)},
			port:   "http",
		},
		{
			name:   "named port",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{tcp("metrics", 9090), tcp("http", 8080)}, eps...)},
			port:   "http",
			want:   []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name:   "port name not found",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http(), eps...)},
			port:   "https",
		},
		{
			name:   "unnamed port with nil name",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{{Port: ptr(int32(80))}}, eps...)},
			port:   "",
			want:   []Backend{normal("10.0.0.1", 80)},
		},
		{
			name:   "unnamed port with empty name",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{tcp("", 81)}, eps...)},
			port:   "",
			want:   []Backend{normal("10.0.0.1", 81)},
		},
		{
			name:   "unnamed port does not match a named request",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{{Port: ptr(int32(80))}}, eps...)},
			port:   "http",
		},
		{
			name:   "named port does not match an unnamed request",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http(), eps...)},
			port:   "",
		},
		{
			name: "nil protocol is TCP",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4,
				[]discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(8080))}}, eps...)},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "UDP and SCTP ports skipped with a warning, TCP one used",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{
				{Name: ptr("dns"), Protocol: ptr(corev1.ProtocolUDP), Port: ptr(int32(53))},
				{Name: ptr("dns"), Protocol: ptr(corev1.ProtocolSCTP), Port: ptr(int32(54))},
				tcp("dns", 5353),
			}, eps...)},
			port: "dns",
			want: []Backend{normal("10.0.0.1", 5353)},
			problems: []string{
				`endpointslice ns/a: ports[0].protocol: port "dns" is UDP, not TCP`,
				`endpointslice ns/a: ports[1].protocol: port "dns" is SCTP, not TCP`,
			},
		},
		{
			name: "only a UDP port",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{
				{Name: ptr("dns"), Protocol: ptr(corev1.ProtocolUDP), Port: ptr(int32(53))},
			}, eps...)},
			port:     "dns",
			problems: []string{`endpointslice ns/a: ports[0].protocol: port "dns" is UDP, not TCP`},
		},
		{
			name: "UDP port of another name is not reported",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{
				{Name: ptr("dns"), Protocol: ptr(corev1.ProtocolUDP), Port: ptr(int32(53))},
				tcp("http", 8080),
			}, eps...)},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "nil port value skipped with a warning",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{
				{Name: ptr("http"), Protocol: ptr(corev1.ProtocolTCP)},
				tcp("http", 8081),
			}, eps...)},
			port:     "http",
			want:     []Backend{normal("10.0.0.1", 8081)},
			problems: []string{`endpointslice ns/a: ports[0].port: port "http" has no number`},
		},
		{
			name: "only a nil port value",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{
				{Name: ptr("http")},
			}, eps...)},
			port:     "http",
			problems: []string{`endpointslice ns/a: ports[0].port: port "http" has no number`},
		},
		{
			name:   "first matching entry wins",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{tcp("http", 8080), tcp("http", 9090)}, eps...)},
			port:   "http",
			want:   []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "port 0 out of range, even with a later valid entry",
			slices: []*discoveryv1.EndpointSlice{
				slice("a", v4, []discoveryv1.EndpointPort{tcp("x", 1), tcp("http", 0), tcp("http", 8080)}, eps...),
				slice("b", v4, http(), ready("10.0.0.2")),
			},
			port:     "http",
			want:     []Backend{normal("10.0.0.2", 8080)},
			problems: []string{"endpointslice ns/a: ports[1].port: port 0 is outside 1..65535"},
		},
		{
			name:     "port 65536 out of range",
			slices:   []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{tcp("http", 65536)}, eps...)},
			port:     "http",
			problems: []string{"endpointslice ns/a: ports[0].port: port 65536 is outside 1..65535"},
		},
		{
			name:     "negative port out of range",
			slices:   []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{tcp("http", -1)}, eps...)},
			port:     "http",
			problems: []string{"endpointslice ns/a: ports[0].port: port -1 is outside 1..65535"},
		},
		{
			name:   "port bounds 1 and 65535 accepted",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, []discoveryv1.EndpointPort{tcp("lo", 1)}, eps...), slice("b", v4, []discoveryv1.EndpointPort{tcp("lo", 65535)}, eps...)},
			port:   "lo",
			want:   []Backend{normal("10.0.0.1", 1), normal("10.0.0.1", 65535)},
		},
		{
			name: "bad port in a slice without the requested port is not reported",
			slices: []*discoveryv1.EndpointSlice{
				slice("a", v4, []discoveryv1.EndpointPort{tcp("other", 0)}, eps...),
			},
			port: "http",
		},
	}
	runSelectCases(t, cases)
}

// ---- rule 2: address types ----

func TestSelectAddresses(t *testing.T) {
	v4, v6 := discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6
	cases := []selectCase{
		{
			name: "IPv4 slice drops IPv6, mapped and invalid addresses, keeps the rest",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http(),
				ready("10.0.0.1", "fd00::1", "10.0.0.999"),
				ready("::ffff:10.0.0.3"),
				ready(""),
				ready("10.0.0.2"),
				ready("10.0.0.4/32"),
				ready("010.0.0.5"),
			)},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)},
			problems: []string{
				`endpointslice ns/a: endpoints[0].addresses[1]: "fd00::1" is not a valid IPv4 address: it is IPv6`,
				`endpointslice ns/a: endpoints[0].addresses[2]: "10.0.0.999" is not a valid IPv4 address`,
				`endpointslice ns/a: endpoints[1].addresses[0]: "::ffff:10.0.0.3" is not a valid IPv4 address: it is IPv6`,
				`endpointslice ns/a: endpoints[2].addresses[0]: "" is not a valid IPv4 address`,
				`endpointslice ns/a: endpoints[4].addresses[0]: "10.0.0.4/32" is not a valid IPv4 address`,
				`endpointslice ns/a: endpoints[5].addresses[0]: "010.0.0.5" is not a valid IPv4 address`,
			},
		},
		{
			name: "IPv6 slice: canonical form; IPv4, mapped IPv4 and zones dropped",
			slices: []*discoveryv1.EndpointSlice{slice("b", v6, http(),
				ready("FD00:0:0::0001", "10.0.0.1"),
				ready("::ffff:1.2.3.4"),
				ready("fe80::1%eth0"),
				ready("fd00::zz"),
				ready("2001:db8::1"),
			)},
			port: "http",
			want: []Backend{
				normal("2001:db8::1", 8080),
				normal("fd00::1", 8080),
			},
			problems: []string{
				`endpointslice ns/b: endpoints[0].addresses[1]: "10.0.0.1" is not a valid IPv6 address: it is IPv4`,
				`endpointslice ns/b: endpoints[1].addresses[0]: "::ffff:1.2.3.4" is not a valid IPv6 address: it is an IPv4-mapped address`,
				`endpointslice ns/b: endpoints[2].addresses[0]: "fe80::1%eth0" is not a valid IPv6 address: zones are not allowed`,
				`endpointslice ns/b: endpoints[3].addresses[0]: "fd00::zz" is not a valid IPv6 address`,
			},
		},
		{
			name: "IPv4 and IPv6 slices of a dual-stack service are merged",
			slices: []*discoveryv1.EndpointSlice{
				slice("v6", v6, http(), ready("fd00::2"), ready("fd00::1")),
				slice("v4", v4, http(), ready("10.0.0.2"), ready("10.0.0.1")),
			},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080), normal("fd00::1", 8080), normal("fd00::2", 8080)},
		},
		{
			name: "all addresses of an endpoint are used",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http(),
				ep(condTerminating, "10.0.0.3", "10.0.0.1", "10.0.0.2"),
			)},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080), normal("10.0.0.3", 8080)},
		},
		{
			name: "endpoints without addresses contribute nothing",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http(),
				discoveryv1.Endpoint{},
				discoveryv1.Endpoint{Addresses: []string{}, Conditions: condReady},
				ready("10.0.0.1"),
			)},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name:   "no endpoints at all",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http())},
			port:   "http",
		},
	}
	runSelectCases(t, cases)
}

func TestSelectAddressTypes(t *testing.T) {
	fq := discoveryv1.AddressTypeFQDN
	cases := []selectCase{
		{
			name: "FQDN off",
			slices: []*discoveryv1.EndpointSlice{
				slice("f", fq, http(), ready("svc.example.com")),
				slice("v4", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.1")),
			},
			port:     "http",
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{"endpointslice ns/f: addressType: slices of address type FQDN are not used unless allowFQDNEndpoints is set"},
		},
		{
			name: "FQDN off but the slice does not serve the port: nothing reported",
			slices: []*discoveryv1.EndpointSlice{
				slice("f", fq, []discoveryv1.EndpointPort{tcp("grpc", 9000)}, ready("svc.example.com")),
			},
			port: "http",
		},
		{
			name: "FQDN on: lower-cased, invalid names dropped, sorted after IPs",
			slices: []*discoveryv1.EndpointSlice{
				slice("f", fq, http(),
					ready("B.Example.COM"),
					ready("a.example.com", "bad_name.example.com"),
					ready("-bad.example.com"),
					ready("example.com."),
					term("c.example.com"),
					ready(""),
				),
				slice("v6", discoveryv1.AddressTypeIPv6, http(), ready("fd00::1")),
				slice("v4", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.1")),
			},
			port: "http",
			opts: Options{AllowFQDN: true},
			want: []Backend{
				normal("10.0.0.1", 8080),
				normal("fd00::1", 8080),
				normal("a.example.com", 8080),
				normal("b.example.com", 8080),
				fenced("c.example.com", 8080),
			},
			problems: []string{
				`endpointslice ns/f: endpoints[1].addresses[1]: "bad_name.example.com" is not a valid DNS-1123 subdomain: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`endpointslice ns/f: endpoints[2].addresses[0]: "-bad.example.com" is not a valid DNS-1123 subdomain: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`endpointslice ns/f: endpoints[3].addresses[0]: "example.com." is not a valid DNS-1123 subdomain: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`endpointslice ns/f: endpoints[5].addresses[0]: "" is not a valid DNS-1123 subdomain: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			},
		},
		{
			name: "FQDN on: same name in two cases is one backend, a dotted quad is an IP",
			slices: []*discoveryv1.EndpointSlice{
				slice("f", fq, http(), term("Svc.Example.com"), ready("svc.example.com"), term("10.0.0.1")),
				slice("v4", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.1")),
			},
			port: "http",
			opts: Options{AllowFQDN: true},
			want: []Backend{normal("10.0.0.1", 8080), normal("svc.example.com", 8080)},
		},
		{
			name:     "unknown address type",
			slices:   []*discoveryv1.EndpointSlice{slice("u", "IPv5", http(), ready("10.0.0.1"))},
			port:     "http",
			opts:     Options{AllowFQDN: true},
			problems: []string{`endpointslice ns/u: addressType: unsupported address type "IPv5" (want IPv4, IPv6 or FQDN)`},
		},
		{
			name:     "empty address type",
			slices:   []*discoveryv1.EndpointSlice{slice("u", "", http(), ready("10.0.0.1"))},
			port:     "http",
			problems: []string{`endpointslice ns/u: addressType: unsupported address type "" (want IPv4, IPv6 or FQDN)`},
		},
		{
			name:     "address type is case sensitive",
			slices:   []*discoveryv1.EndpointSlice{slice("u", "ipv4", http(), ready("10.0.0.1"))},
			port:     "http",
			problems: []string{`endpointslice ns/u: addressType: unsupported address type "ipv4" (want IPv4, IPv6 or FQDN)`},
		},
	}
	runSelectCases(t, cases)
}

// ---- rule 4: conditions: see conditions_test.go ----

// ---- nil handling ----

func TestSelectNilInputs(t *testing.T) {
	v4 := discoveryv1.AddressTypeIPv4
	cases := []selectCase{
		{name: "nil list", slices: nil, port: "http"},
		{name: "empty list", slices: []*discoveryv1.EndpointSlice{}, port: "http"},
		{name: "only nil slices", slices: []*discoveryv1.EndpointSlice{nil, nil}, port: "http"},
		{
			name:   "nil slices between good ones",
			slices: []*discoveryv1.EndpointSlice{nil, slice("a", v4, http(), ready("10.0.0.2")), nil, slice("b", v4, http(), ready("10.0.0.1")), nil},
			port:   "http",
			want:   []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)},
		},
		{
			name:   "zero slice",
			slices: []*discoveryv1.EndpointSlice{{}},
			port:   "",
		},
		{
			name: "all pointer fields nil",
			slices: []*discoveryv1.EndpointSlice{{
				AddressType: v4,
				Ports:       []discoveryv1.EndpointPort{{}, {Port: ptr(int32(80))}},
				Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}, {}},
			}},
			port:     "",
			want:     []Backend{normal("10.0.0.1", 80)},
			problems: []string{`endpointslice : ports[0].port: port "" has no number`},
		},
		{
			name: "slice without namespace is named by its name",
			slices: []*discoveryv1.EndpointSlice{{
				ObjectMeta:  metav1.ObjectMeta{Name: "lonely"},
				AddressType: v4,
				Ports:       http(),
				Endpoints:   []discoveryv1.Endpoint{ready("nope")},
			}},
			port:     "http",
			problems: []string{`endpointslice lonely: endpoints[0].addresses[0]: "nope" is not a valid IPv4 address`},
		},
	}
	runSelectCases(t, cases)
}

// ---- rule 5: deduplication ----

func TestSelectDedup(t *testing.T) {
	v4 := discoveryv1.AddressTypeIPv4
	// Pairs of conditions for the same address; the expected result is for a lone address
	// (fallback: serving-terminating alone is normal) and is the same in both orders.
	pairs := []struct {
		name string
		a, b discoveryv1.EndpointConditions
		want []Backend
	}{
		{"ready vs terminating", condReady, condTerminating, []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)}},
		{"ready vs unusable", condReady, condUnusable, []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)}},
		{"ready vs not ready", condReady, condNotReady, []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)}},
		{"terminating vs unusable", condTerminating, condUnusable, []Backend{fenced("10.0.0.1", 8080), normal("10.0.0.2", 8080)}},
		{"unusable vs unusable", condUnusable, condNotReady, []Backend{normal("10.0.0.2", 8080)}},
		{"ready vs ready", condReady, conds(nil, nil, nil), []Backend{normal("10.0.0.1", 8080), normal("10.0.0.2", 8080)}},
	}
	for _, p := range pairs {
		for _, order := range []struct {
			name string
			x, y discoveryv1.EndpointConditions
		}{{"a first", p.a, p.b}, {"b first", p.b, p.a}} {
			// 10.0.0.2 is a ready bystander, so a surviving terminating 10.0.0.1 is fenced.
			t.Run(p.name+"/"+order.name+"/same endpoint list", func(t *testing.T) {
				got, problems := Select([]*discoveryv1.EndpointSlice{
					slice("a", v4, http(), ep(order.x, "10.0.0.1"), ep(order.y, "10.0.0.1"), ready("10.0.0.2")),
				}, "http", Options{})
				assert.Equal(t, p.want, got)
				assert.Empty(t, problems)
			})
			t.Run(p.name+"/"+order.name+"/across slices", func(t *testing.T) {
				got, problems := Select([]*discoveryv1.EndpointSlice{
					slice("a", v4, http(), ep(order.x, "10.0.0.1")),
					slice("b", v4, http(), ready("10.0.0.2"), ep(order.y, "10.0.0.1")),
				}, "http", Options{})
				assert.Equal(t, p.want, got)
				assert.Empty(t, problems)
			})
		}
	}

	cases := []selectCase{
		{
			name:   "same address twice in one endpoint",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http(), ready("10.0.0.1", "10.0.0.1"))},
			port:   "http",
			want:   []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "same IPv6 address in different spellings",
			slices: []*discoveryv1.EndpointSlice{
				slice("a", discoveryv1.AddressTypeIPv6, http(), term("fd00:0::1"), ready("FD00::1")),
				slice("b", discoveryv1.AddressTypeIPv6, http(), term("fd00:0:0:0:0:0:0:1")),
			},
			port: "http",
			want: []Backend{normal("fd00::1", 8080)},
		},
		{
			name: "a mapped IPv4 address in an IPv6 slice is refused, not a second backend",
			slices: []*discoveryv1.EndpointSlice{
				slice("a", discoveryv1.AddressTypeIPv6, http(), ready("::ffff:10.0.0.1")),
				slice("b", v4, http(), ready("10.0.0.1")),
			},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080)},
			problems: []string{
				`endpointslice ns/a: endpoints[0].addresses[0]: "::ffff:10.0.0.1" is not a valid IPv6 address: it is an IPv4-mapped address`,
			},
		},
		{
			name: "same address, different target ports are different backends",
			slices: []*discoveryv1.EndpointSlice{
				slice("old", v4, http(), term("10.0.0.1")),
				slice("new", v4, []discoveryv1.EndpointPort{tcp("http", 8081)}, ready("10.0.0.1")),
			},
			port: "http",
			want: []Backend{fenced("10.0.0.1", 8080), normal("10.0.0.1", 8081)},
		},
		{
			name: "the same slice listed twice",
			slices: []*discoveryv1.EndpointSlice{
				slice("a", v4, http(), ready("10.0.0.1"), ready("bad")),
				slice("a", v4, http(), ready("10.0.0.1"), ready("bad")),
			},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080)},
			problems: []string{
				`endpointslice ns/a: endpoints[1].addresses[0]: "bad" is not a valid IPv4 address`,
				`endpointslice ns/a: endpoints[1].addresses[0]: "bad" is not a valid IPv4 address`,
			},
		},
	}
	runSelectCases(t, cases)
}

// ---- rule 6: terminating policies ----

func TestSelectTerminatingPolicies(t *testing.T) {
	v4 := discoveryv1.AddressTypeIPv4
	withReady := []*discoveryv1.EndpointSlice{
		slice("a", v4, http(), ready("10.0.0.1"), term("10.0.0.2"), ep(condUnusable, "10.0.0.3")),
		slice("b", v4, http(), term("10.0.0.4"), ep(condNotReady, "10.0.0.5")),
	}
	withoutReady := []*discoveryv1.EndpointSlice{
		slice("a", v4, http(), ep(condNotReady, "10.0.0.1"), term("10.0.0.2"), ep(condUnusable, "10.0.0.3")),
		slice("b", v4, http(), term("10.0.0.4")),
	}
	onlyUnusable := []*discoveryv1.EndpointSlice{
		slice("a", v4, http(), ep(condNotReady, "10.0.0.1"), ep(condUnusable, "10.0.0.3")),
	}
	cases := []selectCase{
		{
			name: "fallback with ready", slices: withReady, port: "http", opts: Options{Terminating: TerminatingFallback},
			want: []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.2", 8080), fenced("10.0.0.4", 8080)},
		},
		{
			name: "default is fallback, with ready", slices: withReady, port: "http", opts: Options{},
			want: []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.2", 8080), fenced("10.0.0.4", 8080)},
		},
		{
			name: "unknown policy behaves as fallback", slices: withoutReady, port: "http", opts: Options{Terminating: "bogus"},
			want: []Backend{normal("10.0.0.2", 8080), normal("10.0.0.4", 8080)},
		},
		{
			name: "fallback without ready", slices: withoutReady, port: "http", opts: Options{Terminating: TerminatingFallback},
			want: []Backend{normal("10.0.0.2", 8080), normal("10.0.0.4", 8080)},
		},
		{
			name: "default is fallback, without ready", slices: withoutReady, port: "http",
			want: []Backend{normal("10.0.0.2", 8080), normal("10.0.0.4", 8080)},
		},
		{
			name: "fence with ready", slices: withReady, port: "http", opts: Options{Terminating: TerminatingFence},
			want: []Backend{normal("10.0.0.1", 8080), fenced("10.0.0.2", 8080), fenced("10.0.0.4", 8080)},
		},
		{
			name: "fence without ready", slices: withoutReady, port: "http", opts: Options{Terminating: TerminatingFence},
			want: []Backend{fenced("10.0.0.2", 8080), fenced("10.0.0.4", 8080)},
		},
		{
			name: "exclude with ready", slices: withReady, port: "http", opts: Options{Terminating: TerminatingExclude},
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "exclude without ready", slices: withoutReady, port: "http", opts: Options{Terminating: TerminatingExclude},
			want: nil,
		},
		{name: "fallback, only unusable", slices: onlyUnusable, port: "http", want: nil},
		{name: "fence, only unusable", slices: onlyUnusable, port: "http", opts: Options{Terminating: TerminatingFence}, want: nil},
		{
			name: "a ready backend on another target port still counts as ready",
			slices: []*discoveryv1.EndpointSlice{
				slice("old", v4, http(), term("10.0.0.1")),
				slice("new", v4, []discoveryv1.EndpointPort{tcp("http", 9090)}, ready("10.0.0.2")),
			},
			port: "http",
			want: []Backend{fenced("10.0.0.1", 8080), normal("10.0.0.2", 9090)},
		},
		{
			name: "a ready endpoint of another service port does not count",
			slices: []*discoveryv1.EndpointSlice{
				slice("http", v4, http(), term("10.0.0.1")),
				slice("admin", v4, []discoveryv1.EndpointPort{tcp("admin", 9090)}, ready("10.0.0.2")),
			},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080)},
		},
		{
			name: "a ready endpoint with an invalid address does not count",
			slices: []*discoveryv1.EndpointSlice{
				slice("a", v4, http(), term("10.0.0.1"), ready("10.0.0.256")),
			},
			port:     "http",
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{`endpointslice ns/a: endpoints[1].addresses[0]: "10.0.0.256" is not a valid IPv4 address`},
		},
	}
	runSelectCases(t, cases)
}

// ---- rules 7 and 8: order ----

func TestSelectOrder(t *testing.T) {
	got, problems := Select([]*discoveryv1.EndpointSlice{
		slice("f", discoveryv1.AddressTypeFQDN, []discoveryv1.EndpointPort{tcp("http", 80)}, ready("b.example.com", "a.example.com")),
		slice("f2", discoveryv1.AddressTypeFQDN, []discoveryv1.EndpointPort{tcp("http", 70)}, ready("b.example.com")),
		slice("v6", discoveryv1.AddressTypeIPv6, http(), ready("fd00::10", "fd00::2", "::1", "2001:db8::9")),
		slice("v4", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.10", "10.0.0.2", "9.0.0.1", "192.168.0.1")),
		slice("v4b", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{tcp("http", 80)}, ready("10.0.0.10")),
	}, "http", Options{AllowFQDN: true, AllowLoopback: true})
	assert.Empty(t, problems)
	assert.Equal(t, []Backend{
		normal("9.0.0.1", 8080),
		normal("10.0.0.2", 8080),
		normal("10.0.0.10", 80),
		normal("10.0.0.10", 8080),
		normal("192.168.0.1", 8080),
		normal("::1", 8080),
		normal("2001:db8::9", 8080),
		normal("fd00::2", 8080),
		normal("fd00::10", 8080),
		normal("a.example.com", 80),
		normal("b.example.com", 70),
		normal("b.example.com", 80),
	}, got)
}

func TestSelectProblemOrder(t *testing.T) {
	v4 := discoveryv1.AddressTypeIPv4
	bad := make([]discoveryv1.Endpoint, 12)
	for i := range bad {
		bad[i] = ready(fmt.Sprintf("bad%d", i))
	}
	bad[1] = ready("10.0.0.1", "x", "y")
	_, problems := Select([]*discoveryv1.EndpointSlice{
		slice("z", "Weird", http(), ready("10.0.0.1")),
		slice("b", v4, http(), bad...),
		slice("a", v4, []discoveryv1.EndpointPort{tcp("http", 0)}),
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ans", Name: "z"}, AddressType: v4, Ports: http(), Endpoints: []discoveryv1.Endpoint{ready("q")}},
	}, "http", Options{})
	got := make([]string, len(problems))
	for i, p := range problems {
		got[i] = p.Slice + " " + p.Field
	}
	assert.Equal(t, []string{
		"ans/z endpoints[0].addresses[0]",
		"ns/a ports[0].port",
		"ns/b endpoints[0].addresses[0]",
		"ns/b endpoints[1].addresses[1]",
		"ns/b endpoints[1].addresses[2]",
		"ns/b endpoints[2].addresses[0]",
		"ns/b endpoints[3].addresses[0]",
		"ns/b endpoints[4].addresses[0]",
		"ns/b endpoints[5].addresses[0]",
		"ns/b endpoints[6].addresses[0]",
		"ns/b endpoints[7].addresses[0]",
		"ns/b endpoints[8].addresses[0]",
		"ns/b endpoints[9].addresses[0]",
		"ns/b endpoints[10].addresses[0]",
		"ns/b endpoints[11].addresses[0]",
		"ns/z addressType",
	}, got)
}

// ---- a larger mix, order independence ----

// mix builds three slices of one dual-stack service, with overlaps and defects:
//
//	"v4-a": 10.0.0.1..40, ready unless i%10==0 (serving-terminating) or i%13==0 (not ready)
//	"v4-b": 10.0.0.31..60, serving-terminating; 10.0.0.61 has a bad twin "10.0.0.300"
//	"v6":   fd00::1..20, ready when odd, serving-terminating when even; plus one IPv4 address
func mix() []*discoveryv1.EndpointSlice {
	v4a := slice("v4-a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{tcp("metrics", 9090), tcp("http", 8080)})
	for i := 1; i <= 40; i++ {
		c := condReady
		switch {
		case i%10 == 0:
			c = condTerminating
		case i%13 == 0:
			c = condNotReady
		}
		v4a.Endpoints = append(v4a.Endpoints, ep(c, fmt.Sprintf("10.0.0.%d", i)))
	}
	v4b := slice("v4-b", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{tcp("http", 8080)})
	for i := 31; i <= 60; i++ {
		v4b.Endpoints = append(v4b.Endpoints, term(fmt.Sprintf("10.0.0.%d", i)))
	}
	v4b.Endpoints = append(v4b.Endpoints, ready("10.0.0.61", "10.0.0.300"))
	v6 := slice("v6", discoveryv1.AddressTypeIPv6, []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(8443))}})
	for i := 1; i <= 20; i++ {
		c := condReady
		if i%2 == 0 {
			c = condTerminating
		}
		v6.Endpoints = append(v6.Endpoints, ep(c, fmt.Sprintf("fd00::%x", i)))
	}
	v6.Endpoints = append(v6.Endpoints, ready("10.1.1.1"))
	return []*discoveryv1.EndpointSlice{v4a, v4b, v6}
}

// mixWant is the expected result of mix, built from the description above.
func mixWant(policy TerminatingPolicy) []Backend {
	var want []Backend
	add := func(addr string, port int32, terminating bool) {
		if !terminating {
			want = append(want, normal(addr, port))
			return
		}
		switch policy {
		case TerminatingExclude:
		default: // ready endpoints exist in mix, so fallback fences too
			want = append(want, fenced(addr, port))
		}
	}
	for i := 1; i <= 61; i++ {
		addr := fmt.Sprintf("10.0.0.%d", i)
		switch {
		case i <= 30 && i%10 == 0: // only in v4-a, terminating
			add(addr, 8080, true)
		case i <= 30 && i%13 == 0: // only in v4-a, not ready
		case i <= 30:
			add(addr, 8080, false)
		case i <= 40 && i%10 == 0, i <= 40 && i%13 == 0: // terminating or not ready in v4-a, terminating in v4-b
			add(addr, 8080, true)
		case i <= 40: // ready in v4-a wins over terminating in v4-b
			add(addr, 8080, false)
		case i <= 60:
			add(addr, 8080, true)
		default:
			add(addr, 8080, false)
		}
	}
	for i := 1; i <= 20; i++ {
		add(fmt.Sprintf("fd00::%x", i), 8443, i%2 == 0)
	}
	return want
}

var mixProblems = []string{
	`endpointslice ns/v4-b: endpoints[30].addresses[1]: "10.0.0.300" is not a valid IPv4 address`,
	`endpointslice ns/v6: endpoints[20].addresses[0]: "10.1.1.1" is not a valid IPv6 address: it is IPv4`,
}

func TestSelectMix(t *testing.T) {
	slices := mix()
	n := 0
	for _, s := range slices {
		n += len(s.Endpoints)
	}
	require.GreaterOrEqual(t, n, 50)

	for _, policy := range []TerminatingPolicy{TerminatingFallback, TerminatingFence, TerminatingExclude} {
		t.Run(string(policy), func(t *testing.T) {
			got, problems := Select(slices, "http", Options{Terminating: policy})
			want := mixWant(policy)
			assert.Equal(t, want, got)
			assert.Equal(t, mixProblems, problemStrings(problems))
		})
	}
	t.Run("counts", func(t *testing.T) {
		got, _ := Select(slices, "http", Options{})
		var ready, fencedN int
		for _, b := range got {
			if b.Fenced {
				fencedN++
			} else {
				ready++
			}
		}
		// Ready: 10.0.0.1..40 minus 10,20,30,40 (terminating) and 13,26,39 (not ready) = 33,
		// plus 10.0.0.61, plus the 10 odd fd00::x.
		assert.Equal(t, 33+1+10, ready)
		// Fenced: 10,20,30 (v4-a only), 39 and 40 (not ready/terminating in v4-a, terminating
		// in v4-b), 41..60 (v4-b only) = 25, plus the 10 even fd00::x.
		assert.Equal(t, 25+10, fencedN)
	})
	t.Run("metrics port", func(t *testing.T) {
		got, problems := Select(slices, "metrics", Options{})
		assert.Empty(t, problems)
		require.Len(t, got, 37)
		assert.Equal(t, normal("10.0.0.1", 9090), got[0])
		assert.Equal(t, fenced("10.0.0.10", 9090), got[9])
		assert.Equal(t, normal("10.0.0.40", 9090), normal(got[36].Address, got[36].Port))
		assert.True(t, got[36].Fenced)
	})
}

func cloneSlices(in []*discoveryv1.EndpointSlice) []*discoveryv1.EndpointSlice {
	out := make([]*discoveryv1.EndpointSlice, len(in))
	for i, s := range in {
		if s != nil {
			out[i] = s.DeepCopy()
		}
	}
	return out
}

func TestSelectOrderIndependence(t *testing.T) {
	base := append(mix(),
		nil,
		slice("fq", discoveryv1.AddressTypeFQDN, http(), term("b.example.com"), ready("A.example.com"), ready("b.example.com")),
		slice("dup", discoveryv1.AddressTypeIPv4, http(), ep(condNotReady, "10.0.0.5"), term("10.0.0.5"), ready("10.0.0.200"), term("10.0.0.201")),
	)
	opts := Options{AllowFQDN: true}
	wantBackends, wantProblems := Select(base, "http", opts)
	require.NotEmpty(t, wantBackends)
	require.Len(t, wantProblems, 2)
	assert.Contains(t, wantBackends, normal("a.example.com", 8080))
	assert.Contains(t, wantBackends, normal("b.example.com", 8080))
	assert.Contains(t, wantBackends, normal("10.0.0.5", 8080))
	assert.Contains(t, wantBackends, fenced("10.0.0.201", 8080))

	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		in := cloneSlices(base)
		rng.Shuffle(len(in), func(a, b int) { in[a], in[b] = in[b], in[a] })

		// Shuffling only the slices keeps problem fields stable.
		got, problems := Select(in, "http", opts)
		require.Equal(t, wantBackends, got, "slice order, iteration %d", i)
		require.Equal(t, problemStrings(wantProblems), problemStrings(problems), "slice order, iteration %d", i)

		// Shuffling endpoints and addresses moves problem fields, not backends.
		for _, s := range in {
			if s == nil {
				continue
			}
			rng.Shuffle(len(s.Endpoints), func(a, b int) { s.Endpoints[a], s.Endpoints[b] = s.Endpoints[b], s.Endpoints[a] })
			for k := range s.Endpoints {
				addrs := s.Endpoints[k].Addresses
				rng.Shuffle(len(addrs), func(a, b int) { addrs[a], addrs[b] = addrs[b], addrs[a] })
			}
		}
		got, problems = Select(in, "http", opts)
		require.Equal(t, wantBackends, got, "endpoint order, iteration %d", i)
		require.Len(t, problems, len(wantProblems))
		for k := range problems {
			require.Equal(t, wantProblems[k].Slice, problems[k].Slice)
			require.Equal(t, wantProblems[k].Err.Error(), problems[k].Err.Error())
		}
	}
}

func TestSelectDoesNotModifyInput(t *testing.T) {
	in := mix()
	before := cloneSlices(in)
	_, _ = Select(in, "http", Options{Terminating: TerminatingFence, AllowFQDN: true})
	assert.Equal(t, before, in)
}

func TestSelectResultIsSortedAndUnique(t *testing.T) {
	got, _ := Select(mix(), "http", Options{})
	seen := make(map[string]bool, len(got))
	for i, b := range got {
		require.False(t, seen[b.HostPort()], "duplicate %s", b.HostPort())
		seen[b.HostPort()] = true
		if i == 0 {
			continue
		}
		prev := got[i-1]
		pa, ba := netip.MustParseAddr(prev.Address), netip.MustParseAddr(b.Address)
		c := pa.Compare(ba)
		require.True(t, c < 0 || (c == 0 && prev.Port < b.Port), "%v before %v", prev, b)
	}
}

// ---- benchmark ----

func benchSlices() []*discoveryv1.EndpointSlice {
	out := make([]*discoveryv1.EndpointSlice, 3)
	for s := range out {
		sl := slice(fmt.Sprintf("web-%d", s), discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{tcp("http", 8080), tcp("metrics", 9090)})
		sl.Endpoints = make([]discoveryv1.Endpoint, 100)
		for i := range sl.Endpoints {
			c := condReady
			if i%10 == 0 {
				c = condTerminating
			}
			sl.Endpoints[i] = ep(c, fmt.Sprintf("10.%d.%d.%d", s, i/250, i%250+1))
		}
		out[s] = sl
	}
	return out
}

func BenchmarkSelect(b *testing.B) { benchSelect(b, benchSlices(), 300) }

// benchSelect measures Select on in, which must give want backends and no problems.
func benchSelect(b *testing.B, in []*discoveryv1.EndpointSlice, want int) {
	got, problems := Select(in, "http", Options{})
	if len(got) != want || len(problems) != 0 {
		b.Fatalf("unexpected result: %d backends, %d problems", len(got), len(problems))
	}
	b.ReportAllocs()
	for b.Loop() {
		Select(in, "http", Options{})
	}
}
