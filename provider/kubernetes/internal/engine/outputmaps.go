package engine

import (
	"maps"

	"github.com/sliceway/sliceway/config/dynamic"
)

// outputMaps is the router and service maps an assembly writes: new maps
// for a full assembly (fullOutput), changes over the previous
// configuration's for a patch (patchOutput). settlesOrder says whether
// the assembly settles an outcome that depends on the order names are
// given in (a full one, in the order of the router keys), or must give
// up for a full assembly to settle it (a patch).
type outputMaps interface {
	router(name string) *dynamic.Router
	service(name string) *dynamic.Service
	setRouter(name string, rt *dynamic.Router) // nil deletes
	setService(name string, svc *dynamic.Service)
	settlesOrder() bool
	// previous is the router of that name in the configuration patched,
	// nil in a full assembly.
	previous(name string) *dynamic.Router
}

// fullOutput writes new maps.
type fullOutput struct {
	routers  map[string]*dynamic.Router
	services map[string]*dynamic.Service
}

func newFullOutput(routers, services int) *fullOutput {
	return &fullOutput{routers: make(map[string]*dynamic.Router, routers), services: make(map[string]*dynamic.Service, services)}
}

func (o *fullOutput) router(name string) *dynamic.Router   { return o.routers[name] }
func (o *fullOutput) service(name string) *dynamic.Service { return o.services[name] }
func (o *fullOutput) settlesOrder() bool                   { return true }
func (o *fullOutput) previous(string) *dynamic.Router      { return nil }

func (o *fullOutput) setRouter(name string, rt *dynamic.Router) {
	if rt == nil {
		delete(o.routers, name)
	} else {
		o.routers[name] = rt
	}
}

func (o *fullOutput) setService(name string, svc *dynamic.Service) {
	if svc == nil {
		delete(o.services, name)
	} else {
		o.services[name] = svc
	}
}

// patchOutput reads the previous configuration's maps (never modified:
// they were handed out) and keeps its changes aside, so that the maps are
// copied once, and only when something the proxy reads changed.
type patchOutput struct {
	routers     map[string]*dynamic.Router
	services    map[string]*dynamic.Service
	newRouters  map[string]*dynamic.Router // the changes; nil values delete
	newServices map[string]*dynamic.Service
}

func newPatchOutput(prev *dynamic.HTTPConfiguration) *patchOutput {
	return &patchOutput{routers: prev.Routers, services: prev.Services,
		newRouters: map[string]*dynamic.Router{}, newServices: map[string]*dynamic.Service{}}
}

func (o *patchOutput) router(name string) *dynamic.Router {
	if rt, ok := o.newRouters[name]; ok {
		return rt
	}
	return o.routers[name]
}

func (o *patchOutput) service(name string) *dynamic.Service {
	if svc, ok := o.newServices[name]; ok {
		return svc
	}
	return o.services[name]
}

func (o *patchOutput) setRouter(name string, rt *dynamic.Router)    { o.newRouters[name] = rt }
func (o *patchOutput) setService(name string, svc *dynamic.Service) { o.newServices[name] = svc }
func (o *patchOutput) settlesOrder() bool                           { return false }
func (o *patchOutput) previous(name string) *dynamic.Router         { return o.routers[name] }

// changed says whether the changes differ from the previous maps.
func (o *patchOutput) changed() bool {
	return differs(o.routers, o.newRouters) || differs(o.services, o.newServices)
}

// apply returns the maps with the changes made: copies of the previous
// ones where something changed, the previous ones themselves (shared,
// never modified) where nothing did.
func (o *patchOutput) apply() (map[string]*dynamic.Router, map[string]*dynamic.Service) {
	routers, services := o.routers, o.services
	if differs(o.routers, o.newRouters) {
		routers = patched(o.routers, o.newRouters)
	}
	if differs(o.services, o.newServices) {
		services = patched(o.services, o.newServices)
	}
	return routers, services
}

// differs says whether any change differs from base.
func differs[V any](base, changes map[string]*V) bool {
	for name, v := range changes {
		if base[name] != v {
			return true
		}
	}
	return false
}

// patched copies m with the changes made (a nil value deletes).
func patched[V any](m, changes map[string]*V) map[string]*V {
	out := maps.Clone(m)
	for k, v := range changes {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}
