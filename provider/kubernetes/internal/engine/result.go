package engine

import (
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Result is the outcome of one translation: the configuration, and the
// problems found with individual objects (their bad parts are left out).
// A Result and its configuration are shared with later renders: read them,
// never modify them.
type Result struct {
	Configuration *dynamic.Configuration
	// TLSHostOwners says which Ingress chose each TLS host's TLS option
	// (dynamic.Message.TLSHostOwners). Not changed afterwards.
	TLSHostOwners map[string]dynamic.HostOwner
	Errors        []*ObjectError
	// Ingresses are the Ingresses this provider serves (their class is
	// ours), whether or not all their paths could be used: the status
	// writer publishes the load-balancer address on them. Oldest first.
	Ingresses []*netv1.Ingress
	// NeedsNodes says that a Service asked for node ports (service.nodeportlb),
	// or that topology hints need the zone of this proxy's Node: the Nodes
	// must be watched.
	NeedsNodes bool
	// Outcome is what a RouteDialect concluded of the objects it serves
	// beyond the configuration (the Gateway front end's, for their
	// status); nil for the Ingress dialects. Its front end reads it.
	Outcome any
}
