package gateway

import (
	"fmt"
	"maps"
	"slices"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Priorities are the Traefik priorities of routers, the routers of
// Gateway API routes (each with its Order), in the order of routers
// (0 for a router without an order): for each entry point, the ranks of
// its routers' orders (match.Priorities), so that Traefik tries them in
// the order the Gateway API ranks their matches. A router's priority
// depends on every other router of its entry point, so they are settled
// over all routes at once.
func Priorities(routers []*translate.Router) ([]int, error) {
	byEntryPoint := map[string][]int{} // indexes into routers
	for i, r := range routers {
		if r.Order == nil || r.Config == nil || len(r.Config.EntryPoints) != 1 {
			continue
		}
		ep := r.Config.EntryPoints[0]
		byEntryPoint[ep] = append(byEntryPoint[ep], i)
	}
	out := make([]int, len(routers))
	for _, ep := range slices.Sorted(maps.Keys(byEntryPoint)) {
		list := byEntryPoint[ep]
		orders := make([]match.Order, len(list))
		for i, r := range list {
			orders[i] = *routers[r].Order
		}
		prios, err := match.Priorities(orders, 1)
		if err != nil {
			return nil, fmt.Errorf("entry point %s: %w", ep, err)
		}
		for i, r := range list {
			out[r] = prios[i]
		}
	}
	return out, nil
}
