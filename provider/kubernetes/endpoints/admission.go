package endpoints

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// sliceHead is what a selection reads of a slice before its addresses,
// copied out of it so that a render reads its prepared slices alone: the
// check of their order and manager, and the choice of port, read the
// Prepared values, not the slices' objects scattered over the heap.
type sliceHead struct {
	namespace, name, manager string
	addressType              discoveryv1.AddressType
	ports                    []portInfo
}

// portInfo is an EndpointPort without its pointers.
type portInfo struct {
	name        string
	protocol    corev1.Protocol
	port        int32
	protocolSet bool // protocol holds a value, which may be ""
	numbered    bool // port holds a value
}

// readHead reads the head of slice s, appending its ports to ports.
func readHead(s *discoveryv1.EndpointSlice, ports []portInfo) sliceHead {
	h := sliceHead{namespace: s.Namespace, name: s.Name, manager: s.Labels[discoveryv1.LabelManagedBy], addressType: s.AddressType}
	start := len(ports)
	for i := range s.Ports {
		sp := &s.Ports[i]
		var p portInfo
		if sp.Name != nil {
			p.name = *sp.Name
		}
		if sp.Protocol != nil {
			p.protocol, p.protocolSet = *sp.Protocol, true
		}
		if sp.Port != nil {
			p.port, p.numbered = *sp.Port, true
		}
		ports = append(ports, p)
	}
	h.ports = ports[start:]
	return h
}

// sliceName is "namespace/name", as Problem.Slice has it.
func (h *sliceHead) sliceName() string {
	if h.namespace == "" {
		return h.name
	}
	return h.namespace + "/" + h.name
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
	return cmp.Or(cmp.Compare(a.head.namespace, b.head.namespace), cmp.Compare(a.head.name, b.head.name))
}

// selector holds what one selection needs across its slices and the
// problems it finds.
type selector struct {
	portName string
	opts     Options
	problems []*Problem
}

func (sel *selector) report(h *sliceHead, field string, err error) {
	sel.problems = append(sel.problems, &Problem{Slice: h.sliceName(), Field: field, Err: err})
}

// admit says whether the selection uses the slice of head h, and at which
// port (its number and index in the slice), and reports why not when the
// slice is defective: not managed by one of the managers the options list,
// a port of the name that is not TCP or has no number, a number outside
// 1..65535, an address type it does not use. A slice of the other family
// of a dual-stack Service, or without a port of the name, is left out
// without a word.
func (sel *selector) admit(h *sliceHead) (port int32, portIx int, ok bool) {
	if len(sel.opts.Managers) > 0 && !slices.Contains(sel.opts.Managers, h.manager) {
		sel.report(h, "metadata.labels["+discoveryv1.LabelManagedBy+"]",
			fmt.Errorf("managed by %s, which endpointSliceManagers does not list: the slice is ignored", excerpt.Quote(h.manager)))
		return 0, -1, false
	}
	ip := h.addressType == discoveryv1.AddressTypeIPv4 || h.addressType == discoveryv1.AddressTypeIPv6
	if ip && len(sel.opts.AddressTypes) > 0 && !slices.Contains(sel.opts.AddressTypes, h.addressType) {
		return 0, -1, false
	}

	// The first port of the name that is TCP (or says nothing) and has a number.
	portIx = -1
	for i := range h.ports {
		p := &h.ports[i]
		if p.name != sel.portName {
			continue
		}
		if p.protocolSet && p.protocol != corev1.ProtocolTCP {
			sel.report(h, fmt.Sprintf("ports[%d].protocol", i), fmt.Errorf("port %s is %s, not TCP", excerpt.Quote(p.name), excerpt.Text(string(p.protocol))))
			continue
		}
		if !p.numbered {
			sel.report(h, fmt.Sprintf("ports[%d].port", i), fmt.Errorf("port %s has no number", excerpt.Quote(p.name)))
			continue
		}
		portIx = i
		break
	}
	if portIx < 0 {
		return 0, -1, false
	}
	port = h.ports[portIx].port
	if port < 1 || port > 65535 {
		sel.report(h, fmt.Sprintf("ports[%d].port", portIx), fmt.Errorf("port %d is outside 1..65535", port))
		return 0, -1, false
	}

	switch h.addressType {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
	case discoveryv1.AddressTypeFQDN:
		if !sel.opts.AllowFQDN {
			sel.report(h, "addressType", errors.New("slices of address type FQDN are not used unless allowFQDNEndpoints is set"))
			return 0, -1, false
		}
	default:
		sel.report(h, "addressType", fmt.Errorf("unsupported address type %s (want IPv4, IPv6 or FQDN)", excerpt.Quote(string(h.addressType))))
		return 0, -1, false
	}
	return port, portIx, true
}

// reportAddresses reports the defective addresses of a slice the
// selection uses: each invalid one, and the refused ones (loopback only
// while the options refuse it) once, naming the first.
func (sel *selector) reportAddresses(h *sliceHead, a *sliceAddresses) {
	for _, bad := range a.invalid {
		sel.report(h, addressField(bad.ep, bad.addr), bad.err)
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
	sel.report(h, addressField(first.ep, first.addr), errors.New(msg))
}
