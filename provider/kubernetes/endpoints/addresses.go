package endpoints

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// uncommon is what a slice an API server would not return needs beside
// its keys; the slice of one canonical address per endpoint, none of them
// invalid or refused, has none (Prepared.extra is nil), and costs nothing
// more than its keys.
type uncommon struct {
	// firsts is the position of the first address of each endpoint, when
	// some endpoint has other than one address; otherwise the position of
	// an address is its endpoint's index.
	firsts []int
	// texts is the canonical text of the address at each position, ""
	// where it is the slice's own string; nil when every one is.
	texts   []string
	invalid []invalidAddress // in the order of the slice
	refused []refusedAddress // in the order of the slice, loopback included
}

// invalidAddress is an address that is not one of its slice's type.
type invalidAddress struct {
	ep, addr int // endpoints[ep].addresses[addr]
	err      error
}

// refusedAddress is an address RefusedAddress or RefusedName refuses.
type refusedAddress struct {
	ep, addr     int // endpoints[ep].addresses[addr]
	raw, reason  string
	loopbackOnly bool // refused only while allowLoopbackEndpoints is off
}

func (x *uncommon) empty() bool {
	return x.firsts == nil && x.texts == nil && x.invalid == nil && x.refused == nil
}

// addressCount is how many addresses slice s lists.
func addressCount(s *discoveryv1.EndpointSlice) int {
	n := 0
	for i := range s.Endpoints {
		n += len(s.Endpoints[i].Addresses)
	}
	return n
}

// readAddresses reads every address of p's slice (of kind IPv4, IPv6 or
// FQDN, total addresses), whatever the options: it appends their keys to
// dst, sorted, sets p.words to them, p.n, p.wide and p.extra, and returns
// dst. tmp is room for the wide keys while they are sorted, returned for
// the next slice. The options decide, when a selection reads the keys,
// which it may use (loopback) and which defects it reports.
func (p *Prepared) readAddresses(dst []uint64, tmp []key3, total int) ([]uint64, []key3) {
	s := p.slice
	p.wide = wideLayout(p.kind, total)
	start := len(dst)
	tmp = tmp[:0]
	var x uncommon
	names, pos := false, 0
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		if x.firsts == nil && len(ep.Addresses) != 1 {
			x.firsts = make([]int, i, len(s.Endpoints))
			for e := range x.firsts {
				x.firsts[e] = e
			}
		}
		if x.firsts != nil {
			x.firsts = append(x.firsts, pos)
		}
		cl := classify(ep.Conditions)
		for j, raw := range ep.Addresses {
			k, ok := p.readAddress(&x, i, j, raw, pos, total)
			k.pos, k.class = pos, cl
			pos++
			switch {
			case !ok:
			case p.wide:
				names = names || k.fam == famName
				tmp = append(tmp, k.wide())
			default:
				dst = append(dst, k.narrow())
			}
		}
	}
	if !x.empty() {
		p.extra = new(uncommon)
		*p.extra = x
	}
	if !p.wide {
		p.words = dst[start:] // Prepare appends the URL ends in its room
		slices.Sort(p.words)
		p.n = int32(len(p.words))
		return dst, tmp
	}
	if names {
		slices.SortFunc(tmp, p.compareKeys3) // after p.extra, which holds the texts of names
	} else {
		slices.SortFunc(tmp, compareIPKeys3)
	}
	for _, k := range tmp {
		dst = append(dst, k.hi, k.lo, k.rest)
	}
	p.words = dst[start:] // Prepare appends the URL ends in its room
	p.n = int32(len(tmp))
	return dst, tmp
}

// readAddress reads address j of endpoint i of p's slice, raw, at
// position pos of total, recording
// in x what its key does not hold; ok is false when the address is never
// used (invalid, or refused for another reason than loopback).
func (p *Prepared) readAddress(x *uncommon, i, j int, raw string, pos, total int) (k key, ok bool) {
	// Fast path: a canonical address in an IP slice (what an API server
	// returns) is valid and is its own canonical text, and most addresses
	// are in none of the ranges RefusedAddress refuses.
	switch p.kind {
	case kindIPv4:
		if a4, ok := parseCanonicalIPv4(raw); ok && !maybeRefusedIPv4(a4) {
			return key{lo: uint64(binary.BigEndian.Uint32(a4[:])), fam: famIPv4}, true
		}
	case kindIPv6:
		if a16, ok := parseCanonicalIPv6(raw); ok && !maybeRefusedIPv6(a16) {
			return key{hi: binary.BigEndian.Uint64(a16[:8]), lo: binary.BigEndian.Uint64(a16[8:]), fam: famIPv6}, true
		}
	}
	ip, name, text, err := parseAddress(p.kind.addressType(), raw)
	if err != nil {
		x.invalid = append(x.invalid, invalidAddress{ep: i, addr: j, err: err})
		return key{}, false
	}
	reason, loopbackOnly := refusal(ip, name)
	if reason != "" {
		x.refused = append(x.refused, refusedAddress{ep: i, addr: j, raw: raw, reason: reason, loopbackOnly: loopbackOnly})
		if !loopbackOnly {
			return key{}, false
		}
	}
	if text != raw {
		if x.texts == nil {
			x.texts = make([]string, total)
		}
		x.texts[pos] = text
	}
	switch {
	case !ip.IsValid():
		k = key{fam: famName}
	case ip.Is4():
		a4 := ip.As4()
		k = key{lo: uint64(binary.BigEndian.Uint32(a4[:])), fam: famIPv4}
	default:
		a16 := ip.As16()
		k = key{hi: binary.BigEndian.Uint64(a16[:8]), lo: binary.BigEndian.Uint64(a16[8:]), fam: famIPv6}
	}
	k.loopback = reason != ""
	return k, true
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

	want := "IPv4"
	if t == discoveryv1.AddressTypeIPv6 {
		want = "IPv6"
	}
	ip, err = netip.ParseAddr(raw)
	switch {
	case err != nil:
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid %s address", excerpt.Quote(raw), want)
	case ip.Zone() != "":
		return netip.Addr{}, "", "", fmt.Errorf("%s is not a valid %s address: zones are not allowed", excerpt.Quote(raw), want)
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

// addressField names endpoints[ep].addresses[addr] in a Problem.
func addressField(ep, addr int) string {
	return fmt.Sprintf("endpoints[%d].addresses[%d]", ep, addr)
}
