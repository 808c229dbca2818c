package endpoints

import "net/netip"

// The canonical text of an address is what netip.Addr.String writes, and
// what an API server returns. Reading it needs no netip parse: these
// parsers accept exactly the canonical texts and leave every other string
// to netip.ParseAddr (parseAddress), which gives the same address.

// parseCanonicalIPv4 parses s if it is an IPv4 address in canonical form:
// four decimal octets of at most 255 without leading zeros, separated by
// dots. Such a string is what netip.Addr.String returns for the address.
// Any other string is left to netip.ParseAddr.
func parseCanonicalIPv4(s string) (a [4]byte, ok bool) {
	field, digits, val := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if digits == 1 && val == 0 {
				return a, false // leading zero
			}
			val = val*10 + int(c-'0')
			if val > 255 {
				return a, false
			}
			digits++
		case c == '.' && digits > 0 && field < 3:
			a[field] = byte(val)
			field, digits, val = field+1, 0, 0
		default:
			return a, false
		}
	}
	if field != 3 || digits == 0 {
		return a, false
	}
	a[3] = byte(val)
	return a, true
}

// parseCanonicalIPv6 parses s if it is an IPv6 address written as
// netip.Addr.String writes it (RFC 5952): eight groups of one to four
// lower-case hex digits without leading zeros, separated by colons, with
// the longest run of two or more zero groups (the first of equal runs)
// written "::", no zone, and not an IPv4-mapped address (which String
// writes with a dotted quad). Any other string is left to netip.ParseAddr.
func parseCanonicalIPv6(s string) (a [16]byte, ok bool) {
	if len(s) < 2 || len(s) > len("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff") {
		return a, false
	}
	var groups [8]uint16
	n, gap, i := 0, -1, 0 // groups read, where "::" stands (in groups), position in s
	if s[0] == ':' {
		if s[1] != ':' {
			return a, false
		}
		gap, i = 0, 2
	}
	for i < len(s) {
		start, v := i, 0
	hex:
		for i < len(s) && i-start < 5 {
			switch c := s[i]; {
			case c >= '0' && c <= '9':
				v = v<<4 | int(c-'0')
			case c >= 'a' && c <= 'f':
				v = v<<4 | int(c-'a'+10)
			default:
				break hex
			}
			i++
		}
		if digits := i - start; digits == 0 || digits > 4 || (digits > 1 && s[start] == '0') || n == len(groups) {
			return a, false
		}
		groups[n] = uint16(v)
		n++
		if i == len(s) {
			break
		}
		if s[i] != ':' || i+1 == len(s) {
			return a, false
		}
		i++
		if s[i] == ':' {
			if gap >= 0 {
				return a, false
			}
			gap = n
			i++
		}
	}
	// Spread the groups around the gap, and check that the gap is where
	// netip puts it: the first longest run of two or more zero groups.
	var full [8]uint16
	run := 0
	if gap < 0 {
		if n != len(groups) {
			return a, false
		}
		full = groups
	} else {
		run = len(full) - n
		if run < 2 {
			return a, false
		}
		copy(full[:gap], groups[:gap])
		copy(full[gap+run:], groups[gap:n])
	}
	bestStart, bestLen := -1, 1
	for j := 0; j < len(full); {
		if full[j] != 0 {
			j++
			continue
		}
		k := j
		for k < len(full) && full[k] == 0 {
			k++
		}
		if k-j > bestLen {
			bestStart, bestLen = j, k-j
		}
		j = k
	}
	if (gap < 0 && bestStart >= 0) || (gap >= 0 && (bestStart != gap || bestLen != run)) {
		return a, false
	}
	if full[0]|full[1]|full[2]|full[3]|full[4] == 0 && full[5] == 0xffff {
		return a, false // IPv4-mapped: String writes ::ffff:a.b.c.d
	}
	for j, g := range full {
		a[2*j], a[2*j+1] = byte(g>>8), byte(g)
	}
	return a, true
}

// canonical returns ip.String(), reusing raw (no allocation) when it is already canonical.
func canonical(ip netip.Addr, raw string) string {
	var buf [64]byte
	if b := ip.AppendTo(buf[:0]); string(b) == raw {
		return raw
	}
	return ip.String()
}
