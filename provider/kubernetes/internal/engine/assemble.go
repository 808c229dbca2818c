package engine

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// assembly turns the parts of a render state into a configuration: it
// names the routers (conflicts between keys, repeated rules, ties between
// routers Traefik could not tell apart), gives the default backend to the
// oldest Ingress that has a usable one, and gathers the certificates. It
// keeps what the last assembly did, so that a patch can undo and redo the
// names of the parts that changed. It has two entry points: full, which
// builds the configuration from every part, and patch, which changes the
// previous configuration for the parts that changed and gives up (false)
// where the outcome would depend on the order names are given in.
type assembly struct {
	groups   map[string]*routerGroup // by router key
	svcRefs  map[string]svcRef       // by service name
	certRefs map[string]*certRef     // by certificate key
	// Routers of different keys with one rule: Traefik would pick one of
	// them at random when their priorities and entry points are the same.
	// rulePlaced counts the routers in the configuration by rule; tied are
	// the rules that more than one router had at the last full assembly
	// (which settled them: the oldest path keeps its router). A change
	// that touches a tied rule, or gives a router a rule another router
	// has, is assembled in full.
	rulePlaced map[string]int32
	tied       map[string]struct{}
	// irregular: the last full assembly met names whose outcome depends on
	// order; assemble in full until it does not.
	irregular bool

	dbErrs    []*ObjectError                  // about default backends
	asmErrs   []*ObjectError                  // names taken across groups
	tieErrs   []*ObjectError                  // routers left out of ties
	errGroups map[*routerGroup][]*ObjectError // paths that repeat an older one's rule in their group
	dirty     bool                            // the problems may differ from those last collected

	// The TLS option of each host (tlshosts.go), the Ingress that chose
	// it (a new map when one changes: it is handed out with the
	// configuration), and the TLS routers left out for naming another.
	tlsHosts   map[string]*hostTLS
	tlsOwners  map[string]dynamic.HostOwner
	tlsSkipped map[*translate.Router]struct{}
	tlsErrs    []*ObjectError

	names  DefaultNames // of the default backend, the dialect's
	extras extraRefs    // the parts' middlewares and servers transports
}

type routerGroup struct {
	key     string
	members []*translate.Router
	placed  []placement // the router names given to the members
	// Most keys have one router: room for it in the group, which a full
	// assembly makes for every key.
	memberBuf [1]*translate.Router
	placedBuf [1]placement
}

// placement is a router name given to a member of a group.
type placement struct {
	name string
	pr   *translate.Router
}

// svcRef counts the routers that send to a service name.
type svcRef struct {
	count   int
	service *dynamic.Service
}

type certRef struct {
	count int
	cert  *dynamic.CertAndStores
}

// full builds the configuration from every part of st, which byKey holds
// in the order of the Ingresses' keys (namespace, then name): the router
// groups are named in the order their first path comes in, so that the
// outcome of names that cross from one group to another does not depend
// on the order of the informers' lists.
func (a *assembly) full(st *renderState, byKey []*Part) *dynamic.Configuration {
	// The maps are made at their sizes: a full render fills them at once.
	routers, services, middlewares := 0, 0, 0
	for _, p := range st.served {
		routers += len(p.Routers)
		services += len(p.Services)
		middlewares += len(p.Middlewares)
	}
	*a = assembly{
		names:  a.names,
		groups: make(map[string]*routerGroup, routers), svcRefs: make(map[string]svcRef, routers+services),
		certRefs: map[string]*certRef{}, rulePlaced: make(map[string]int32, routers),
		errGroups: map[*routerGroup][]*ObjectError{}, dirty: true,
	}
	if middlewares > 0 {
		a.extras.middlewares = make(map[string]*extraRef[dynamic.Middleware], middlewares)
	}
	out := newFullOutput(routers, routers+services)
	a.checkTLSHosts(st.served)
	var order []*routerGroup // first met, in key order of the Ingresses
	for _, p := range byKey {
		for i := range p.Routers {
			pr := &p.Routers[i]
			if _, skip := a.tlsSkipped[pr]; skip {
				continue
			}
			g := a.group(pr.Key)
			if len(g.members) == 0 {
				order = append(order, g)
			}
			g.members = append(g.members, pr)
		}
	}
	a.assignDefault(out, st)
	for _, g := range order {
		a.resolve(out, g)
	}
	// Routers that have the same rule: who keeps it is settled over all
	// of them.
	for rule, n := range a.rulePlaced {
		if n > 1 {
			if a.tied == nil {
				a.tied = map[string]struct{}{}
			}
			a.tied[rule] = struct{}{}
		}
	}
	if len(a.tied) > 0 {
		a.settleTies(out)
	}
	for _, p := range st.served {
		a.addCerts(p)
		a.addExtras(out, p)
	}
	a.extras.changed, a.extras.tcpChanged = true, true // the maps are made new
	return &dynamic.Configuration{
		HTTP: &dynamic.HTTPConfiguration{Routers: out.routers, Services: out.services,
			Middlewares: a.extras.middlewareMap(nil), ServersTransports: a.extras.transportMap(nil)},
		TCP: a.extras.tcpSection(nil),
		TLS: a.certList(),
	}
}

// patch changes prev for the parts that were translated again (olds are
// the parts news replace; st holds news already) and the load balancers
// refreshed in place (swaps), into a new configuration when anything the
// proxy reads changed, else prev itself. It says false when the outcome
// would depend on the order names are given in: the caller then
// assembles in full, which starts from nothing (the assembly is left
// half done).
func (a *assembly) patch(prev *dynamic.Configuration, st *renderState, olds, news []*Part, swaps []lbSwap) (*dynamic.Configuration, bool) {
	if a.irregular || !a.patchTLSHosts(olds, news) {
		return nil, false
	}
	adoptUnchanged(prev.HTTP, news)
	oldSet := make(map[*translate.Part]struct{}, len(olds))
	for _, p := range olds {
		oldSet[&p.Part] = struct{}{}
	}
	touched := map[string]struct{}{}
	defaults, certs, extras := false, false, false
	for _, list := range [2][]*Part{olds, news} {
		for _, p := range list {
			for i := range p.Routers {
				pr := &p.Routers[i]
				touched[pr.Key] = struct{}{}
				if _, ok := a.tied[ruleKey(pr.Config)]; ok {
					return nil, false // who keeps a tied rule is settled over all its routers
				}
			}
			defaults = defaults || p.Default != nil
			certs = certs || len(p.Certs) > 0
			extras = extras || p.hasExtras()
		}
	}
	out := newPatchOutput(prev.HTTP)
	// Load balancers refreshed in place: the routers that send to them
	// stay as they are.
	for _, sw := range swaps {
		if ref, ok := a.svcRefs[sw.name]; ok && ref.service == sw.old {
			ref.service = sw.new
			a.svcRefs[sw.name] = ref
			out.setService(sw.name, sw.new)
		}
		if out.service(a.names.Service) == sw.old {
			out.setService(a.names.Service, sw.new)
		}
	}
	keys := slices.Sorted(maps.Keys(touched))
	for _, key := range keys {
		if g := a.groups[key]; g != nil {
			a.removeNames(out, g)
			g.members = slices.DeleteFunc(g.members, func(pr *translate.Router) bool {
				_, gone := oldSet[pr.Part]
				return gone
			})
		}
	}
	// The parts' own services are placed before their routers, which
	// send to them.
	middlewares, transports := prev.HTTP.Middlewares, prev.HTTP.ServersTransports
	if extras {
		for _, p := range olds {
			a.removeExtras(out, p)
		}
		for _, p := range news {
			if !a.addExtras(out, p) {
				return nil, false
			}
		}
		middlewares, transports = a.extras.middlewareMap(middlewares), a.extras.transportMap(transports)
	}
	for _, p := range news {
		for i := range p.Routers {
			pr := &p.Routers[i]
			g := a.group(pr.Key)
			g.members = append(g.members, pr)
		}
	}
	if defaults {
		a.assignDefault(out, st)
	}
	for _, key := range keys {
		g := a.groups[key]
		if len(g.members) == 0 {
			delete(a.groups, key)
			continue
		}
		if !a.resolve(out, g) {
			return nil, false
		}
	}
	tls := prev.TLS
	if certs || a.extras.tlsChanged {
		for _, p := range olds {
			a.removeCerts(p)
		}
		for _, p := range news {
			a.addCerts(p)
		}
		if tls = a.certList(); reflect.DeepEqual(tls, prev.TLS) {
			tls = prev.TLS
		}
	}
	tcp := a.extras.tcpSection(prev.TCP)
	if tls == prev.TLS && tcp == prev.TCP && !out.changed() && sameMapValues(middlewares, prev.HTTP.Middlewares) && sameMapValues(transports, prev.HTTP.ServersTransports) {
		return prev, true // nothing the proxy reads changed
	}
	routers, services := out.apply()
	return &dynamic.Configuration{
		HTTP: &dynamic.HTTPConfiguration{Routers: routers, Services: services, Middlewares: middlewares, ServersTransports: transports},
		TCP:  tcp,
		TLS:  tls,
	}, true
}

func (a *assembly) group(key string) *routerGroup {
	g := a.groups[key]
	if g == nil {
		g = &routerGroup{key: key}
		g.members, g.placed = g.memberBuf[:0], g.placedBuf[:0]
		a.groups[key] = g
	}
	return g
}

// assignDefault gives the default backend to the oldest Ingress whose
// default backend can be used; the others are told which Ingress has it.
func (a *assembly) assignDefault(out outputMaps, st *renderState) {
	a.dirty = a.dirty || len(a.dbErrs) > 0
	a.dbErrs = nil
	var router *dynamic.Router
	var service *dynamic.Service
	var owner *Part
	for _, p := range slices.SortedFunc(maps.Keys(st.dbParts), compareParts) {
		c := p.Default
		switch {
		case p.settings && c.Router == nil:
			// What is wrong with the settings is said whoever has the
			// catch-all.
			a.dirty = true
			a.dbErrs = append(a.dbErrs, c.Errs...)
		case owner != nil && p.settings:
			// An Ingress without rules takes the settings' place, as in
			// ingress-nginx: nothing to say.
		case owner != nil:
			a.dirty = true
			a.dbErrs = append(a.dbErrs, p.ObjectError("spec.defaultBackend", translate.SeverityError,
				fmt.Errorf("the default backend is already defined by Ingress %s, which is older", owner.Key)))
		case c.Router == nil:
			a.dirty = true
			a.dbErrs = append(a.dbErrs, c.Errs...)
		default:
			owner = p
			router, service = c.Router, c.Service
		}
	}
	// The same default backend keeps its pointers.
	if old := out.router(a.names.Router); old != nil && router != nil && reflect.DeepEqual(old, router) {
		router = old
	}
	if old := out.service(a.names.Service); old != nil && service != nil && reflect.DeepEqual(old, service) {
		service = old
	}
	out.setRouter(a.names.Router, router)
	out.setService(a.names.Service, service)
}

func (a *assembly) addCerts(p *Part) {
	for _, c := range p.Certs {
		ref := a.certRefs[c.Key]
		if ref == nil {
			ref = &certRef{cert: c.Cert}
			a.certRefs[c.Key] = ref
		}
		ref.count++
	}
}

func (a *assembly) removeCerts(p *Part) {
	for _, c := range p.Certs {
		if ref := a.certRefs[c.Key]; ref != nil {
			if ref.count--; ref.count <= 0 {
				delete(a.certRefs, c.Key)
			}
		}
	}
}

// certList is the TLS section: the certificates by key, and the TLS
// options of the parts.
func (a *assembly) certList() *dynamic.TLSConfiguration {
	options := a.extras.tlsOptionMap()
	if len(a.certRefs) == 0 && options == nil {
		return nil
	}
	keys := slices.Sorted(maps.Keys(a.certRefs))
	var certs []*dynamic.CertAndStores
	if len(keys) > 0 {
		certs = make([]*dynamic.CertAndStores, len(keys))
	}
	for i, k := range keys {
		certs[i] = a.certRefs[k].cert
	}
	return &dynamic.TLSConfiguration{Certificates: certs, Options: options}
}

// errors are the problems the assembly found.
func (a *assembly) errors() []*ObjectError {
	errs := slices.Concat(a.dbErrs, a.asmErrs, a.tieErrs, a.tlsErrs)
	for _, gerrs := range a.errGroups {
		errs = append(errs, gerrs...)
	}
	return errs
}
