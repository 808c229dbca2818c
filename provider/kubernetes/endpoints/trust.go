package endpoints

import (
	"net/netip"
	"slices"
	"strings"
)

// The addresses that are never a server, whatever a slice says: a slice
// is written by whoever may write EndpointSlices, and the proxy must not
// become their way into the node (loopback), the cloud's metadata service
// or the link. The fast paths of address reading skip RefusedAddress for
// most addresses; maybeRefusedIPv4 and maybeRefusedIPv6 must cover every
// address it refuses (TestMaybeRefusedIPv4CoversRefusedAddress and its
// IPv6 twin hold them to it).

// Cloud metadata services: never a backend, whatever a slice says.
var metadataAddresses = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, ...
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
}

var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

// RefusedAddress says why ip must never be a server ("" when it may be):
// unspecified, link-local, multicast, broadcast, a cloud metadata address,
// or loopback unless allowLoopback.
func RefusedAddress(ip netip.Addr, allowLoopback bool) string {
	ip = ip.Unmap()
	switch {
	case ip.IsUnspecified() || (ip.Is4() && thisNetwork.Contains(ip)):
		return "unspecified"
	case slices.Contains(metadataAddresses, ip):
		return "a cloud metadata address"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsMulticast() || ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	case ip.IsLoopback() && !allowLoopback:
		return "loopback (allowLoopbackEndpoints is off)"
	}
	return ""
}

// maybeRefusedIPv4 says whether RefusedAddress may refuse a: it is false for
// every address outside 0/8, 100/8 (a metadata address), 127/8, 169/8
// (link-local and metadata addresses) and 224/3 (multicast, broadcast and
// reserved), for which RefusedAddress returns "" whatever allowLoopback.
func maybeRefusedIPv4(a [4]byte) bool {
	switch a[0] {
	case 0, 100, 127, 169:
		return true
	}
	return a[0] >= 224
}

// maybeRefusedIPv6 says whether RefusedAddress may refuse a, an IPv6
// address: it is false for every address outside ::/16 (unspecified,
// loopback, IPv4-mapped and -compatible), fe80::/10 (link-local), ff00::/8
// (multicast) and the metadata address fd00:ec2::254, for which
// RefusedAddress returns "" whatever allowLoopback.
func maybeRefusedIPv6(a [16]byte) bool {
	switch {
	case a[0] == 0 && a[1] == 0, a[0] == 0xff, a[0] == 0xfe && a[1]&0xc0 == 0x80:
		return true
	}
	return a == metadataIPv6
}

var metadataIPv6 = netip.MustParseAddr("fd00:ec2::254").As16()

// RefusedName says why a DNS name must never be a server: localhost and its
// subdomains are loopback.
func RefusedName(name string, allowLoopback bool) string {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	if !allowLoopback && (name == "localhost" || strings.HasSuffix(name, ".localhost")) {
		return "loopback (allowLoopbackEndpoints is off)"
	}
	return ""
}
