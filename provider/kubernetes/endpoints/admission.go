package endpoints

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// sliceName is "namespace/name", as Problem.Slice has it.
func (p *Prepared) sliceName() string {
	if p.namespace == "" {
		return p.name
	}
	return p.namespace + "/" + p.name
}

// comparePrepared orders slices by namespace and name, the order a
// selection reads them in, so that when two copies of an address are
// equally good the same one (and its hints) wins whatever order the
// informer lists them in: the output depends on the cluster only. Missing
// slices come first; the selection skips them.
func comparePrepared(a, b *Prepared) int {
	switch {
	case a == nil || a.slice == nil:
		if b == nil || b.slice == nil {
			return 0
		}
		return -1
	case b == nil || b.slice == nil:
		return 1
	}
	return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.name, b.name))
}

// selector holds what one selection needs across its slices and the
// problems it finds.
type selector struct {
	portName string
	opts     Options
	problems []*Problem
}

func (sel *selector) report(p *Prepared, field string, err error) {
	sel.problems = append(sel.problems, &Problem{Slice: p.sliceName(), Field: field, Err: err})
}

// admit says whether the selection uses the slice of p, and at which
// port (its number and index in the slice), and reports why not when the
// slice is defective: not managed by one of the managers the options list,
// a port of the name that is not TCP or has no number, a number outside
// 1..65535, an address type it does not use. A slice of the other family
// of a dual-stack Service, or without a port of the name, is left out
// without a word.
func (sel *selector) admit(p *Prepared) (port int32, portIx int, ok bool) {
	if len(sel.opts.Managers) > 0 && !slices.Contains(sel.opts.Managers, p.manager) {
		sel.report(p, "metadata.labels["+discoveryv1.LabelManagedBy+"]",
			fmt.Errorf("managed by %s, which endpointSliceManagers does not list: the slice is ignored", excerpt.Quote(p.manager)))
		return 0, -1, false
	}
	ip := p.kind == kindIPv4 || p.kind == kindIPv6
	if ip && len(sel.opts.AddressTypes) > 0 && !slices.Contains(sel.opts.AddressTypes, p.kind.addressType()) {
		return 0, -1, false
	}

	// The first port of the name that is TCP (or says nothing) and has a number.
	portIx = -1
	for i := range p.ports {
		pp := &p.ports[i]
		if pp.name != sel.portName {
			continue
		}
		if pp.otherProtocol {
			protocol := *p.slice.Ports[i].Protocol
			sel.report(p, fmt.Sprintf("ports[%d].protocol", i), fmt.Errorf("port %s is %s, not TCP", excerpt.Quote(pp.name), excerpt.Text(string(protocol))))
			continue
		}
		if !pp.numbered {
			sel.report(p, fmt.Sprintf("ports[%d].port", i), fmt.Errorf("port %s has no number", excerpt.Quote(pp.name)))
			continue
		}
		portIx = i
		break
	}
	if portIx < 0 {
		return 0, -1, false
	}
	port = p.ports[portIx].port
	if port < 1 || port > 65535 {
		sel.report(p, fmt.Sprintf("ports[%d].port", portIx), fmt.Errorf("port %d is outside 1..65535", port))
		return 0, -1, false
	}

	switch p.kind {
	case kindIPv4, kindIPv6:
	case kindFQDN:
		if !sel.opts.AllowFQDN {
			sel.report(p, "addressType", errors.New("slices of address type FQDN are not used unless allowFQDNEndpoints is set"))
			return 0, -1, false
		}
	default:
		sel.report(p, "addressType", fmt.Errorf("unsupported address type %s (want IPv4, IPv6 or FQDN)", excerpt.Quote(string(p.slice.AddressType))))
		return 0, -1, false
	}
	return port, portIx, true
}

// reportAddresses reports the defective addresses of a slice the
// selection uses: each invalid one, and the refused ones (loopback only
// while the options refuse it) once, naming the first.
func (sel *selector) reportAddresses(p *Prepared) {
	a := p.extra
	if a == nil {
		return
	}
	for _, bad := range a.invalid {
		sel.report(p, addressField(bad.ep, bad.addr), bad.err)
	}
	var first *refusedAddress
	refused := 0
	for i := range a.refused {
		r := &a.refused[i]
		if r.loopbackOnly && sel.opts.AllowLoopback {
			continue
		}
		if first == nil {
			first = r
		}
		refused++
	}
	if first == nil {
		return
	}
	// Once per slice: a hostile slice may hold thousands of them.
	msg := excerpt.Quote(first.raw) + " is " + first.reason + ": never used as a server"
	if refused > 1 {
		msg += fmt.Sprintf(" (%d refused addresses in this slice)", refused)
	}
	sel.report(p, addressField(first.ep, first.addr), errors.New(msg))
}
