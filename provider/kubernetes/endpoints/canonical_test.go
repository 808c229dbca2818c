package endpoints

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// canonicalIPv6 is what parseCanonicalIPv6 must accept: the text
// netip.Addr.String gives for an IPv6 address that is not IPv4-mapped and
// has no zone.
func canonicalIPv6(s string) (netip.Addr, bool) {
	ip, err := netip.ParseAddr(s)
	if err != nil || !ip.Is6() || ip.Is4In6() || ip.Zone() != "" || ip.String() != s {
		return netip.Addr{}, false
	}
	return ip, true
}

var ipv6Texts = []string{
	"::", "::1", "1::", "fd00::1", "fd00:10:244:1::a", "2001:db8::1", "2001:db8:0:1::1",
	"2001:db8::1:0:0:1", "2001:db8:0:0:1::1", "1:0:0:2::3", "1::2:0:0:3", "1:2:3:4:5:6:7:8",
	"1:0:2:3:4:5:6:7", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	"0::1", "1:0::", "::0:1", "FD00::1", "fd00::01", "fd00::12345", "fd00:::1", "fd00::1::2", ":1::",
	"1:", ":", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6::7:8", "::ffff:a00:1", "::ffff:10.0.0.1",
	"::a00:1", "fe80::1%eth0", "fd00::1.2.3.4", "fd00:ec2::254", "fe80::1", "ff02::1", "10.0.0.1", "",
	"1:2:3:4:5:0:0:8", "1:0:0:4:5:0:0:8", "1::4:5:0:0:8", "1:0:0:4:5::8", "1::4:5:6:7:8", "0:1:2:3:4:5:6:7",
}

func TestParseCanonicalIPv6MatchesNetip(t *testing.T) {
	accepted := 0
	for _, s := range ipv6Texts {
		checkCanonicalIPv6(t, s)
		if _, ok := parseCanonicalIPv6(s); ok {
			accepted++
		}
	}
	require.Greater(t, accepted, 15, "the cases include canonical texts")
}

// TestParseCanonicalIPv6RandomAddresses checks the written forms of random
// addresses whose groups are often zero (so that runs of every length and
// place occur): the canonical text and the expanded one.
func TestParseCanonicalIPv6RandomAddresses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50000 {
		var b [16]byte
		for g := range 8 {
			switch rng.IntN(4) {
			case 0, 1: // zero
			case 2:
				b[2*g+1] = byte(rng.IntN(16))
			default:
				b[2*g], b[2*g+1] = byte(rng.Uint32()), byte(rng.Uint32())
			}
		}
		ip := netip.AddrFrom16(b)
		checkCanonicalIPv6(t, ip.String())
		checkCanonicalIPv6(t, ip.StringExpanded())
	}
}

func checkCanonicalIPv6(t *testing.T, s string) {
	t.Helper()
	want, wantOK := canonicalIPv6(s)
	got, ok := parseCanonicalIPv6(s)
	require.Equal(t, wantOK, ok, "%q", s)
	if ok {
		require.Equal(t, want.As16(), got, "%q", s)
	}
}

func FuzzParseCanonicalIPv6(f *testing.F) {
	for _, s := range ipv6Texts {
		f.Add(s)
	}
	f.Fuzz(checkCanonicalIPv6)
}

func FuzzParseCanonicalIPv4(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "0.0.0.0", "255.255.255.255", "256.0.0.1", "010.0.0.1", "1.2.3", "1.2.3.4.5", "1..2.3", "a.b.c.d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ip, err := netip.ParseAddr(s)
		wantOK := err == nil && ip.Is4() && ip.String() == s
		got, ok := parseCanonicalIPv4(s)
		require.Equal(t, wantOK, ok, "%q", s)
		if ok {
			require.Equal(t, ip.As4(), got, "%q", s)
		}
	})
}

// TestMaybeRefusedIPv6CoversRefusedAddress is the IPv6 fast path's
// counterpart of TestMaybeRefusedIPv4CoversRefusedAddress: among addresses
// with every first 16 bits, and the metadata addresses, every one that
// RefusedAddress refuses passes the pre-check.
func TestMaybeRefusedIPv6CoversRefusedAddress(t *testing.T) {
	addrs := []netip.Addr{}
	for _, a := range metadataAddresses {
		if a.Is6() {
			addrs = append(addrs, a)
		}
	}
	for first := range 1 << 16 {
		for _, last := range []uint16{0, 1, 0xffff} {
			var b [16]byte
			b[0], b[1] = byte(first>>8), byte(first)
			b[14], b[15] = byte(last>>8), byte(last)
			addrs = append(addrs, netip.AddrFrom16(b))
			b[10], b[11] = 0xff, 0xff // IPv4-mapped when first is 0
			addrs = append(addrs, netip.AddrFrom16(b))
		}
	}
	refused := 0
	for _, a := range addrs {
		for _, loopback := range []bool{false, true} {
			if RefusedAddress(a, loopback) != "" {
				refused++
				if !maybeRefusedIPv6(a.As16()) {
					t.Errorf("%s is refused, but the fast path's pre-check lets it through", a)
				}
			}
		}
	}
	require.Greater(t, refused, 1000)
}
