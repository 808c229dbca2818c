package endpoints

import (
	"cmp"
	"strings"
)

// The sorted addresses of a Prepared are packed keys in its words, so that
// a prepared slice of the usual kind costs one word per IPv4 address: the
// informer cache holds one per slice of the cluster, and its heap after a
// sync is a budget (BenchmarkHeapAfterSync).
//
// A narrow key, one word, is the key of an IPv4 slice:
//
//	address (32 bits) | class inverted (2) | loopback (1) | position (29)
//
// A wide key, three words, is that of an IPv6 or FQDN slice (whose
// addresses may be of both families or names: a dotted-quad name is an
// IPv4 address), or of an IPv4 slice of more addresses than 29 bits count:
//
//	hi, lo (the address bits), family (2) | class inverted (2) | loopback (1) | position (59)
//
// The class is inverted so that the best copy of an address sorts first;
// loopback marks an address used only when allowLoopbackEndpoints is set;
// position is where the address stands among all the addresses of the
// slice, endpoint by endpoint, which finds its endpoint (hints) and its
// text. An IPv4 address in a wide key is in the low 32 bits of lo; a name
// has no bits, its text orders it. Whatever the layout, keys sort as
// compareKeys says.

const (
	narrowPosBits = 29
	narrowPosMask = 1<<narrowPosBits - 1
	widePosBits   = 59
	widePosMask   = 1<<widePosBits - 1
)

// family orders addresses as the backends are sorted: IPv4 before IPv6
// (netip.Addr.Compare), IP addresses before names.
type family uint8

const (
	famIPv4 family = iota
	famIPv6
	famName
)

// key is a key as readAddress reads it, before it is packed.
type key struct {
	hi, lo   uint64
	pos      int
	fam      family
	class    class
	loopback bool
}

// key3 is a wide key: the form Prepare sorts wide keys in before it
// stores their words, and the form the merge reads every key in.
type key3 struct{ hi, lo, rest uint64 }

// wideLayout says whether the keys of a slice of kind k and total
// addresses are wide.
func wideLayout(k addressKind, total int) bool {
	return k != kindIPv4 || total > narrowPosMask
}

// stride is how many words a key of p takes.
func (p *Prepared) stride() int {
	if p.wide {
		return 3
	}
	return 1
}

func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// narrow packs k (an IPv4 address) as a narrow key.
func (k *key) narrow() uint64 {
	return k.lo<<32 | uint64(classReady-k.class)<<30 | bit(k.loopback)<<narrowPosBits | uint64(k.pos)
}

// wide packs k as a wide key.
func (k *key) wide() key3 {
	return key3{k.hi, k.lo, uint64(k.fam)<<62 | uint64(classReady-k.class)<<60 | bit(k.loopback)<<widePosBits | uint64(k.pos)}
}

// at is key i of p in the wide form, whatever its layout.
func (p *Prepared) at(i int) key3 {
	if !p.wide {
		return narrowAsWide(p.words[i])
	}
	w := p.words[3*i : 3*i+3 : 3*i+3]
	return key3{w[0], w[1], w[2]}
}

// narrowAsWide is narrow key w in the wide form.
func narrowAsWide(w uint64) key3 {
	return key3{lo: w >> 32, rest: uint64(famIPv4)<<62 | (w>>30&3)<<60 | (w>>narrowPosBits&1)<<widePosBits | w&narrowPosMask}
}

func (k key3) fam() family    { return family(k.rest >> 62) }
func (k key3) class() class   { return classReady - class(k.rest>>60&3) }
func (k key3) loopback() bool { return k.rest>>widePosBits&1 != 0 }
func (k key3) pos() int       { return int(k.rest & widePosMask) }

// compareAddresses orders the addresses of key a of pa and key b of pb:
// IPv4, then IPv6, numerically (netip.Addr.Compare), then names by text.
func compareAddresses(pa *Prepared, a key3, pb *Prepared, b key3) int {
	switch {
	case a.rest>>62 != b.rest>>62:
		return cmp.Compare(a.rest>>62, b.rest>>62)
	case a.hi != b.hi:
		return cmp.Compare(a.hi, b.hi)
	case a.lo != b.lo:
		return cmp.Compare(a.lo, b.lo)
	case a.fam() == famName:
		return strings.Compare(pa.text(a.pos()), pb.text(b.pos()))
	}
	return 0
}

// compareKeys3 is the order of the wide keys of p: by address, then class
// (best first), then position, so that among equally good copies of an
// address the first one read wins whatever order sorting leaves equal
// keys in. (Copies in one endpoint share everything a backend takes from
// them.) Only a name needs p, for its text.
func (p *Prepared) compareKeys3(a, b key3) int {
	if c := compareAddresses(p, a, p, b); c != 0 {
		return c
	}
	return cmp.Compare(a.rest, b.rest)
}

// compareIPKeys3 is compareKeys3 for keys of IP addresses only.
func compareIPKeys3(a, b key3) int {
	if c := compareAddresses(nil, a, nil, b); c != 0 {
		return c
	}
	return cmp.Compare(a.rest, b.rest)
}
