package endpoints

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// sliceAddresses is what the addresses of one slice give, read once
// whatever the options: Prepare keeps it, and AppendSelect reads it for
// each slice it uses. The options decide, when a selection reads it, which
// entries it may use (loopback) and which defects it reports.
type sliceAddresses struct {
	// entries holds every valid address that is not refused (but for
	// loopback, which allowLoopbackEndpoints may let through), in the
	// order merge takes them in (compareEntries).
	entries []entry
	invalid []invalidAddress // in the order of the slice
	refused []refusedAddress // in the order of the slice, loopback included
}

// entry is one address of a slice: its sort key, the text a backend has,
// and the endpoint it comes from.
type entry struct {
	// The address bits, as netip.Addr.Compare orders them within a
	// family: an IPv4 address in the low 32 bits of lo, an IPv6 address
	// in hi and lo, nothing for a name (which compares by text).
	hi, lo uint64
	text   string // canonical IP text or lower-case name; the slice's own string when it is canonical
	ep     int32  // index of the endpoint in the slice, for its hints
	fam    family
	class  class
	// loopback: refused unless allowLoopbackEndpoints (and then reported
	// with the slice's refused addresses).
	loopback bool
}

// family orders entries as the backends are sorted: IPv4 before IPv6
// (netip.Addr.Compare), IP addresses before names.
type family uint8

const (
	famIPv4 family = iota
	famIPv6
	famName
)

// invalidAddress is an address that is not one of its slice's type.
type invalidAddress struct {
	ep, addr int32 // endpoints[ep].addresses[addr]
	err      error
}

// refusedAddress is an address RefusedAddress or RefusedName refuses.
type refusedAddress struct {
	ep, addr     int32 // endpoints[ep].addresses[addr]
	raw, reason  string
	loopbackOnly bool // refused only while allowLoopbackEndpoints is off
}

// readAddresses reads every address of slice s (of type IPv4, IPv6 or
// FQDN), appending its entries to entries (empty, with room for all of
// them, or grown), and sorts them.
func readAddresses(s *discoveryv1.EndpointSlice, entries []entry) sliceAddresses {
	var a sliceAddresses
	start := len(entries)
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		cl := classify(ep.Conditions)
		for j, raw := range ep.Addresses {
			e, ok := canonicalEntry(s.AddressType, raw)
			if !ok {
				ip, name, text, err := parseAddress(s.AddressType, raw)
				if err != nil {
					a.invalid = append(a.invalid, invalidAddress{ep: int32(i), addr: int32(j), err: err})
					continue
				}
				reason, loopbackOnly := refusal(ip, name)
				if reason != "" {
					a.refused = append(a.refused, refusedAddress{ep: int32(i), addr: int32(j), raw: raw, reason: reason, loopbackOnly: loopbackOnly})
					if !loopbackOnly {
						continue
					}
				}
				e = entryOf(ip, text)
				e.loopback = reason != ""
			}
			e.ep, e.class = int32(i), cl
			entries = append(entries, e)
		}
	}
	a.entries = entries[start:]
	slices.SortFunc(a.entries, compareEntries)
	return a
}

// canonicalEntry is the fast path of readAddresses: a canonical address
// in an IP slice (what an API server returns) is valid and is its own
// canonical text, and most addresses are in none of the ranges
// RefusedAddress refuses. ok is false for any other address, which
// parseAddress and refusal read.
func canonicalEntry(t discoveryv1.AddressType, raw string) (e entry, ok bool) {
	switch t {
	case discoveryv1.AddressTypeIPv4:
		if a4, ok := parseCanonicalIPv4(raw); ok && !maybeRefusedIPv4(a4) {
			return ipv4Entry(a4, raw), true
		}
	case discoveryv1.AddressTypeIPv6:
		if a16, ok := parseCanonicalIPv6(raw); ok && !maybeRefusedIPv6(a16) {
			return ipv6Entry(a16, raw), true
		}
	}
	return entry{}, false
}

// entryOf is the entry of an address parseAddress read: ip, or a name
// when ip is not valid, and its canonical text.
func entryOf(ip netip.Addr, text string) entry {
	switch {
	case !ip.IsValid():
		return entry{text: text, fam: famName}
	case ip.Is4():
		return ipv4Entry(ip.As4(), text)
	}
	return ipv6Entry(ip.As16(), text)
}

func ipv4Entry(a [4]byte, text string) entry {
	return entry{lo: uint64(binary.BigEndian.Uint32(a[:])), text: text, fam: famIPv4}
}

func ipv6Entry(a [16]byte, text string) entry {
	return entry{hi: binary.BigEndian.Uint64(a[:8]), lo: binary.BigEndian.Uint64(a[8:]), text: text, fam: famIPv6}
}

// refusal says why the address (ip, or name when ip is not valid) is
// refused with loopback refused, "" when it is not, and whether letting
// loopback through would use it.
func refusal(ip netip.Addr, name string) (reason string, loopbackOnly bool) {
	if ip.IsValid() {
		reason = RefusedAddress(ip, false)
		return reason, reason != "" && RefusedAddress(ip, true) == ""
	}
	reason = RefusedName(name, false)
	return reason, reason != "" && RefusedName(name, true) == ""
}

// parseAddress checks raw against the slice's address type. It returns either a valid ip
// or a (lower-cased) name, and the canonical text of the address.
func parseAddress(t discoveryv1.AddressType, raw string) (ip netip.Addr, name, text string, err error) {
	if t == discoveryv1.AddressTypeFQDN {
		name = strings.ToLower(raw)
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid DNS-1123 subdomain: %s", excerpt.Quote(raw), strings.Join(errs, "; "))
		}
		// A dotted-quad name is dialled as that IP: treat it as one so that it
		// deduplicates and sorts with the IP backends.
		if ip, err := netip.ParseAddr(name); err == nil {
			return ip, "", canonical(ip, name), nil
		}
		return netip.Addr{}, name, name, nil
	}

	family := "IPv4"
	if t == discoveryv1.AddressTypeIPv6 {
		family = "IPv6"
	}
	ip, err = netip.ParseAddr(raw)
	switch {
	case err != nil:
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid %s address", excerpt.Quote(raw), family)
	case ip.Zone() != "":
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid %s address: zones are not allowed", excerpt.Quote(raw), family)
	case t == discoveryv1.AddressTypeIPv4 && !ip.Is4():
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid IPv4 address: it is IPv6", excerpt.Quote(raw))
	case t == discoveryv1.AddressTypeIPv6 && !ip.Is6():
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid IPv6 address: it is IPv4", excerpt.Quote(raw))
	case t == discoveryv1.AddressTypeIPv6 && ip.Is4In6():
		// As Kubernetes validates slices: an IPv4-mapped address is IPv4.
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid IPv6 address: it is an IPv4-mapped address", excerpt.Quote(raw))
	}
	return ip, "", canonical(ip, raw), nil
}

// compareAddresses orders the addresses of entries: IPv4 addresses, then
// IPv6 ones, numerically (netip.Addr.Compare), then names (by text).
func compareAddresses(a, b *entry) int {
	switch {
	case a.fam != b.fam:
		return cmp.Compare(a.fam, b.fam)
	case a.hi != b.hi:
		return cmp.Compare(a.hi, b.hi)
	case a.lo != b.lo:
		return cmp.Compare(a.lo, b.lo)
	case a.fam == famName:
		return strings.Compare(a.text, b.text)
	}
	return 0
}

// sameAddress is compareAddresses(a, b) == 0.
func sameAddress(a, b *entry) bool {
	return a.fam == b.fam && a.hi == b.hi && a.lo == b.lo && (a.fam != famName || a.text == b.text)
}

// compareEntries is the order of the entries of a slice, the one merge
// needs: by address, then class (best first), then endpoint, so that
// among equally good copies of an address the one of the first endpoint
// wins whatever order sorting leaves equal keys in. (Two copies in one
// endpoint share everything a backend takes from them.)
func compareEntries(a, b entry) int {
	if c := compareAddresses(&a, &b); c != 0 {
		return c
	}
	if a.class != b.class {
		return cmp.Compare(b.class, a.class)
	}
	return cmp.Compare(a.ep, b.ep)
}

// addressField names endpoints[ep].addresses[addr] in a Problem.
func addressField(ep, addr int32) string {
	return fmt.Sprintf("endpoints[%d].addresses[%d]", ep, addr)
}
