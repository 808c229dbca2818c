package endpoints

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// The ways Select drops the repeated addresses of a Service's candidates:
// a sort by comparison in general, and sorts of packed keys for the
// common candidate sets of one family, which need no comparison function.

// dedupGeneral sorts the indices of cands (appended to order, which is
// empty) and returns them with every copy but the best of each address and
// port left out.
func dedupGeneral(cands []candidate, order []int32) []int32 {
	for i := range cands {
		order = append(order, int32(i))
	}
	slicesSortFunc(order, func(a, b int32) int {
		ca, cb := &cands[a], &cands[b]
		if c := compareCandidates(ca, cb); c != 0 {
			return c
		}
		if ca.class != cb.class {
			return cmp.Compare(cb.class, ca.class)
		}
		return cmp.Compare(a, b)
	})
	uniq := order[:0]
	for _, idx := range order {
		if n := len(uniq); n > 0 && compareCandidates(&cands[uniq[n-1]], &cands[idx]) == 0 {
			continue
		}
		uniq = append(uniq, idx)
	}
	return uniq
}

// The packed sort key of dedupPacked, from the most significant bit: the
// IPv4 address (32 bits), the port (16), the class inverted so that the best
// sorts first (2), the index of the candidate (the rest).
const (
	packedIndexBits = 14
	maxPackedCands  = 1 << packedIndexBits
	packedClassBits = 2
	packedSameShift = packedIndexBits + packedClassBits // key >> packedSameShift is address and port
)

// packedTail is what the packed sort keys hold after the address: the
// port, the class inverted and the index i of candidate c.
func packedTail(c *candidate, i int) uint64 {
	return uint64(uint16(c.port))<<packedSameShift | uint64(classReady-c.class)<<packedIndexBits | uint64(i)
}

// allIPv4 says whether every candidate has an IPv4 address (the common case).
func allIPv4(cands []candidate) bool {
	for i := range cands {
		if !cands[i].ip.Is4() {
			return false
		}
	}
	return true
}

// dedupPacked does what dedupGeneral does, faster, for at most
// maxPackedCands candidates that all have IPv4 addresses: each one's sort
// order is packed in a uint64, so that sorting needs no comparison function.
// Between IPv4 addresses netip.Addr.Compare is the order of their 32 bits,
// so the keys sort as dedupGeneral's comparison does.
func dedupPacked(cands []candidate, order []int32) []int32 {
	var keyBuf [smallCands]uint64
	keys := keyBuf[:0]
	if len(cands) > smallCands {
		keys = make([]uint64, 0, len(cands))
	}
	for i := range cands {
		c := &cands[i]
		a4 := c.ip.As4()
		key := uint64(binary.BigEndian.Uint32(a4[:]))<<32 | packedTail(c, i)
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for i, key := range keys {
		if i > 0 && key>>packedSameShift == keys[i-1]>>packedSameShift {
			continue // a worse (or later) copy of the previous one
		}
		order = append(order, int32(key&(maxPackedCands-1)))
	}
	return order
}

// allIPv6 says whether every candidate has an IPv6 address.
func allIPv6(cands []candidate) bool {
	for i := range cands {
		if !cands[i].ip.Is6() {
			return false
		}
	}
	return true
}

// key6 is the sort key of dedupPacked6: the address in two halves, then
// packedTail.
type key6 struct{ hi, lo, rest uint64 }

func compareKey6(a, b key6) int {
	switch {
	case a.hi != b.hi:
		return cmp.Compare(a.hi, b.hi)
	case a.lo != b.lo:
		return cmp.Compare(a.lo, b.lo)
	}
	return cmp.Compare(a.rest, b.rest)
}

// dedupPacked6 is dedupPacked for candidates that all have IPv6 addresses
// (none has a zone: parseAddress refuses them). Between such addresses
// netip.Addr.Compare is the order of their 128 bits, high half first.
func dedupPacked6(cands []candidate, order []int32) []int32 {
	var keyBuf [smallCands]key6
	keys := keyBuf[:0]
	if len(cands) > smallCands {
		keys = make([]key6, 0, len(cands))
	}
	for i := range cands {
		c := &cands[i]
		a := c.ip.As16()
		keys = append(keys, key6{
			hi:   binary.BigEndian.Uint64(a[:8]),
			lo:   binary.BigEndian.Uint64(a[8:]),
			rest: packedTail(c, i),
		})
	}
	slices.SortFunc(keys, compareKey6)
	for i, k := range keys {
		if i > 0 {
			prev := keys[i-1]
			if k.hi == prev.hi && k.lo == prev.lo && k.rest>>packedSameShift == prev.rest>>packedSameShift {
				continue // a worse (or later) copy of the previous one
			}
		}
		order = append(order, int32(k.rest&(maxPackedCands-1)))
	}
	return order
}
