package ingress

import (
	"cmp"
	"net/netip"
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
)

// gatewayAddresses are the addresses the proxy serves Gateways at, each
// with its options: the entry points clients reach at that address, and
// the address itself for status.addresses. Gateways on different
// addresses are apart (a request reaches the routes of its address's
// Gateways only); Gateways on one address share its entry points.
type gatewayAddresses struct {
	pools []*attach.Options // in the order of their addresses
}

// assign gives each Gateway of gws one address, as the options its
// listeners are processed with:
//
//  1. the address its spec.addresses ask for, when the proxy has it;
//  2. else the address its status.addresses give, when the proxy has it:
//     a Gateway keeps its address from one render to the next, whatever
//     Gateways come and go;
//  3. else, in the order the Gateways were created, the address with the
//     fewest Gateways so far (the first of those).
//
// A Gateway asking for an address the proxy does not have gets the first
// address's options; its listeners' check then refuses the request
// (AddressNotUsable). With one address, every Gateway has it.
func (a *gatewayAddresses) assign(gws []*gatewayv1.Gateway) map[*gatewayv1.Gateway]*attach.Options {
	out := make(map[*gatewayv1.Gateway]*attach.Options, len(gws))
	if len(a.pools) == 1 {
		for _, gw := range gws {
			out[gw] = a.pools[0]
		}
		return out
	}
	counts := make([]int, len(a.pools))
	var unplaced []*gatewayv1.Gateway
	for _, gw := range gws {
		i := a.requested(gw)
		if i < 0 {
			unplaced = append(unplaced, gw)
			continue
		}
		out[gw] = a.pools[i]
		counts[i]++
	}
	slices.SortStableFunc(unplaced, func(x, y *gatewayv1.Gateway) int {
		return cmp.Or(x.CreationTimestamp.Compare(y.CreationTimestamp.Time),
			cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	for _, gw := range unplaced {
		i := slices.Index(counts, slices.Min(counts))
		out[gw] = a.pools[i]
		counts[i]++
	}
	return out
}

// requested is the index of the address gw asks for in spec.addresses,
// else of the one its status gives; -1 when neither is one of ours. A
// request the proxy cannot satisfy places gw on the first address.
func (a *gatewayAddresses) requested(gw *gatewayv1.Gateway) int {
	for _, want := range gw.Spec.Addresses {
		if want.Value == "" {
			continue
		}
		if i := a.index(want.Value); i >= 0 {
			return i
		}
		return 0
	}
	for _, have := range gw.Status.Addresses {
		if i := a.index(have.Value); i >= 0 {
			return i
		}
	}
	return -1
}

// index is the index of the address whose IP is value, -1 if none is.
func (a *gatewayAddresses) index(value string) int {
	ip, err := netip.ParseAddr(value)
	if err != nil {
		return -1
	}
	return slices.IndexFunc(a.pools, func(o *attach.Options) bool {
		return len(o.Addresses) == 1 && o.Addresses[0].Value == ip.String()
	})
}
