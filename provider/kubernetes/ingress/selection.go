package ingress

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// selection is how the endpoints of a Service port are chosen: the
// options of endpoints.Select that the provider's options give (every one
// but where this proxy runs, which a render finds out, and those the
// Service itself gives), the ipFamily option, and nativeLBByDefault, which
// decides whether endpoints are used at all.
type selection struct {
	opts     endpoints.Options // without AddressTypes, PublishNotReady, Node and Zone
	ipFamily string            // in lower case
	nativeLB bool
}

func newSelection(p *Provider) selection {
	policy, err := endpoints.ParseTerminatingPolicy(p.TerminatingEndpoints)
	if err != nil {
		policy = endpoints.TerminatingFallback // Init refuses it; an embedder's renders get the default
	}
	return selection{
		opts: endpoints.Options{
			Terminating:   policy,
			AllowFQDN:     p.AllowFQDNEndpoints,
			AllowLoopback: p.AllowLoopbackEndpoints,
			Managers:      slices.Clone(p.EndpointSliceManagers),
		},
		ipFamily: strings.ToLower(p.IPFamily),
		nativeLB: p.NativeLBByDefault,
	}
}

// same says whether s and o choose the same endpoints of every Service.
func (s selection) same(o selection) bool {
	return s.opts.Terminating == o.opts.Terminating && s.opts.AllowFQDN == o.opts.AllowFQDN &&
		s.opts.AllowLoopback == o.opts.AllowLoopback && slices.Equal(s.opts.Managers, o.opts.Managers) &&
		s.ipFamily == o.ipFamily && s.nativeLB == o.nativeLB
}

// forService is the options for the slices of svc, with node and zone
// (where this proxy runs, "" when not known).
func (s selection) forService(svc *corev1.Service, node, zone string) endpoints.Options {
	opts := s.opts
	opts.AddressTypes = s.addressTypes(svc)
	opts.PublishNotReady = svc.Spec.PublishNotReadyAddresses
	opts.Node, opts.Zone = node, zone
	return opts
}

// addressTypes are the slice address types to use for a Service, by the
// ipFamily option: the Service's primary family, one family, or both. A
// Service without ipFamilies (headless, ExternalName, old objects) uses both.
func (s selection) addressTypes(svc *corev1.Service) []discoveryv1.AddressType {
	switch s.ipFamily {
	case IPFamilyIPv4:
		return onlyIPv4
	case IPFamilyIPv6:
		return onlyIPv6
	case IPFamilyAll:
		return nil
	}
	if len(svc.Spec.IPFamilies) == 0 {
		return nil
	}
	switch svc.Spec.IPFamilies[0] {
	case corev1.IPv4Protocol:
		return onlyIPv4
	case corev1.IPv6Protocol:
		return onlyIPv6
	}
	return nil
}

// The address types of one family; shared, never modified.
var (
	onlyIPv4 = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4}
	onlyIPv6 = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv6}
)
