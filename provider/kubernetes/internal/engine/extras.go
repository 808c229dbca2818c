package engine

import (
	"maps"
	"reflect"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// extraRefs counts the middlewares and servers transports the parts
// define, by name. A dialect names them after their Ingress, so two parts
// define one name only when they are the same Ingress's old and new part
// in a patch (the old one is removed first).
type extraRefs struct {
	middlewares map[string]*extraRef[dynamic.Middleware]
	transports  map[string]*extraRef[dynamic.ServersTransport]
	changed     bool // since the maps were last made
	// TLS options go to the TLS section, made apart from the HTTP one.
	tlsOptions map[string]*extraRef[dynamic.TLSOptions]
	tlsChanged bool // since the options were last made
	// Passthroughs make the TCP section, also apart.
	passthroughs map[string]*extraRef[translate.Passthrough]
	tcpChanged   bool // since the section was last made
}

type extraRef[T any] struct {
	count int
	value *T
}

// hasExtras says whether the part adds anything besides routers, load
// balancers and certificates.
func (p *Part) hasExtras() bool {
	return len(p.Services) > 0 || len(p.Middlewares) > 0 || len(p.Transports) > 0 || len(p.TLSOptions) > 0 || len(p.Passthroughs) > 0
}

// addExtras places what p adds besides routers: its services through the
// routers' reference counts (a service of its name already placed with
// another value is a conflict that a patch cannot settle: false), its
// middlewares and transports here.
func (a *assembly) addExtras(out outputMaps, p *Part) bool {
	for _, ns := range p.Services {
		ref, found := a.svcRefs[ns.Name]
		if found && ref.service != ns.Service {
			if !a.settle(out) {
				return false
			}
		}
		ref.service = ns.Service
		ref.count++
		a.svcRefs[ns.Name] = ref
		out.setService(ns.Name, ns.Service)
	}
	for _, m := range p.Middlewares {
		addRef(&a.extras.middlewares, m.Name, m.Middleware)
		a.extras.changed = true
	}
	for _, t := range p.Transports {
		addRef(&a.extras.transports, t.Name, t.Transport)
		a.extras.changed = true
	}
	for _, o := range p.TLSOptions {
		addRef(&a.extras.tlsOptions, o.Name, o.Options)
		a.extras.tlsChanged = true
	}
	for i := range p.Passthroughs {
		addRef(&a.extras.passthroughs, p.Passthroughs[i].Name, &p.Passthroughs[i])
		a.extras.tcpChanged = true
	}
	return true
}

// removeExtras takes out what addExtras placed for p.
func (a *assembly) removeExtras(out outputMaps, p *Part) {
	for _, ns := range p.Services {
		if ref, found := a.svcRefs[ns.Name]; found {
			if ref.count--; ref.count <= 0 {
				delete(a.svcRefs, ns.Name)
				out.setService(ns.Name, nil)
			} else {
				a.svcRefs[ns.Name] = ref
			}
		}
	}
	for _, m := range p.Middlewares {
		removeRef(a.extras.middlewares, m.Name)
		a.extras.changed = true
	}
	for _, t := range p.Transports {
		removeRef(a.extras.transports, t.Name)
		a.extras.changed = true
	}
	for _, o := range p.TLSOptions {
		removeRef(a.extras.tlsOptions, o.Name)
		a.extras.tlsChanged = true
	}
	for _, pt := range p.Passthroughs {
		removeRef(a.extras.passthroughs, pt.Name)
		a.extras.tcpChanged = true
	}
}

func addRef[T any](m *map[string]*extraRef[T], name string, v *T) {
	if *m == nil {
		*m = map[string]*extraRef[T]{}
	}
	ref := (*m)[name]
	if ref == nil {
		ref = &extraRef[T]{}
		(*m)[name] = ref
	}
	ref.value = v // the newest part's: a patch adds after it removes
	ref.count++
}

func removeRef[T any](m map[string]*extraRef[T], name string) {
	if ref := m[name]; ref != nil {
		if ref.count--; ref.count <= 0 {
			delete(m, name)
		}
	}
}

// middlewareMap is the configuration's middlewares: prev itself when
// nothing changed since it was made, else a new map (never nil, as the
// configuration always had one).
func (x *extraRefs) middlewareMap(prev map[string]*dynamic.Middleware) map[string]*dynamic.Middleware {
	if prev != nil && !x.changed {
		return prev
	}
	out := make(map[string]*dynamic.Middleware, len(x.middlewares))
	for name, ref := range x.middlewares {
		out[name] = ref.value
	}
	return out
}

// transportMap is the configuration's servers transports, nil when there
// are none; prev itself when nothing changed. It clears changed: it is
// made after middlewareMap.
func (x *extraRefs) transportMap(prev map[string]*dynamic.ServersTransport) map[string]*dynamic.ServersTransport {
	if !x.changed {
		return prev
	}
	x.changed = false
	if len(x.transports) == 0 {
		return nil
	}
	out := make(map[string]*dynamic.ServersTransport, len(x.transports))
	for name, ref := range x.transports {
		out[name] = ref.value
	}
	return out
}

// tlsOptionMap is the configuration's TLS options, nil when there are
// none. It clears tlsChanged.
func (x *extraRefs) tlsOptionMap() map[string]*dynamic.TLSOptions {
	x.tlsChanged = false
	if len(x.tlsOptions) == 0 {
		return nil
	}
	out := make(map[string]*dynamic.TLSOptions, len(x.tlsOptions))
	for name, ref := range x.tlsOptions {
		out[name] = ref.value
	}
	return out
}

// tcpSection is the configuration's TCP section: prev itself when no
// passthrough changed since it was made, nil when there is none. It
// clears tcpChanged.
func (x *extraRefs) tcpSection(prev *dynamic.TCPConfiguration) *dynamic.TCPConfiguration {
	if !x.tcpChanged {
		return prev
	}
	x.tcpChanged = false
	if len(x.passthroughs) == 0 {
		return nil
	}
	out := &dynamic.TCPConfiguration{Routers: make(map[string]*dynamic.TCPRouter, len(x.passthroughs)),
		Services: make(map[string]*dynamic.TCPService, len(x.passthroughs))}
	for name, ref := range x.passthroughs {
		out.Routers[name], out.Services[name] = ref.value.Router, ref.value.Service
	}
	if prev != nil && reflect.DeepEqual(prev, out) {
		return prev
	}
	return out
}

// sameMapValues says whether two maps hold the same pointers under the
// same names.
func sameMapValues[T any](a, b map[string]*T) bool {
	return len(a) == len(b) && maps.EqualFunc(a, b, func(x, y *T) bool { return x == y })
}

// adoptUnchanged gives the services, middlewares and transports of news
// that equal the previous configuration's of the same name the previous
// pointers, so that a part translated again without a change of what it
// adds changes nothing the proxy reads (the load balancers keep theirs
// through the stale entries; a dialect's own services are built anew).
func adoptUnchanged(prev *dynamic.HTTPConfiguration, news []*Part) {
	for _, p := range news {
		for i := range p.Services {
			ns := &p.Services[i]
			old := prev.Services[ns.Name]
			if old == nil || old == ns.Service || !reflect.DeepEqual(old, ns.Service) {
				continue
			}
			for j := range p.Routers {
				if pr := &p.Routers[j]; pr.Service == ns.Service {
					pr.Service = old
				}
			}
			ns.Service = old
		}
		for i := range p.Middlewares {
			m := &p.Middlewares[i]
			if old := prev.Middlewares[m.Name]; old != nil && old != m.Middleware && reflect.DeepEqual(old, m.Middleware) {
				m.Middleware = old
			}
		}
		for i := range p.Transports {
			t := &p.Transports[i]
			if old := prev.ServersTransports[t.Name]; old != nil && old != t.Transport && reflect.DeepEqual(old, t.Transport) {
				t.Transport = old
			}
		}
	}
}
