package ingress

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
)

// location is where this proxy runs, for topology hints: its node and
// zone ("" when not known), whether the zone comes from its Node (which
// needs the Nodes watched), and the warnings about that Node.
type location struct {
	node, zone string
	fromNode   bool
	errs       []*ObjectError
}

// locate finds where the proxy runs: the node from the options (or
// NODE_NAME, resolved by Init), the zone from the options or else from
// the Node's zone label.
func locate(opts *Provider, snap Snapshot) location {
	loc := location{node: opts.nodeName}
	if tp := opts.Topology; tp != nil {
		if tp.Node != "" {
			loc.node = tp.Node
		}
		loc.zone = tp.Zone
	}
	if loc.node == "" || loc.zone != "" {
		return loc
	}
	loc.fromNode = true
	nodes := snap.Nodes()
	if nodes == nil {
		return loc // not watched yet
	}
	for _, n := range nodes {
		if n != nil && n.Name == loc.node {
			if loc.zone = n.Labels[corev1.LabelTopologyZone]; loc.zone == "" {
				loc.errs = []*ObjectError{{Kind: "Node", Name: loc.node, Field: "metadata.labels[" + corev1.LabelTopologyZone + "]", Severity: SeverityWarning,
					Err: errors.New("this proxy's node has no zone label: zone hints are not used (set topology.zone)")}}
			}
			return loc
		}
	}
	loc.errs = []*ObjectError{{Kind: "Node", Name: loc.node, Severity: SeverityWarning,
		Err: errors.New("this proxy's node (topology.node or NODE_NAME) does not exist: zone hints are not used")}}
	return loc
}
