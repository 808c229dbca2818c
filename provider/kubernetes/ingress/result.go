package ingress

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
	// gateway is what the Gateway front end concluded about the Gateway
	// API objects, for their status; nil for the Ingress dialects.
	gateway *gatewayOutcome
}

// Translate builds the dynamic configuration of a cluster snapshot. It is
// pure: it reads the snapshot, never writes to it, never logs, and reports
// what is wrong with an object as an ObjectError while building the rest.
// A provider that renders again and again keeps a Renderer instead, which
// recomputes only what depends on the objects that changed.
func Translate(snap Snapshot, opts *Provider) *Result {
	res, _ := NewRenderer(opts).Render(snap, nil)
	return res
}
