package attach

import "slices"

// CountAttachedRoutes sets AttachedRoutes on every listener of gateways: the
// number of distinct routes attached to it through an accepted parent. A
// route reaching one listener through two parentRefs counts once; a refused
// parent counts nowhere, as the API asks. Refused listeners still count the
// routes attached to them. Run it on the final attachments, after
// ApplyDroppedRules and ResolveKindConflicts.
func CountAttachedRoutes(gateways []Gateway, routes []RouteAttachment) {
	attached := map[listenerKey]int32{}
	for i := range routes {
		for _, k := range attachedListeners(&routes[i]) {
			attached[k]++
		}
	}
	for g := range gateways {
		for i := range gateways[g].Listeners {
			l := &gateways[g].Listeners[i]
			l.AttachedRoutes = attached[listenerKey{gateways[g].Namespace, gateways[g].Name, l.Name}]
		}
	}
}

// RecountAttachedRoutes is gateways, counted by CountAttachedRoutes, counted
// again after some routes changed: olds are their final attachments before
// the change, news after it (a route that came has none in olds, one that
// went none in news). gateways is not modified: a Gateway whose counts
// change is copied, and so is the slice.
func RecountAttachedRoutes(gateways []Gateway, olds, news []*RouteAttachment) []Gateway {
	delta := map[listenerKey]int32{}
	for _, att := range olds {
		for _, k := range attachedListeners(att) {
			delta[k]--
		}
	}
	for _, att := range news {
		for _, k := range attachedListeners(att) {
			delta[k]++
		}
	}
	out, copied := gateways, false
	for g := range gateways {
		listenersCopied := false
		for i, l := range gateways[g].Listeners {
			d := delta[listenerKey{gateways[g].Namespace, gateways[g].Name, l.Name}]
			if d == 0 {
				continue
			}
			if !copied {
				out, copied = slices.Clone(gateways), true
			}
			if !listenersCopied {
				out[g].Listeners, listenersCopied = slices.Clone(gateways[g].Listeners), true
			}
			out[g].Listeners[i].AttachedRoutes += d
		}
	}
	return out
}

// attachedListeners are the listeners att is attached to through an
// accepted parent, each once.
func attachedListeners(att *RouteAttachment) []listenerKey {
	var out []listenerKey
	for _, p := range att.Parents {
		if !p.Accepted {
			continue
		}
		for _, la := range p.Listeners {
			if k := (listenerKey{p.GatewayNamespace, p.GatewayName, la.Listener}); !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}
