package attach

import (
	"fmt"
	"net/netip"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// maxStatusAddresses is the most addresses GatewayStatus may list.
const maxStatusAddresses = 16

// addressCheck is what a Gateway's spec.addresses come to.
type addressCheck struct {
	// status are the addresses to publish in status.addresses.
	status []gatewayv1.GatewayStatusAddress
	// unsupported: address types this controller does not know
	// (Accepted=False, UnsupportedAddress).
	unsupported []string
	// notUsable: requested values the proxy does not have
	// (Programmed=False, AddressNotUsable).
	notUsable []string
	// notAssigned: no address to give (Programmed=False, AddressNotAssigned).
	notAssigned []string
}

// checkAddresses holds a Gateway's requested addresses against the addresses
// the proxy is known to have. This controller does not allocate addresses:
// it can only honour a request the proxy already satisfies.
//
//   - No request: every known address is published; with none known the
//     Gateway has no address (AddressNotAssigned).
//   - A request of a type other than IPAddress or Hostname is unsupported.
//   - A request with a value is honoured when the proxy has that address,
//     else it is not usable.
//   - A request with a type and no value takes the proxy's addresses of that
//     type, and is not assigned when there are none.
func checkAddresses(spec []gatewayv1.GatewaySpecAddress, have []gatewayv1.GatewayStatusAddress) addressCheck {
	var c addressCheck
	known := make([]gatewayv1.GatewayStatusAddress, 0, len(have))
	for _, a := range have {
		if a.Value != "" {
			t := addressType(a.Type, a.Value)
			known = append(known, gatewayv1.GatewayStatusAddress{Type: &t, Value: a.Value})
		}
	}
	if len(spec) == 0 {
		if len(known) == 0 {
			c.notAssigned = append(c.notAssigned, "the proxy's address is not known: no published address is configured")
		}
		c.add(known...)
		return c
	}
	for i, want := range spec {
		field := fmt.Sprintf("spec.addresses[%d]", i)
		t := gatewayv1.IPAddressType
		if want.Type != nil {
			t = *want.Type
		}
		if t != gatewayv1.IPAddressType && t != gatewayv1.HostnameAddressType {
			c.unsupported = append(c.unsupported, fmt.Sprintf("%s.type: %q is not supported; IPAddress and Hostname are", field, t))
			continue
		}
		var matched []gatewayv1.GatewayStatusAddress
		for _, k := range known {
			if *k.Type == t && (want.Value == "" || sameAddress(t, k.Value, want.Value)) {
				matched = append(matched, k)
			}
		}
		switch {
		case len(matched) > 0:
			c.add(matched...)
		case want.Value == "":
			c.notAssigned = append(c.notAssigned, fmt.Sprintf("%s: the proxy has no address of type %s", field, t))
		default:
			c.notUsable = append(c.notUsable, fmt.Sprintf("%s: %s %q is not an address of this proxy", field, t, want.Value))
		}
	}
	return c
}

// add appends addresses to the published list, without duplicates and
// within the list's limit.
func (c *addressCheck) add(addrs ...gatewayv1.GatewayStatusAddress) {
	for _, a := range addrs {
		if len(c.status) == maxStatusAddresses {
			return
		}
		dup := false
		for _, s := range c.status {
			if *s.Type == *a.Type && s.Value == a.Value {
				dup = true
				break
			}
		}
		if !dup {
			c.status = append(c.status, a)
		}
	}
}

// addressType returns the given type, or infers it from the value when the
// caller left it out.
func addressType(t *gatewayv1.AddressType, value string) gatewayv1.AddressType {
	if t != nil && *t != "" {
		return *t
	}
	if _, err := netip.ParseAddr(value); err == nil {
		return gatewayv1.IPAddressType
	}
	return gatewayv1.HostnameAddressType
}

// sameAddress compares IP addresses by value (so "::1" and "0::1" agree) and
// hostnames without regard to case, as DNS does.
func sameAddress(t gatewayv1.AddressType, a, b string) bool {
	if t == gatewayv1.IPAddressType {
		x, errA := netip.ParseAddr(a)
		y, errB := netip.ParseAddr(b)
		if errA == nil && errB == nil {
			return x == y
		}
	}
	return strings.EqualFold(a, b)
}
