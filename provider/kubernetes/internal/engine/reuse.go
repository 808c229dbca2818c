package engine

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// A full render after the first takes the last render's part of an
// Ingress again, instead of translating it, when nothing the part was
// built from has changed: the same Ingress object (informers replace an
// object on every update), the same settings (dialect), the same lists of
// Ingresses on its hosts, the same Services and Secrets it read from the
// snapshot, and, for each Service port it used, a load balancer built from
// the same Service whose changes the part can follow in place (what an
// incremental refresh does: Part.ReplaceService). A full render of a
// cluster that did not change, or whose changes reach a few Ingresses,
// then costs the load balancers, these checks and the assembly, not a
// translation of every Ingress; the configuration is the one a fresh
// translation makes (TestIncrementalMatchesFull renders in full at some
// of its steps to hold it). A RouteDialect does the same for its routes
// through Pass.Reuse, having checked what it reads besides the snapshot.

// objectRead is a Service or Secret that translating a part read from
// the snapshot, as it read it (nil when there was none).
type objectRead struct {
	key     translate.Key
	service *corev1.Service // a Service read; nil with secret set
	secret  *corev1.Secret
	isSvc   bool
}

// readRecorder is the snapshot translation reads through: the pass's,
// noting in the part being translated each Service and Secret it looks
// up, which a later full render checks before it takes the part again.
type readRecorder struct {
	translate.Snapshot
	ps *Pass
}

func (s readRecorder) Service(namespace, name string) *corev1.Service {
	svc := s.Snapshot.Service(namespace, name)
	if p := s.ps.cur; p != nil {
		p.read = append(p.read, objectRead{key: translate.Key{Namespace: namespace, Name: name}, service: svc, isSvc: true})
	}
	return svc
}

func (s readRecorder) Secret(namespace, name string) *corev1.Secret {
	sec := s.Snapshot.Secret(namespace, name)
	if p := s.ps.cur; p != nil {
		p.read = append(p.read, objectRead{key: translate.Key{Namespace: namespace, Name: name}, secret: sec})
	}
	return sec
}

// reuse returns the part of ing in prev, the last render's state, fitted
// to this pass's load balancers, when nothing it was built from has
// changed (see above); nil when ing must be translated. The caller has
// checked that the settings are the last render's, and has put every
// served Ingress in the host index; hosts are dialect.Hosts(ing).
func (ps *Pass) reuse(prev *renderState, ing *netv1.Ingress, hosts []string) *Part {
	p := prev.parts[translate.IngressKey(ing.Namespace, ing.Name)]
	if p == nil || p.Ingress != ing || p.Panicked() || !sameStrings(p.hosts, hosts) || !prev.hosts.samePeers(ps.r.st.hosts, hosts) {
		return nil
	}
	if !ps.fit(p) {
		return nil
	}
	return p
}

// Reuse is the last render's part of key (a route's, a Gateway's), taken
// again by a full render and fitted to this pass's load balancers; nil
// when there is none, when the render may take none (the first one, or
// other settings), or when the Services, Secrets or load balancers it
// read changed in a way it cannot follow. The caller has checked the
// rest of what the part was built from: the object and what the front
// end read besides the snapshot.
func (ps *Pass) Reuse(key translate.ObjectKey) *Part {
	if ps.prev == nil {
		return nil
	}
	p := ps.prev.parts[key]
	if p == nil || p.Panicked() || !ps.fit(p) {
		return nil
	}
	ps.reused++
	ps.r.stats.Reused++
	p.takenBy = ps
	return p
}

// Took says whether this pass took p again (Reuse) rather than built it:
// p's configuration was handed out before.
func (ps *Pass) Took(p *Part) bool { return p.takenBy == ps }

// fit checks that the Services and Secrets p read from the snapshot are
// the same objects and that p can follow the load balancers of this pass
// in place, and then makes p use them; false when it cannot be taken
// again (p is then as it was).
func (ps *Pass) fit(p *Part) bool {
	for _, rd := range p.read {
		if rd.isSvc && ps.snap.Service(rd.key.Namespace, rd.key.Name) != rd.service ||
			!rd.isSvc && ps.snap.Secret(rd.key.Namespace, rd.key.Name) != rd.secret {
			return false
		}
	}
	nus := make([]*serviceEntry, len(p.entries))
	for j, en := range p.entries {
		nu := ps.entry(en.key, en.name)
		if !ps.r.followsInPlace(p, en, nu) {
			return false
		}
		nus[j] = nu
	}
	for j, en := range p.entries {
		if nu := nus[j]; nu.lb.Service != en.lb.Service {
			p.ReplaceService(en.lb.Service, nu.lb.Service)
		}
		p.entries[j] = nus[j]
	}
	return true
}

// followsInPlace says whether the part p, which used the entry old, may
// use nu, the entry of the same Service port built since, without being
// translated again: nu was built from the same Service object, and either
// its load balancer is old's (newEntry keeps the pointer of an equal one)
// with the same problem, or both are usable load balancers of the same
// kind, which p follows by Part.ReplaceService, as a refresh does.
func (r *Renderer) followsInPlace(p *Part, old, nu *serviceEntry) bool {
	if serviceOf(old.objs) != serviceOf(nu.objs) || old.lb.Nodes != nu.lb.Nodes {
		return false
	}
	if old.lb.Service == nu.lb.Service && reflect.DeepEqual(old.lb.Err, nu.lb.Err) {
		return true
	}
	return len(p.Passthroughs) == 0 && r.usable(old) && r.usable(nu)
}

// usable says whether an entry's load balancer can take traffic: built,
// and with servers unless allowEmptyServices is on. What a part built on
// a usable one reads of it is its service alone.
func (r *Renderer) usable(en *serviceEntry) bool {
	return en.lb.Err == nil && (r.opts.AllowEmptyServices || !en.lb.NoServers())
}

// serviceOf is the Service of objs, nil when there is none.
func serviceOf(objs *translate.ServiceObjects) *corev1.Service {
	if objs == nil {
		return nil
	}
	return objs.Service
}
