package translate

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
)

// Location is where this proxy runs, for topology hints: its node and
// zone ("" when not known), whether the zone comes from its Node (which
// needs the Nodes watched), and the warnings about that Node.
type Location struct {
	Node, Zone string
	FromNode   bool
	Errs       []*ObjectError
}

// Locate finds where the proxy runs: on node, in zone, as the options
// say ("" when they do not), or else in the zone of node's Node, by its
// zone label.
func Locate(node, zone string, snap Snapshot) Location {
	loc := Location{Node: node, Zone: zone}
	if loc.Node == "" || loc.Zone != "" {
		return loc
	}
	loc.FromNode = true
	nodes := snap.Nodes()
	if nodes == nil {
		return loc // not watched yet
	}
	for _, n := range nodes {
		if n != nil && n.Name == loc.Node {
			if loc.Zone = n.Labels[corev1.LabelTopologyZone]; loc.Zone == "" {
				loc.Errs = []*ObjectError{{Kind: "Node", Name: loc.Node, Field: "metadata.labels[" + corev1.LabelTopologyZone + "]", Severity: SeverityWarning,
					Err: errors.New("this proxy's node has no zone label: zone hints are not used (set topology.zone)")}}
			}
			return loc
		}
	}
	loc.Errs = []*ObjectError{{Kind: "Node", Name: loc.Node, Severity: SeverityWarning,
		Err: errors.New("this proxy's node (topology.node or NODE_NAME) does not exist: zone hints are not used")}}
	return loc
}
