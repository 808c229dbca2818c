package endpoints

import discoveryv1 "k8s.io/api/discovery/v1"

// applyTopology narrows the ready candidates by their hints, as kube-proxy
// does across all slices of a Service: to the endpoints hinted for node if
// every ready endpoint has node hints and one names node; else to those
// hinted for zone under the same rule; else it leaves them all. Endpoints it
// leaves out are marked unusable. It never leaves no ready endpoint.
func applyTopology(cands []candidate, runs []run, node, zone string) {
	anyReady := false
	allNode, nodeMatch := node != "", false
	allZone, zoneMatch := zone != "", false
	for i := range cands {
		c := &cands[i]
		if c.class != classReady {
			continue
		}
		anyReady = true
		h := c.hints(runs)
		if h == nil || len(h.ForNodes) == 0 {
			allNode = false
		} else if hintedForNode(h, node) {
			nodeMatch = true
		}
		if h == nil || len(h.ForZones) == 0 {
			allZone = false
		} else if hintedForZone(h, zone) {
			zoneMatch = true
		}
	}
	if !anyReady {
		return
	}
	var keep func(*discoveryv1.EndpointHints) bool
	switch {
	case allNode && nodeMatch:
		keep = func(h *discoveryv1.EndpointHints) bool { return hintedForNode(h, node) }
	case allZone && zoneMatch:
		keep = func(h *discoveryv1.EndpointHints) bool { return hintedForZone(h, zone) }
	default:
		return
	}
	for i := range cands {
		if c := &cands[i]; c.class == classReady && !keep(c.hints(runs)) {
			c.class = classUnusable
		}
	}
}

func hintedForNode(h *discoveryv1.EndpointHints, node string) bool {
	for _, n := range h.ForNodes {
		if n.Name == node {
			return true
		}
	}
	return false
}

func hintedForZone(h *discoveryv1.EndpointHints, zone string) bool {
	for _, z := range h.ForZones {
		if z.Name == zone {
			return true
		}
	}
	return false
}
