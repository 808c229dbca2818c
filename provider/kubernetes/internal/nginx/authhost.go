package nginx

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// The hosts auth-url and auth-signin may not name, whoever wrote the
// Ingress. Traefik asks auth-url's host about every request of the
// Ingress, from Traefik's own place in the network; it hands the client
// any answer but 2xx, body and all, and copies into the request to the
// backend the headers auth-response-headers lists from a 2xx answer.
// Naming Traefik's loopback (its API, sliceway's /api/config in the
// sidecar set-up), the cloud metadata service or the link would let the
// Ingress's author probe and read what only the proxy's pod can reach.
// auth-signin is where a refused client's browser is sent: on loopback
// or the link it is a service of the client's own machine or network,
// never the Ingress's sign-in page.
//
// What must hold: every spelling of such an address that a resolver or
// Go's dialer reads as one is refused, not only the canonical one
// (2130706433, 0x7f.1, 127.1 and 017700000001 are all 127.0.0.1 to
// inet_aton; full-width letters become ASCII ones in Go's IDNA mapping).
// Hosts are judged as written: a DNS name that resolves inward is not
// caught (docs/security.md says so).

// loopbackNames are host names that resolve to loopback without asking
// DNS: localhost (and, below, any name under .localhost, RFC 6761), and
// the names the /etc/hosts of Kubernetes pods and of common distributions
// give to 127.0.0.1 and ::1.
var loopbackNames = []string{"localhost", "localhost.localdomain", "localhost4", "localhost4.localdomain4",
	"localhost6", "localhost6.localdomain6", "ip6-localhost", "ip6-loopback"}

// nat64 is the well-known NAT64 prefix (RFC 6052): its addresses reach
// the IPv4 address in their last four bytes, through a gateway.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// checkAuthHost says why host, the host of an auth-url or auth-signin
// URL (without brackets or port), may not be named, nil when it may: it
// is on the never-a-server list and not among o's allowedAuthHosts.
func (o *Options) checkAuthHost(host string) error {
	if o.authHostAllowed(host) {
		return nil
	}
	if why := refusedAuthHost(host); why != "" {
		return fmt.Errorf("host %s is %s", excerpt.Quote(host), why)
	}
	return nil
}

// authHostAllowed says whether host is one of allowedAuthHosts: the same
// text, whatever its case (an IPv6 entry may be written in brackets).
func (o *Options) authHostAllowed(host string) bool {
	if o == nil {
		return false
	}
	for _, h := range o.AllowedAuthHosts {
		if strings.EqualFold(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), host) {
			return true
		}
	}
	return false
}

// refusedAuthHost says why host can never be an auth service or a
// sign-in page ("" when it can).
func refusedAuthHost(host string) string {
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return "not ASCII: Go's dialer maps such names to others (full-width letters to ASCII ones, so that one can spell localhost); write an international name in its xn-- form"
		}
	}
	// One trailing dot is the same name to a resolver (localhost.).
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if ip, err := netip.ParseAddr(name); err == nil {
		return refusedAuthIP(ip)
	}
	if endsInNumber(name) {
		return "not a dotted-decimal IPv4 address but ends in a number, so resolvers read it as an address in another notation (2130706433, 0x7f.1 and 127.1 are all 127.0.0.1), whichever address it is"
	}
	for _, n := range loopbackNames {
		if name == n {
			return "a name of loopback"
		}
	}
	if strings.HasSuffix(name, ".localhost") {
		return "a name of loopback (every name under .localhost is)"
	}
	return ""
}

// refusedAuthIP says why ip can never be an auth service or a sign-in
// page: loopback, or what is never a server (unspecified, link-local, a
// cloud metadata address, multicast, broadcast), also in IPv4-mapped,
// IPv4-compatible and NAT64 form.
func refusedAuthIP(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	if ip.Is6() && nat64.Contains(ip) {
		b := ip.As16()
		inner := netip.AddrFrom4([4]byte(b[12:]))
		if why := refusedAuthIP(inner); why != "" {
			return "the NAT64 form of " + inner.String() + ", which is " + why
		}
		return ""
	}
	if ip.IsLoopback() {
		return "loopback"
	}
	if why := endpoints.RefusedAddress(ip, true); why != "" {
		return why
	}
	// ::/96 but :: and ::1: the IPv4-compatible form (deprecated by RFC
	// 4291), which some stacks still send to the IPv4 address inside.
	if b := ip.As16(); ip.Is6() && [12]byte(b[:12]) == [12]byte{} {
		return "an IPv4-compatible IPv6 address (deprecated, never a server)"
	}
	return ""
}

// endsInNumber says whether a resolver reads name as an IPv4 address
// rather than a DNS name: its last label is a number, in decimal, octal
// (a leading 0) or hex (0x), as the WHATWG URL standard and inet_aton
// read it. No top-level domain is a number.
func endsInNumber(name string) bool {
	label := name[strings.LastIndexByte(name, '.')+1:]
	if hex, ok := strings.CutPrefix(label, "0x"); ok {
		return strings.Trim(hex, "0123456789abcdef") == ""
	}
	return label != "" && strings.Trim(label, "0123456789") == ""
}

// CheckAuthHosts checks the entries of allowedAuthHosts: each is matched
// against a URL's host as it is written, so one with a scheme, a port or
// a path would never match and only hide a mistake.
func CheckAuthHosts(hosts []string) error {
	for _, h := range hosts {
		bare := strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if _, err := netip.ParseAddr(bare); err == nil {
			continue
		}
		if h == "" || strings.ContainsAny(h, ":/@?#[] \t") {
			return fmt.Errorf("%s: must be a host name or an IP address, without scheme, port or path", excerpt.Quote(h))
		}
	}
	return nil
}
