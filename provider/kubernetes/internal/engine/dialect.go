// Package engine is the render engine that every front end of the
// Kubernetes provider shares: the render state (what each Ingress or
// route contributes, the load balancer of each Service port in use),
// full and incremental renders, and the assembly of the parts into one
// dynamic configuration. A front end (a Dialect) says which objects are
// served and translates each into its part; the engine builds the load
// balancers they ask for, follows a change of an object to the parts
// that read it, and names, ranks and places their routers.
//
// Its files, one step each:
//
//	dialect.go                what a front end gives: Dialect (Ingresses),
//	                          RouteDialect (Gateway API routes)
//	changes.go                Changes: the keys of what changed since a render
//	settingsparts.go          parts the options add that no Ingress asks for
//	                          (ingress-nginx's default backend service)
//	state.go, hostindex.go    what the last render left: parts, the entries
//	                          of the Service ports they use, who uses what
//	                          (renderState), the Ingresses by host
//	pass.go, reuse.go         one render's translation: the environment it
//	                          gives a front end, the entries it records, the
//	                          parts a full render may take again
//	assemble.go, naming.go,   parts to a configuration: names, conflicts, the
//	ties.go, outputmaps.go,   default backend, certificates, one TLS option
//	tlshosts.go, extras.go    per host, middlewares and transports; full or
//	                          patch
//	renderer.go,              the Renderer: a full render, or an incremental
//	incremental.go,           one that translates what the changes touch and
//	reroute.go, result.go     patches the previous configuration
//	equal.go, errsort.go      "did it change", and the problems in order
//	checkstate.go             the render state's invariants, for tests
package engine

import (
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

type (
	// Snapshot is the read-only view of the cluster a render reads.
	Snapshot = translate.Snapshot
	// ObjectError is a problem with one object, reported beside the
	// configuration.
	ObjectError = translate.ObjectError
)

// Dialect is a translation front end over the engine: which Ingresses a
// provider serves and what each becomes. A Dialect is a comparable value
// (a pointer, or a struct of comparable fields): a full render compares
// the one Settings returns with the last render's to know whether the
// last render's parts may be taken again.
type Dialect interface {
	// Classes reads, from the IngressClasses of snap, which Ingresses are
	// served.
	Classes(snap Snapshot) ServedSet
	// Translate builds into p (zero) the part of ing, a served Ingress;
	// pl is the client's Traefik-style plan of it, nil when there is none.
	Translate(env *translate.IngressEnv, p *translate.Part, ing *netv1.Ingress, pl *translate.Plan)
	// Hosts are the hosts of ing whose other Ingresses its part reads
	// through env.Hosts; a dialect whose parts read no other Ingress
	// returns nil for every Ingress.
	Hosts(ing *netv1.Ingress) []string
	// Defaults are the names of the default backend's router and service.
	Defaults() DefaultNames
	// Settings reads what of snap every part depends on besides the
	// classes (ingress-nginx's controller ConfigMap): the dialect a full
	// render translates with (prev, the last render's, when nothing of
	// it changed) and the problems of those objects.
	Settings(snap Snapshot, prev Dialect) (Dialect, []*ObjectError)
	// SettingsIngresses are the Ingresses the options add, which are no
	// objects of the cluster (settingsparts.go); the same pointers at
	// every call.
	SettingsIngresses() []*netv1.Ingress
}

// ServedSet says which Ingresses a provider serves.
type ServedSet interface {
	Serves(ing *netv1.Ingress) bool
}

// DefaultNames are the names of the default backend in the configuration.
type DefaultNames struct {
	Router, Service string
}

// RouteDialect is a Dialect whose parts are made of other objects than
// Ingresses (the Gateway front end's routes and Gateways). A full render
// takes its parts from RouteParts, in a new render state, and assembles
// them as it does Ingresses' parts; an incremental one follows a change
// to the routes it reaches (reroute.go). What it concludes beyond the
// configuration (its outcome) is the front end's own: the engine keeps
// the last one, hands it back to RerouteParts and puts it in
// Result.Outcome.
type RouteDialect interface {
	Dialect
	// RouteParts translates the objects of snap this dialect serves, each
	// into its part through ps (which builds their load balancers), in
	// the order of their keys, and says what it concluded of them. last
	// is the last render's outcome when its parts may be taken again
	// (Pass.Reuse), nil otherwise.
	RouteParts(ps *Pass, snap Snapshot, last any) ([]*Part, any)
	// RerouteParts translates again the routes of keys, which changed or
	// read what changed, the others staying as prev (the last outcome)
	// says, and builds again the parts of the objects that name one of
	// secrets: it returns the new parts, the keys of the parts they
	// replace and the new outcome, or false when the change reaches
	// beyond them (the engine then renders in full).
	RerouteParts(ps *Pass, snap Snapshot, prev any, keys []translate.ObjectKey,
		secrets map[translate.Key]struct{}) (news []*Part, replaced []translate.ObjectKey, out any, ok bool)
	// RoutesNaming adds to dirty the routes of prev, the last outcome,
	// that read one of services beyond its load balancers.
	RoutesNaming(prev any, services map[translate.Key]struct{}, dirty map[translate.ObjectKey]struct{})
	// Rank gives the routers of parts (all the served ones, in order)
	// their priorities, which depend on each other. The routers of the
	// parts fresh says are this render's (all of them with a nil fresh)
	// are set in place; any other router whose priority changes gets a
	// new configuration, and its part is in reranked: its routers are
	// placed again.
	Rank(parts []*Part, fresh func(*Part) bool) (reranked []*Part, err error)
}
