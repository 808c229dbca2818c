package nginx

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func mustPrefixes(t *testing.T, items ...string) []netip.Prefix {
	t.Helper()
	var out []netip.Prefix
	for _, it := range items {
		p, err := parseSourceRange(it)
		require.NoError(t, err, it)
		out = append(out, p)
	}
	return out
}

func inAny(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func TestSubtractRangesExamples(t *testing.T) {
	all := mustPrefixes(t, "0.0.0.0/0", "::/0")
	got := subtractRanges(all, mustPrefixes(t, "128.0.0.0/1", "8000::/1"))
	require.Equal(t, mustPrefixes(t, "0.0.0.0/1", "::/1"), got)

	got = subtractRanges(mustPrefixes(t, "10.0.0.0/8"), mustPrefixes(t, "10.0.0.0/9", "10.192.0.0/10"))
	require.Equal(t, mustPrefixes(t, "10.128.0.0/10"), got)

	// An address alone is a /32; written as IPv4-in-IPv6 it is the IPv4 one.
	require.Equal(t, mustPrefixes(t, "192.0.2.1/32"), mustPrefixes(t, "::ffff:192.0.2.1"))
	// Everything denied leaves nothing.
	require.Empty(t, subtractRanges(mustPrefixes(t, "10.0.0.0/8"), mustPrefixes(t, "0.0.0.0/0")))
	// Overlapping allowed ranges are written once.
	require.Equal(t, mustPrefixes(t, "10.0.0.0/8"), subtractRanges(mustPrefixes(t, "10.1.0.0/16", "10.0.0.0/8", "10.2.0.0/16"), nil))
}

// The ranges inside ::ffff:0:0/96 are read by Traefik as IPv4 ranges
// (::ffff:0:0/96 itself as 0.0.0.0/0): none is ever written, whatever
// is denied next to it.
func TestSubtractRangesNeverWritesMappedIPv4(t *testing.T) {
	got := subtractRanges(mustPrefixes(t, "0.0.0.0/0", "::/0"), mustPrefixes(t, "10.0.0.0/8", "::fffe:0:0/96"))
	for _, p := range got {
		require.False(t, p.Addr().Is6() && p.Bits() >= 96 && mapped4.Contains(p.Addr()), "wrote %s", p)
	}
	require.False(t, inAny(got, netip.MustParseAddr("10.1.2.3")))
	require.True(t, inAny(got, netip.MustParseAddr("11.1.2.3")))
	require.False(t, inAny(got, netip.MustParseAddr("::fffe:1.2.3.4")))
	require.True(t, inAny(got, netip.MustParseAddr("2001:db8::1")))
}

// randomPrefix is a prefix of the family of bits (32 or 128), its length
// drawn so that denied ranges nest and touch often.
func randomPrefix(r *rand.Rand, bits int) netip.Prefix {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.IntN(4)) // few distinct bytes: ranges overlap
	}
	a := netip.AddrFrom16(b)
	if bits == 32 {
		a = netip.AddrFrom4([4]byte{b[0] * 64, b[1], b[2] * 64, b[3]})
	} else if a.Is4In6() {
		a = netip.AddrFrom16([16]byte{0x20, 0x01})
	}
	p, _ := a.Prefix(r.IntN(bits + 1))
	return p
}

// probes are addresses at the edges of ps (their first and last addresses
// and the ones just outside) and random ones.
func probes(r *rand.Rand, ps []netip.Prefix) []netip.Addr {
	var out []netip.Addr
	for _, p := range ps {
		first := p.Addr()
		last := lastAddr(p)
		out = append(out, first, last, first.Prev(), last.Next())
	}
	for range 200 {
		out = append(out, randomPrefix(r, 32).Addr(), randomPrefix(r, 128).Addr())
	}
	return out
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// The property: an address is in the result iff it is in an allowed
// range and in no denied one; the result's ranges do not overlap and are
// at most as many as the bits of the denied ranges, plus the allowed
// ones.
func TestSubtractRangesProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	for round := range 300 {
		var allow, deny []netip.Prefix
		if round%3 == 0 {
			allow = mustPrefixes(t, "0.0.0.0/0", "::/0")
		} else {
			for range 1 + r.IntN(3) {
				allow = append(allow, randomPrefix(r, 32), randomPrefix(r, 128))
			}
		}
		budget := len(allow)
		for range 1 + r.IntN(8) {
			bits := 32
			if r.IntN(2) == 0 {
				bits = 128
			}
			d := randomPrefix(r, bits)
			deny = append(deny, d)
			budget += d.Bits()
		}
		got := subtractRanges(allow, deny)
		require.LessOrEqual(t, len(got), budget, "round %d", round)
		for i := 1; i < len(got); i++ {
			require.False(t, got[i-1].Overlaps(got[i]), "round %d: %s overlaps %s", round, got[i-1], got[i])
		}
		for _, a := range probes(r, append(append([]netip.Prefix{}, allow...), deny...)) {
			if !a.IsValid() || a.Is4In6() {
				continue
			}
			want := inAny(allow, a) && !inAny(deny, a)
			require.Equal(t, want, inAny(got, a), "round %d: %s (allow %v deny %v got %v)", round, a, allow, deny, got)
		}
	}
}

func TestParseSourceRanges(t *testing.T) {
	got, err := parseSourceRanges(" 10.0.0.0/24, 172.10.0.1 ,2001:db8::/32, 10.0.0.7/24")
	require.NoError(t, err)
	require.Equal(t, mustPrefixes(t, "10.0.0.0/24", "172.10.0.1/32", "2001:db8::/32", "10.0.0.0/24"), got)
	for _, bad := range []string{"", " , ", "10.0.0.0/33", "example.com", "10.0.0.1, nope", "fe80::1%eth0"} {
		_, err := parseSourceRanges(bad)
		require.Error(t, err, bad)
	}
}
