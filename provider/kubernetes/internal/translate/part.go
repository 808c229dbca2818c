package translate

import (
	"cmp"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"time"

	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
)

// Names Traefik gives the default backend.
const (
	DefaultRouterName  = "default-router"
	DefaultBackendName = "default-backend"
)

// Part is what one served object contributes (an Ingress, or a Gateway
// API route): its routers, its default-backend candidate, its
// certificates and its problems, and the Secrets it depends on. The Service ports it depends on are those it
// asked IngressEnv.LoadBalancer for; the caller keeps track of them.
type Part struct {
	Key         Key
	Kind        string // of the object: KindIngress, or a Gateway API route's kind
	createdSec  int64  // the creation time, for the order of parts
	createdNsec int32
	Ingress     *netv1.Ingress // nil for another kind of object
	Routers     []Router       // never appended to once translated: the assembly points into it
	Errs        []*ObjectError
	Default     *DefaultCandidate
	Certs       []CertUse
	Secrets     []Key
	// What a dialect adds besides routers, load balancers and certificates
	// (the Traefik-style translation adds none): middlewares, servers
	// transports and services of its own. Their names are the part's: the
	// dialect makes them unique to the Ingress.
	Services    []NamedService
	Middlewares []NamedMiddleware
	Transports  []NamedTransport
	// TLSOptions go to the configuration's tls.options; routers of the
	// part name them in tls.options. Parts that name one option define
	// it alike (the dialect derives it from what all of them read).
	TLSOptions []NamedTLSOption
	// Passthroughs go to the configuration's tcp section: routers that
	// hand TLS connections for a host to servers without ending their TLS
	// (ingress-nginx's ssl-passthrough), each with its service.
	Passthroughs []Passthrough
	// Most Ingresses have one path: room for its router in the part,
	// which a full render makes for every Ingress.
	routerBuf [1]Router
}

// CompareParts orders Ingresses oldest first, so that a newer Ingress
// cannot take the default backend or a router name of an older one; names
// break ties so the order is total.
func CompareParts(a, b *Part) int {
	if c := cmp.Or(cmp.Compare(a.createdSec, b.createdSec), cmp.Compare(a.createdNsec, b.createdNsec)); c != 0 {
		return c
	}
	return cmp.Or(CompareKeys(a.Key, b.Key), cmp.Compare(a.Kind, b.Kind))
}

// Router is the router of one path of a part, before the assembly names
// it.
type Router struct {
	Config  *dynamic.Router
	Service *dynamic.Service // added with the router, so no service is left without one
	Key     string           // the router key, before conflicts are resolved
	Part    *Part            // the Ingress it comes from
	Path    PathRef          // the Ingress path it comes from, for errors
	// Order is where a Gateway API route's router stands among the
	// routers of its entry point, from which its priority is settled
	// over all of them; nil for an Ingress's router.
	Order *match.Order
	index int // its place among the part's routers
}

// CompareRouters orders the routers of one key: the older Ingress first,
// then the Ingress's own order of paths.
func CompareRouters(a, b *Router) int {
	return cmp.Or(CompareParts(a.Part, b.Part), cmp.Compare(a.index, b.index))
}

// DefaultCandidate is a part's spec.defaultBackend. Whether it is used
// depends on the other Ingresses (the oldest usable one wins).
type DefaultCandidate struct {
	Router *dynamic.Router // nil when the backend cannot be used
	// Service is the default backend's service; nil when Router sends to
	// a service of the part (derived by annotations).
	Service *dynamic.Service
	Errs    []*ObjectError // why it cannot, reported unless an older Ingress has the default backend
}

// CertUse is a certificate of a part, under the key the configuration
// knows it by.
type CertUse struct {
	Key  string // namespace-secretName
	Cert *dynamic.CertAndStores
}

// NamedService is a service a part adds under its own name: a weighted
// service (a canary's), or a service derived from a Service port's load
// balancer (another servers transport, a sticky cookie). A derived one
// follows its base: when the base is rebuilt in place, Derive makes it
// again from the new base. Routers that send to a derived service point
// at Service.
type NamedService struct {
	Name    string
	Service *dynamic.Service
	Base    *dynamic.Service                             // the load balancer it derives from; nil: none
	Derive  func(base *dynamic.Service) *dynamic.Service // never modifies base
}

// NamedMiddleware is a middleware a part defines.
type NamedMiddleware struct {
	Name       string
	Middleware *dynamic.Middleware
}

// Passthrough is a TCP router a part defines, and its service, both
// under Name.
type Passthrough struct {
	Name    string
	Router  *dynamic.TCPRouter
	Service *dynamic.TCPService
}

// NamedTransport is a servers transport a part defines.
type NamedTransport struct {
	Name      string
	Transport *dynamic.ServersTransport
}

// NamedTLSOption is a TLS option a part defines.
type NamedTLSOption struct {
	Name    string
	Options *dynamic.TLSOptions
}

// ServiceSwap is a service of the configuration replaced by another.
type ServiceSwap struct {
	Name     string
	Old, New *dynamic.Service
}

// ReplaceService points the routers and the default backend of p that
// send to old at nu instead: a load balancer rebuilt in place, which
// changes nothing else of the part. The services p derived from old are
// derived again from nu; swaps says which.
func (p *Part) ReplaceService(old, nu *dynamic.Service) (swaps []ServiceSwap) {
	for i := range p.Services {
		ns := &p.Services[i]
		if ns.Base != old || ns.Derive == nil {
			continue
		}
		ns.Base = nu
		d := ns.Derive(nu)
		if reflect.DeepEqual(d, ns.Service) {
			continue // what it takes of the base did not change: the same pointer
		}
		swaps = append(swaps, ServiceSwap{Name: ns.Name, Old: ns.Service, New: d})
		for j := range p.Routers {
			if pr := &p.Routers[j]; pr.Service == ns.Service {
				pr.Service = d
			}
		}
		ns.Service = d
	}
	for i := range p.Routers {
		if pr := &p.Routers[i]; pr.Service == old {
			pr.Service = nu
		}
	}
	if c := p.Default; c != nil && c.Service == old {
		c.Service = nu
	}
	return swaps
}

// Begin makes p the part of ing, with nothing in it yet: what a dialect's
// translation starts from.
func (p *Part) Begin(ing *netv1.Ingress) {
	p.BeginObject(KindIngress, ing)
	p.Ingress = ing
}

// BeginObject makes p the part of obj, an object of kind (a Gateway API
// route for the Gateway front end), with nothing in it yet. Ingress stays
// nil: only Begin sets it.
func (p *Part) BeginObject(kind string, obj metav1.Object) {
	p.Kind, p.Key = kind, Key{obj.GetNamespace(), obj.GetName()}
	created := obj.GetCreationTimestamp()
	p.createdSec, p.createdNsec = created.Unix(), int32(created.Nanosecond())
}

// Created is when the part's object was made.
func (p *Part) Created() time.Time { return time.Unix(p.createdSec, int64(p.createdNsec)) }

// ObjectKey is the key of the part's object.
func (p *Part) ObjectKey() ObjectKey { return ObjectKey{Kind: p.Kind, Key: p.Key} }

// KindIngress is the Kind of the parts of Ingresses.
const KindIngress = "Ingress"

// ObjectError is a problem of the field of the part's object.
func (p *Part) ObjectError(field string, severity Severity, err error) *ObjectError {
	return &ObjectError{Kind: p.Kind, Namespace: p.Key.Namespace, Name: p.Key.Name, Field: field, Severity: severity, Err: err}
}

// AddRouter adds a router of the path ref to p, with the router key key
// (before conflicts are settled), sending to svc.
func (p *Part) AddRouter(key string, ref PathRef, rt *dynamic.Router, svc *dynamic.Service) {
	p.Routers = append(p.Routers, Router{Config: rt, Service: svc, Key: key, Part: p, Path: ref, index: len(p.Routers)})
}

// Problem files a problem of the Ingress's field.
func (p *Part) Problem(field string, severity Severity, err error) {
	p.Errs = append(p.Errs, p.ObjectError(field, severity, err))
}

// NewPathRef names the path j of the rule i of an Ingress; i < 0 is
// spec.defaultBackend.
func NewPathRef(i, j int) PathRef { return PathRef{rule: int32(i), path: int32(j)} }

// NewMatchRef names the match j of the rule i of a Gateway API route; a
// rule without matches has its one implicit match, j = 0.
func NewMatchRef(i, j int) PathRef { return PathRef{rule: int32(i), path: int32(j), match: true} }

// IsDefaultBackend says whether p is spec.defaultBackend.
func (p PathRef) IsDefaultBackend() bool { return p.rule < 0 }

// IngressEnv is what translating one Ingress reads besides the Ingress:
// the snapshot, the options of its plan, allowEmptyServices, the memos
// of annotations and certificates, and LoadBalancer, which gives the load
// balancer of a Service port (built on first use by the one builder,
// LBEnv.Build), named name in the configuration. The caller learns from
// LoadBalancer which Service ports the Ingress uses.
type IngressEnv struct {
	Snapshot Snapshot
	// Hosts gives the served Ingresses that have a rule for a host, the
	// oldest first, for a dialect whose parts read the other Ingresses of
	// their hosts (nil for one that does not).
	Hosts              func(host string) []*netv1.Ingress
	PlanOptions        PlanOptions
	AllowEmptyServices bool
	Memos              *Memos
	LoadBalancer       func(key PortKey, name string) *LoadBalancer
}

// Translate builds into p the part of one served Ingress, from pl, the
// plan of ing the client's index made (nil: none), which it takes when
// made with these options. The part depends on the Ingress, the Services
// and EndpointSlices it names (through LoadBalancer) and its Secrets,
// and on nothing another Ingress says: conflicts between Ingresses are
// settled when the parts are assembled. p is the caller's, so that what
// the caller keeps of a part can live with it; it must be zero.
//
// A panic while translating (a bug, as a malformed annotation once caused
// in the parser) skips this Ingress with a *TranslationPanic error instead
// of stopping the render: the other Ingresses are served. The part keeps
// the Secrets it had looked up, and the caller the Service ports, so that
// a change of those translates it again.
func (t *IngressEnv) Translate(p *Part, ing *netv1.Ingress, pl *Plan) {
	p.Begin(ing)
	defer RecoverPart(p)
	if pl == nil || pl.opts != t.PlanOptions {
		pl = PlanIngress(ing, t.PlanOptions, t.Memos)
	}
	t.complete(p, pl)
}

// RecoverPart, deferred by a translation of p, turns a panic into the
// Ingress's error, with nothing else of the part kept but the Secrets it
// looked up.
func RecoverPart(p *Part) {
	if v := recover(); v != nil {
		p.Routers, p.Default, p.Certs, p.Services, p.Middlewares, p.Transports, p.TLSOptions = nil, nil, nil, nil, nil, nil, nil
		p.Passthroughs = nil
		p.Errs = []*ObjectError{p.ObjectError("", SeverityError, &TranslationPanic{Value: v, Stack: debug.Stack()})}
	}
}

// Panicked says whether the translation of p panicked (RecoverPart):
// what it read before is not known in full, so it is never taken again as
// it is.
func (p *Part) Panicked() bool {
	if len(p.Errs) != 1 {
		return false
	}
	_, ok := p.Errs[0].Err.(*TranslationPanic)
	return ok
}

// complete gives the part of the Ingress planned as pl its load
// balancers and certificates.
func (t *IngressEnv) complete(p *Part, pl *Plan) {
	p.Errs = slices.Clip(pl.errs) // shared with the plan: an append copies
	if pl.skipped {
		return
	}
	t.ingressCerts(p)
	if pd := pl.defaultBackend; pd != nil {
		c := &DefaultCandidate{Errs: pd.errs}
		if pd.path.router != nil {
			if svc, problem := t.backend(p, &pd.path); problem != nil {
				c.Errs = []*ObjectError{problem}
			} else {
				c.Router, c.Service = pd.path.router, svc
			}
		}
		p.Default = c
	}
	for i := range pl.paths {
		pp := &pl.paths[i]
		svc, problem := t.backend(p, pp)
		if problem != nil {
			p.Errs = append(p.Errs, problem)
			continue
		}
		if p.Routers == nil && len(pl.paths) > 1 {
			p.Routers = make([]Router, 0, len(pl.paths))
		} else if p.Routers == nil {
			p.Routers = p.routerBuf[:0]
		}
		p.Routers = append(p.Routers, Router{Config: pp.router, Service: svc, Key: pp.key, Part: p, Path: pp.ref, index: len(p.Routers)})
	}
}

// backend resolves a planned backend to its load balancer's service, or
// returns why it cannot be used, as a problem of the Ingress.
func (t *IngressEnv) backend(p *Part, pp *plannedPath) (*dynamic.Service, *ObjectError) {
	lb := t.LoadBalancer(pp.backend, pp.service)
	fail := func(err error) *ObjectError {
		return p.ObjectError(pp.ref.backend()+".service", SeverityError, err)
	}
	if lb.Err != nil {
		return nil, fail(lb.Err)
	}
	if lb.NoServers() && !t.AllowEmptyServices {
		return nil, fail(fmt.Errorf("service %s/%s port %s has no servers (the path is skipped; allowEmptyServices keeps it)", p.Ingress.Namespace, pp.backend.Service.Name, pp.backend.Text()))
	}
	return lb.Service, nil
}

// IngressCerts loads the certificates of the Ingress's spec.tls entries.
func (t *IngressEnv) IngressCerts(p *Part) { t.ingressCerts(p) }

// ingressCerts loads the certificates of the Ingress's spec.tls entries.
func (t *IngressEnv) ingressCerts(p *Part) {
	ing := p.Ingress
	for i, entry := range ing.Spec.TLS {
		if entry.SecretName == "" {
			continue
		}
		t.Certificate(p, ing.Namespace, entry.SecretName, func() string { return fmt.Sprintf("spec.tls[%d].secretName", i) })
	}
}

// Certificate adds to p the certificate of the Secret namespace/name,
// which field (written only for a problem) of p's object names, once
// however many fields name it; p depends on the Secret from then on. A
// Secret that is missing, incomplete or holds no usable key pair is a
// problem of the field, and the routes are kept without its certificate.
func (t *IngressEnv) Certificate(p *Part, namespace, name string, field func() string) {
	id := Key{namespace, name}
	if !slices.Contains(p.Secrets, id) {
		p.Secrets = append(p.Secrets, id)
	}
	key := namespace + "-" + name
	if slices.ContainsFunc(p.Certs, func(c CertUse) bool { return c.Key == key }) {
		return
	}
	secret := t.Snapshot.Secret(namespace, name)
	if secret == nil {
		p.errorf(field(), fmt.Errorf("secret %s/%s not found (the routes are kept without this certificate)", namespace, excerpt.Text(name)))
		return
	}
	if err := CheckSecretData(secret); err != nil {
		p.errorf(field(), fmt.Errorf("%w (the certificate is pending: the routes are kept without it until then)", err))
		return
	}
	cert, err := t.Memos.certs.check(id, secret)
	if err != nil {
		p.errorf(field(), fmt.Errorf("secret %s/%s: %w (the routes are kept without this certificate)", namespace, name, err))
		return
	}
	p.Certs = append(p.Certs, CertUse{Key: key, Cert: cert})
}

func (p *Part) errorf(field string, err error) {
	p.Errs = append(p.Errs, p.ObjectError(field, SeverityError, err))
}
