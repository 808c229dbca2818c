package endpoints

import (
	"fmt"
	"net/netip"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// smallBenchSlices is the common case: two slices of 10 IPv4 endpoints each
// (one port "http", 8080) and a third with one endpoint duplicating an
// address of the first. One endpoint in ten is serving but terminating, one
// in twenty is not serving.
func smallBenchSlices() []*discoveryv1.EndpointSlice {
	cond := func(n int) discoveryv1.EndpointConditions {
		switch {
		case n%20 == 19:
			return condUnusable
		case n%10 == 0:
			return condTerminating
		}
		return condReady
	}
	out := make([]*discoveryv1.EndpointSlice, 0, 3)
	for s := range 2 {
		eps := make([]discoveryv1.Endpoint, 10)
		for i := range eps {
			eps[i] = ep(cond(s*10+i), fmt.Sprintf("10.244.%d.%d", s, i+2))
		}
		out = append(out, slice(fmt.Sprintf("web-%d", s), discoveryv1.AddressTypeIPv4, http(), eps...))
	}
	out = append(out, slice("web-2", discoveryv1.AddressTypeIPv4, http(), ready("10.244.0.5")))
	return out
}

func BenchmarkSelectSmall(b *testing.B) { benchSelect(b, smallBenchSlices(), 19) }

// smallBenchSlicesIPv6 is smallBenchSlices in an IPv6-only cluster, the
// addresses written as the API server returns them (canonical).
func smallBenchSlicesIPv6() []*discoveryv1.EndpointSlice {
	out := smallBenchSlices()
	for _, s := range out {
		s.AddressType = discoveryv1.AddressTypeIPv6
		for i := range s.Endpoints {
			for j, a := range s.Endpoints[i].Addresses {
				v4 := netip.MustParseAddr(a).As4()
				s.Endpoints[i].Addresses[j] = fmt.Sprintf("fd00:10:%x:%x::%x", v4[1], v4[2]+1, v4[3])
			}
		}
	}
	return out
}

func BenchmarkSelectSmallIPv6(b *testing.B) { benchSelect(b, smallBenchSlicesIPv6(), 19) }

// TestMaybeRefusedIPv4CoversRefusedAddress keeps the IPv4 fast path's
// pre-check in step with RefusedAddress: every IPv4 address that
// RefusedAddress refuses (with or without loopback allowed), among the
// metadata addresses and the first and last address of every /8, must pass
// the pre-check.
func TestMaybeRefusedIPv4CoversRefusedAddress(t *testing.T) {
	var addrs []netip.Addr
	for _, a := range metadataAddresses {
		if a.Is4() {
			addrs = append(addrs, a)
		}
	}
	for first := range 256 {
		for _, rest := range [][3]byte{{0, 0, 0}, {0, 0, 1}, {254, 169, 254}, {255, 255, 255}} {
			addrs = append(addrs, netip.AddrFrom4([4]byte{byte(first), rest[0], rest[1], rest[2]}))
		}
	}
	for _, a := range addrs {
		for _, loopback := range []bool{false, true} {
			if RefusedAddress(a, loopback) != "" && !maybeRefusedIPv4(a.As4()) {
				t.Errorf("%s is refused, but the fast path's pre-check lets it through", a)
			}
		}
	}
}
