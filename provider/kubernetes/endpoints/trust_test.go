package endpoints

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// Reasons RefusedAddress and RefusedName give, as users read them in warnings.
const (
	whyUnspecified = "unspecified"
	whyMetadata    = "a cloud metadata address"
	whyLinkLocal   = "link-local"
	whyMulticast   = "multicast"
	whyBroadcast   = "broadcast"
	whyLoopback    = "loopback (allowLoopbackEndpoints is off)"
)

func TestRefusedAddress(t *testing.T) {
	cases := []struct {
		ip string
		// want is the reason without allowLoopback; with it, only loopback
		// addresses change (to "").
		want     string
		loopback bool
	}{
		// unspecified and "this network" (0.0.0.0/8)
		{"0.0.0.0", whyUnspecified, false},
		{"0.1.2.3", whyUnspecified, false},
		{"0.255.255.255", whyUnspecified, false},
		{"::", whyUnspecified, false},
		{"::ffff:0.0.0.0", whyUnspecified, false},
		{"::ffff:0.1.2.3", whyUnspecified, false},

		// cloud metadata, before link-local so the warning says which it is
		{"169.254.169.254", whyMetadata, false},
		{"169.254.170.2", whyMetadata, false},
		{"100.100.100.200", whyMetadata, false},
		{"fd00:ec2::254", whyMetadata, false},
		{"::ffff:169.254.169.254", whyMetadata, false},
		{"::ffff:100.100.100.200", whyMetadata, false},

		// link-local unicast and multicast
		{"169.254.0.1", whyLinkLocal, false},
		{"169.254.255.255", whyLinkLocal, false},
		{"::ffff:169.254.1.1", whyLinkLocal, false},
		{"fe80::1", whyLinkLocal, false},
		{"fe80::1%eth0", whyLinkLocal, false},
		{"febf::1", whyLinkLocal, false},
		{"224.0.0.1", whyLinkLocal, false},
		{"224.0.0.251", whyLinkLocal, false},
		{"ff02::1", whyLinkLocal, false},

		// other multicast
		{"224.0.1.1", whyMulticast, false},
		{"239.255.255.250", whyMulticast, false},
		{"::ffff:239.1.1.1", whyMulticast, false},
		{"ff01::1", whyMulticast, false},
		{"ff05::1:3", whyMulticast, false},
		{"ff0e::1", whyMulticast, false},

		{"255.255.255.255", whyBroadcast, false},
		{"::ffff:255.255.255.255", whyBroadcast, false},

		// loopback: refused unless allowLoopback
		{"127.0.0.1", whyLoopback, true},
		{"127.0.0.53", whyLoopback, true},
		{"127.255.255.254", whyLoopback, true},
		{"::1", whyLoopback, true},
		{"::ffff:127.0.0.1", whyLoopback, true},

		// allowed: private, shared, public, documentation
		{"10.0.0.1", "", false},
		{"172.16.0.1", "", false},
		{"192.168.1.1", "", false},
		{"100.64.0.1", "", false},
		{"100.100.100.199", "", false},
		{"100.100.100.201", "", false},
		{"169.253.255.255", "", false},
		{"169.255.0.1", "", false},
		{"1.0.0.0", "", false},
		{"8.8.8.8", "", false},
		{"126.255.255.255", "", false},
		{"128.0.0.1", "", false},
		{"223.255.255.255", "", false},
		{"255.255.255.254", "", false},
		{"192.0.2.1", "", false},
		{"::ffff:10.0.0.1", "", false},
		{"fd00::1", "", false},
		{"fd00:ec2::253", "", false},
		{"fd00:ec2::255", "", false},
		{"fc00::1", "", false},
		{"2001:db8::1", "", false},
		{"2606:4700:4700::1111", "", false},
		{"::2", "", false},
		{"fec0::1", "", false}, // deprecated site-local, not link-local
	}
	for _, tc := range cases {
		t.Run(tc.ip, func(t *testing.T) {
			ip := netip.MustParseAddr(tc.ip)
			assert.Equal(t, tc.want, RefusedAddress(ip, false), "allowLoopback off")
			want := tc.want
			if tc.loopback {
				want = ""
			}
			assert.Equal(t, want, RefusedAddress(ip, true), "allowLoopback on")
		})
	}
}

func TestRefusedName(t *testing.T) {
	cases := []struct {
		name   string
		refuse bool
	}{
		{"localhost", true},
		{"LOCALHOST", true},
		{"localhost.", true},
		{"LocalHost.", true},
		{"db.localhost", true},
		{"a.b.LOCALHOST.", true},

		{"", false},
		{"example.com", false},
		{"localhost.example.com", false},
		{"mylocalhost", false},
		{"localhost-1", false},
		{"notlocalhost.", false},
		{"db.localhost.example", false},
		// IP literals are RefusedAddress's job; a name is only a name here.
		{"127.0.0.1", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := ""
			if tc.refuse {
				want = whyLoopback
			}
			assert.Equal(t, want, RefusedName(tc.name, false), "allowLoopback off")
			assert.Empty(t, RefusedName(tc.name, true), "allowLoopback on")
		})
	}
}

func TestSelectRefusedAddresses(t *testing.T) {
	v4, v6, fq := discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN
	cases := []selectCase{
		{
			name: "one warning per slice, naming the first refused address and counting them",
			slices: []*discoveryv1.EndpointSlice{
				slice("v4", v4, http(),
					ready("10.0.0.1"),
					ready("0.0.0.0", "169.254.1.1"),
					ready("224.0.0.1"),
					term("169.254.169.254"),
					ready("100.100.100.200"),
					ready("127.0.0.1"),
					ready("255.255.255.255"),
					ready("0.1.2.3"),
				),
				slice("v6", v6, http(),
					ready("::1"),
					ready("fd00::1"),
					ready("::", "fe80::1", "ff02::1", "fd00:ec2::254", "::ffff:169.254.169.254", "::ffff:127.0.0.1"),
				),
			},
			port: "http",
			want: []Backend{normal("10.0.0.1", 8080), normal("fd00::1", 8080)},
			problems: []string{
				`endpointslice ns/v4: endpoints[1].addresses[0]: "0.0.0.0" is unspecified: never used as a server (8 refused addresses in this slice)`,
				`endpointslice ns/v6: endpoints[0].addresses[0]: "::1" is loopback (allowLoopbackEndpoints is off): never used as a server (5 refused addresses in this slice)`,
				`endpointslice ns/v6: endpoints[2].addresses[4]: "::ffff:169.254.169.254" is not a valid IPv6 address: it is an IPv4-mapped address`,
				`endpointslice ns/v6: endpoints[2].addresses[5]: "::ffff:127.0.0.1" is not a valid IPv6 address: it is an IPv4-mapped address`,
			},
		},
		{
			name:     "a single refused address is not counted",
			slices:   []*discoveryv1.EndpointSlice{slice("a", v4, http(), ready("10.0.0.1"), ready("169.254.169.254"))},
			port:     "http",
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{`endpointslice ns/a: endpoints[1].addresses[0]: "169.254.169.254" is a cloud metadata address: never used as a server`},
		},
		{
			name: "not-ready and not-serving endpoints are refused too",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http(),
				ep(condNotReady, "169.254.169.254"), ep(condUnusable, "127.0.0.1"))},
			port:     "http",
			problems: []string{`endpointslice ns/a: endpoints[0].addresses[0]: "169.254.169.254" is a cloud metadata address: never used as a server (2 refused addresses in this slice)`},
		},
		{
			name: "allowLoopback keeps loopback only",
			slices: []*discoveryv1.EndpointSlice{
				slice("v4", v4, http(), ready("127.0.0.2"), ready("169.254.169.254"), ready("127.0.0.1"), ready("0.0.0.0")),
				slice("v6", v6, http(), ready("::1"), ready("fe80::1")),
			},
			port: "http",
			opts: Options{AllowLoopback: true},
			want: []Backend{normal("127.0.0.1", 8080), normal("127.0.0.2", 8080), normal("::1", 8080)},
			problems: []string{
				`endpointslice ns/v4: endpoints[1].addresses[0]: "169.254.169.254" is a cloud metadata address: never used as a server (2 refused addresses in this slice)`,
				`endpointslice ns/v6: endpoints[1].addresses[0]: "fe80::1" is link-local: never used as a server`,
			},
		},
		{
			name: "FQDN slices: localhost and IPs written as names are refused, once per slice",
			slices: []*discoveryv1.EndpointSlice{slice("f", fq, http(),
				ready("svc.example.com"),
				ready("LOCALHOST"),
				ready("db.localhost"),
				ready("127.0.0.1"),
				ready("169.254.169.254"),
				ready("10.0.0.1"),
			)},
			port: "http",
			opts: Options{AllowFQDN: true},
			want: []Backend{normal("10.0.0.1", 8080), normal("svc.example.com", 8080)},
			problems: []string{
				`endpointslice ns/f: endpoints[1].addresses[0]: "LOCALHOST" is loopback (allowLoopbackEndpoints is off): never used as a server (4 refused addresses in this slice)`,
			},
		},
		{
			name: "FQDN slices with allowLoopback: localhost kept, metadata still refused",
			slices: []*discoveryv1.EndpointSlice{slice("f", fq, http(),
				ready("localhost"), ready("127.0.0.1"), ready("169.254.169.254"))},
			port:     "http",
			opts:     Options{AllowFQDN: true, AllowLoopback: true},
			want:     []Backend{normal("127.0.0.1", 8080), normal("localhost", 8080)},
			problems: []string{`endpointslice ns/f: endpoints[2].addresses[0]: "169.254.169.254" is a cloud metadata address: never used as a server`},
		},
		{
			name: "publishNotReadyAddresses does not let a refused address through",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http(),
				ep(condNotReady, "10.0.0.1"), ep(condNotReady, "169.254.169.254"))},
			port:     "http",
			opts:     Options{PublishNotReady: true},
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{`endpointslice ns/a: endpoints[1].addresses[0]: "169.254.169.254" is a cloud metadata address: never used as a server`},
		},
		{
			name: "a refused address does not take part in topology",
			slices: []*discoveryv1.EndpointSlice{slice("a", v4, http(),
				// The refused endpoint has no hints; were it counted, the
				// zone rule would not apply.
				ready("169.254.169.254"),
				hinted(ready("10.0.0.1"), nil, []string{"zone-a"}),
				hinted(ready("10.0.0.2"), nil, []string{"zone-b"}),
			)},
			port:     "http",
			opts:     Options{Zone: "zone-a"},
			want:     []Backend{normal("10.0.0.1", 8080)},
			problems: []string{`endpointslice ns/a: endpoints[0].addresses[0]: "169.254.169.254" is a cloud metadata address: never used as a server`},
		},
		{
			name: "a slice of another port is not read, so its refused addresses are not reported",
			slices: []*discoveryv1.EndpointSlice{
				slice("a", v4, []discoveryv1.EndpointPort{tcp("grpc", 9000)}, ready("169.254.169.254")),
			},
			port: "http",
		},
	}
	runSelectCases(t, cases)
}

// Kubernetes rejects IPv4-mapped IPv6 addresses in IPv6 slices ("must be an
// IPv6 address"): they are IPv4 addresses, so with ipFamily ipv6 they would
// send traffic over IPv4, and with ipFamily all they duplicate the pod's
// IPv4 server.
func TestSelectMappedAddressInIPv6Slice(t *testing.T) {
	got, problems := Select([]*discoveryv1.EndpointSlice{
		slice("v4", discoveryv1.AddressTypeIPv4, http(), ready("10.0.0.1")),
		slice("v6", discoveryv1.AddressTypeIPv6, http(), ready("::ffff:10.0.0.1"), ready("fd00::1")),
	}, "http", Options{})
	assert.Equal(t, []Backend{normal("10.0.0.1", 8080), normal("fd00::1", 8080)}, got)
	if assert.Len(t, problems, 1) {
		assert.Equal(t, "ns/v6", problems[0].Slice)
		assert.Equal(t, "endpoints[0].addresses[0]", problems[0].Field)
	}
}
