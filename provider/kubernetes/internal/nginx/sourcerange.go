package nginx

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// sourceRangeConfig is what the source range annotations say: the
// client addresses allowed (allowlist-source-range, or its older name
// whitelist-source-range when it is not given, as ingress-nginx reads
// the alias) and those denied. whitelist and deny start as the
// ConfigMap's defaults; block is the ConfigMap's block-cidrs, denied
// whatever the annotations say.
type sourceRangeConfig struct {
	allow, whitelist, deny, block []netip.Prefix
	// allowList is the ipAllowList middleware they make, once the whole
	// set is read (computeAllowList): nil when no range is given. Shared
	// by every Ingress with the same annotations, and from one render to
	// the next (ParseAnnotations' memo), so that comparing two
	// configurations finds it equal at once.
	allowList *dynamic.Middleware
}

// maxSourceRanges bounds a source range list, so that the complement of
// a deny list (at most 128 ranges for each denied one) stays small.
const maxSourceRanges = 256

var sourceRangeAnnotations = []annotation{
	{name: "allowlist-source-range", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.Ranges.allow, err = parseSourceRanges(v)
		return
	}},
	{name: "whitelist-source-range", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.Ranges.whitelist, err = parseSourceRanges(v)
		return
	}},
	// Traefik v3.7 has no deny-list middleware among its public ones: the
	// denied ranges become an ipAllowList of every other address (both
	// families), which answers 403 to a denied client as nginx's deny does.
	{name: "denylist-source-range", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.Ranges.deny, err = parseSourceRanges(v)
		return
	}},
}

// parseSourceRanges reads a comma-separated list of CIDRs and addresses.
// ingress-nginx skips the items it cannot read as long as one is good;
// here any bad item refuses the list, as a typo in an allow list would
// otherwise let through what it meant to keep out, or keep out too much.
func parseSourceRanges(v string) ([]netip.Prefix, error) {
	items := parseList(v)
	if len(items) == 0 {
		return nil, errors.New("must list at least one CIDR or IP address")
	}
	if len(items) > maxSourceRanges {
		return nil, fmt.Errorf("must list at most %d CIDRs or IP addresses", maxSourceRanges)
	}
	out := make([]netip.Prefix, 0, len(items))
	for _, item := range items {
		p, err := parseSourceRange(item)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR or an IP address", excerpt.Text(item))
		}
		out = append(out, p)
	}
	return out, nil
}

// parseSourceRange reads one CIDR or address as a masked prefix; an IPv4
// address written as IPv6 (::ffff:10.0.0.1) is the IPv4 one, as Traefik
// compares it.
func parseSourceRange(item string) (netip.Prefix, error) {
	if !strings.Contains(item, "/") {
		a, err := netip.ParseAddr(item)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, errors.New("bad address")
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(item)
	if err != nil {
		return netip.Prefix{}, err
	}
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}

// sourceRanges adds the ipAllowList of the path to names, when a range
// is given.
func (pc *pathContext) sourceRanges(names []string) []string {
	mw := pc.cfg.Access.Ranges.allowList
	if mw == nil {
		return names
	}
	name := pc.ingressName("source-range")
	pc.addMiddlewareRef(name, mw)
	return append(names, name)
}

// computeAllowList sets allowList: the allowed ranges less the denied
// and blocked ones.
func (r *sourceRangeConfig) computeAllowList() {
	allow := r.allow
	if allow == nil {
		allow = r.whitelist
	}
	deny := r.deny
	if r.block != nil {
		deny = slices.Concat(r.deny, r.block)
	}
	if allow == nil && deny == nil {
		r.allowList = nil
		return
	}
	if allow == nil {
		allow = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	}
	kept := subtractRanges(allow, deny)
	out := make([]string, len(kept))
	for i, p := range kept {
		out[i] = p.String()
	}
	if len(out) == 0 {
		// Every address is denied. Traefik refuses an empty allow list
		// (and the router with it), so this is one no client can match.
		out = []string{"255.255.255.255/32"}
	}
	r.allowList = &dynamic.Middleware{"ipAllowList": map[string]any{"sourceRange": out}}
}

// mapped4 is where IPv4 addresses sit among IPv6 ones. Traefik (Go's
// net.IPNet) reads a range inside it as an IPv4 range, so none is ever
// written: its addresses are IPv4 clients, which the IPv4 ranges decide.
var mapped4 = netip.MustParsePrefix("::ffff:0:0/96")

// subtractRanges is the smallest list of ranges holding the addresses of
// allow that are in no range of deny, in address order: an address is in
// it iff it is in a range of allow and in no range of deny.
func subtractRanges(allow, deny []netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	for _, a := range allow {
		out = append(out, subtractFrom(a, deny)...)
	}
	out = slices.DeleteFunc(out, func(p netip.Prefix) bool {
		return p.Addr().Is6() && p.Bits() >= mapped4.Bits() && mapped4.Contains(p.Addr())
	})
	slices.SortFunc(out, func(a, b netip.Prefix) int {
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c
		}
		return a.Bits() - b.Bits()
	})
	// A range inside the one before it (overlapping allowed ranges) adds
	// nothing: sorted, it comes right after the range that holds it.
	kept := out[:0]
	for _, p := range out {
		if n := len(kept); n > 0 && kept[n-1].Addr().BitLen() == p.Addr().BitLen() && kept[n-1].Bits() <= p.Bits() && kept[n-1].Contains(p.Addr()) {
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

// subtractFrom is the addresses of p in no range of deny: p itself when
// no denied range overlaps it, nothing when one holds it, else the
// remainders of its two halves. The recursion follows the bits of the
// denied ranges inside p, so it is at most 128 deep and adds at most one
// range per bit of each.
func subtractFrom(p netip.Prefix, deny []netip.Prefix) []netip.Prefix {
	overlapping := false
	for _, d := range deny {
		if d.Addr().BitLen() != p.Addr().BitLen() || !d.Overlaps(p) {
			continue
		}
		if d.Bits() <= p.Bits() {
			return nil // d holds p
		}
		overlapping = true
	}
	if !overlapping {
		return []netip.Prefix{p}
	}
	lo, hi := halves(p)
	return append(subtractFrom(lo, deny), subtractFrom(hi, deny)...)
}

// halves splits p (shorter than its address) into its two halves.
func halves(p netip.Prefix) (netip.Prefix, netip.Prefix) {
	bits := p.Bits() + 1
	lo := netip.PrefixFrom(p.Addr(), bits)
	b := p.Addr().AsSlice()
	i := p.Bits() // the bit that tells the halves apart
	b[i/8] |= 0x80 >> (i % 8)
	a, _ := netip.AddrFromSlice(b)
	return lo, netip.PrefixFrom(a, bits)
}
