package attach

// CountAttachedRoutes sets AttachedRoutes on every listener of gateways: the
// number of distinct routes attached to it through an accepted parent. A
// route reaching one listener through two parentRefs counts once; a refused
// parent counts nowhere, as the API asks. Refused listeners still count the
// routes attached to them. Run it on the final attachments, after
// ApplyDroppedRules and ResolveKindConflicts.
func CountAttachedRoutes(gateways []Gateway, routes []RouteAttachment) {
	type routeKey struct{ kind, namespace, name string }
	attached := map[listenerKey]map[routeKey]bool{}
	for _, att := range routes {
		rk := routeKey{string(att.Route.Kind), att.Route.Namespace, att.Route.Name}
		for _, p := range att.Parents {
			if !p.Accepted {
				continue
			}
			for _, la := range p.Listeners {
				k := listenerKey{p.GatewayNamespace, p.GatewayName, la.Listener}
				if attached[k] == nil {
					attached[k] = map[routeKey]bool{}
				}
				attached[k][rk] = true
			}
		}
	}
	for g := range gateways {
		for i := range gateways[g].Listeners {
			l := &gateways[g].Listeners[i]
			l.AttachedRoutes = int32(len(attached[listenerKey{gateways[g].Namespace, gateways[g].Name, l.Name}]))
		}
	}
}
