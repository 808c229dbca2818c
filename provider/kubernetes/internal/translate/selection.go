package translate

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// Selection is how the endpoints of a Service port are chosen: the
// options of endpoints.Select that the provider's options give (every one
// but where this proxy runs, which a render finds out, and those the
// Service itself gives), the ipFamily option, and nativeLBByDefault, which
// decides whether endpoints are used at all.
type Selection struct {
	Endpoints endpoints.Options // without AddressTypes, PublishNotReady, Node and Zone
	IPFamily  string            // in lower case
	NativeLB  bool
}

// same says whether s and o choose the same endpoints of every Service.
func (s Selection) same(o Selection) bool {
	return s.Endpoints.Terminating == o.Endpoints.Terminating && s.Endpoints.AllowFQDN == o.Endpoints.AllowFQDN &&
		s.Endpoints.AllowLoopback == o.Endpoints.AllowLoopback && slices.Equal(s.Endpoints.Managers, o.Endpoints.Managers) &&
		s.IPFamily == o.IPFamily && s.NativeLB == o.NativeLB
}

// forService is the options for the slices of svc, with node and zone
// (where this proxy runs, "" when not known).
func (s Selection) forService(svc *corev1.Service, node, zone string) endpoints.Options {
	opts := s.Endpoints
	opts.AddressTypes = s.AddressTypes(svc)
	opts.PublishNotReady = svc.Spec.PublishNotReadyAddresses
	opts.Node, opts.Zone = node, zone
	return opts
}

// AddressTypes are the slice address types to use for a Service, by the
// ipFamily option: the Service's primary family, one family, or both. A
// Service without ipFamilies (headless, ExternalName, old objects) uses both.
func (s Selection) AddressTypes(svc *corev1.Service) []discoveryv1.AddressType {
	switch s.IPFamily {
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

// The values of Selection.IPFamily (the ipFamily option, in lower case):
// the Service's primary family, one family, or both.
const (
	IPFamilyPrimary = "primary"
	IPFamilyIPv4    = "ipv4"
	IPFamilyIPv6    = "ipv6"
	IPFamilyAll     = "all"
)

// The address types of one family; shared, never modified.
var (
	onlyIPv4 = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4}
	onlyIPv6 = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv6}
)
