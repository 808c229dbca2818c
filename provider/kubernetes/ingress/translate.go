package ingress

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// Names Traefik gives the default backend.
const (
	DefaultRouterName  = "default-router"
	DefaultBackendName = "default-backend"
)

// Result is the outcome of one translation: the configuration, and the
// problems found with individual objects (their bad parts are left out).
// A Result and its configuration are shared with later renders: read them,
// never modify them.
type Result struct {
	Configuration *dynamic.Configuration
	Errors        []*ObjectError
	// Ingresses are the Ingresses this provider serves (their class is
	// ours), whether or not all their paths could be used: the status
	// writer publishes the load-balancer address on them. Oldest first.
	Ingresses []*netv1.Ingress
	// NeedsNodes says that a Service asked for node ports (service.nodeportlb),
	// or that topology hints need the zone of this proxy's Node: the Nodes
	// must be watched.
	NeedsNodes bool
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

// ingressPart is what one served Ingress contributes: its routers, its
// default-backend candidate, its certificates and its problems, and what
// it depends on (the entries of the Service ports it names, its Secrets).
type ingressPart struct {
	key            objectKey
	createdSec     int64 // the creation time, for the order of parts
	createdNsec    int32
	ing            *netv1.Ingress
	routers        []pendingRouter // never appended to once translated: the assembly points into it
	entries        []*serviceEntry
	errs           []*ObjectError
	defaultBackend *defaultCandidate
	certs          []certUse
	secrets        []objectKey
	entrySet       map[*serviceEntry]struct{} // entries, while an Ingress of many paths is translated
	// Most Ingresses have one path: room for its router and entry in the
	// part, which a full render makes for every Ingress.
	routerBuf [1]pendingRouter
	entryBuf  [1]*serviceEntry
}

// compareParts orders Ingresses oldest first, so that a newer Ingress
// cannot take the default backend or a router name of an older one; names
// break ties so the order is total.
func compareParts(a, b *ingressPart) int {
	if c := cmp.Or(cmp.Compare(a.createdSec, b.createdSec), cmp.Compare(a.createdNsec, b.createdNsec)); c != 0 {
		return c
	}
	return compareKeys(a.key, b.key)
}

// pendingRouter is the router of one path of a part, before the assembly
// names it.
type pendingRouter struct {
	router  *dynamic.Router
	service *dynamic.Service // added with the router, so no service is left without one
	key     string           // the router key, before conflicts are resolved
	part    *ingressPart     // the Ingress it comes from
	path    pathRef          // the Ingress path it comes from, for errors
	index   int              // its place among the part's routers
}

// compareRouters orders the routers of one key: the older Ingress first,
// then the Ingress's own order of paths.
func compareRouters(a, b *pendingRouter) int {
	return cmp.Or(compareParts(a.part, b.part), cmp.Compare(a.index, b.index))
}

// defaultCandidate is a part's spec.defaultBackend. Whether it is used
// depends on the other Ingresses (the oldest usable one wins).
type defaultCandidate struct {
	router  *dynamic.Router // nil when the backend cannot be used
	service *dynamic.Service
	errs    []*ObjectError // why it cannot, reported unless an older Ingress has the default backend
}

type certUse struct {
	key  string // namespace-secretName
	cert *dynamic.CertAndStores
}

// translator is what translating one Ingress reads besides the Ingress:
// the snapshot, the options of its plan, the memos of annotations and
// certificates, and entry, which gives the entry of a Service port (the
// load balancer, built on first use by the one builder, lbEnv.build),
// named name in the configuration.
type translator struct {
	snap       Snapshot
	plans      planReader // nil: every Ingress is planned here
	planOpts   planOptions
	allowEmpty bool // allowEmptyServices
	routerSets *annotationMemo[*routerAnnotations]
	certs      *certMemo
	entry      func(key portKey, name string) *serviceEntry
}

// translate builds the part of one served Ingress. It depends on the
// Ingress, the Services and EndpointSlices it names (through the
// entries) and its Secrets, and on nothing another Ingress says:
// conflicts between Ingresses are settled when the parts are assembled.
//
// A panic while translating (a bug, as a malformed annotation once caused
// in the parser) skips this Ingress with a *TranslationPanic error instead
// of stopping the render: the other Ingresses are served. The part keeps
// the Service ports and Secrets it had looked up, so that a change of
// those translates it again.
func (t *translator) translate(ing *netv1.Ingress) *ingressPart {
	return t.translatePlanned(ing, t.plan(ing))
}

// translatePlanned is translate with the plan of ing as the client made it
// (nil: none), which it takes when made with these options.
func (t *translator) translatePlanned(ing *netv1.Ingress, pl *ingressPlan) (p *ingressPart) {
	p = &ingressPart{key: objectKey{ing.Namespace, ing.Name}, ing: ing,
		createdSec: ing.CreationTimestamp.Unix(), createdNsec: int32(ing.CreationTimestamp.Nanosecond())}
	defer func() {
		if v := recover(); v != nil {
			p.routers, p.defaultBackend, p.certs = nil, nil, nil
			p.errs = []*ObjectError{{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name, Severity: SeverityError,
				Err: &TranslationPanic{Value: v, Stack: debug.Stack()}}}
		}
	}()
	if pl == nil || pl.opts != t.planOpts {
		pl = planIngress(ing, t.planOpts, t.routerSets)
	}
	t.complete(p, pl)
	return p
}

// plan is the client's plan of ing, nil when it has none.
func (t *translator) plan(ing *netv1.Ingress) *ingressPlan {
	if t.plans == nil {
		return nil
	}
	return t.plans.plan(ing)
}

// complete gives the part of the Ingress planned as pl its load
// balancers and certificates.
func (t *translator) complete(p *ingressPart, pl *ingressPlan) {
	p.errs = slices.Clip(pl.errs) // shared with the plan: an append copies
	if pl.skipped {
		return
	}
	t.ingressCerts(p)
	if len(pl.paths) > 16 {
		// An Ingress of many paths finds the entries it uses already in a
		// set, so that its translation stays linear in its paths.
		p.entrySet = make(map[*serviceEntry]struct{}, len(pl.paths))
		defer func() { p.entrySet = nil }()
	}
	if pd := pl.defaultBackend; pd != nil {
		c := &defaultCandidate{errs: pd.errs}
		if pd.path.router != nil {
			if svc, problem := t.backend(p, &pd.path); problem != nil {
				c.errs = []*ObjectError{problem}
			} else {
				c.router, c.service = pd.path.router, svc
			}
		}
		p.defaultBackend = c
	}
	for i := range pl.paths {
		pp := &pl.paths[i]
		svc, problem := t.backend(p, pp)
		if problem != nil {
			p.errs = append(p.errs, problem)
			continue
		}
		if p.routers == nil && len(pl.paths) > 1 {
			p.routers = make([]pendingRouter, 0, len(pl.paths))
		} else if p.routers == nil {
			p.routers = p.routerBuf[:0]
		}
		p.routers = append(p.routers, pendingRouter{router: pp.router, service: svc, key: pp.key, part: p, path: pp.ref, index: len(p.routers)})
	}
}

// backend resolves a planned backend to its load balancer's service
// through the entry of the Service port, or returns why it cannot be
// used, as a problem of the Ingress.
func (t *translator) backend(p *ingressPart, pp *plannedPath) (*dynamic.Service, *ObjectError) {
	en := t.entry(pp.backend, pp.service)
	p.use(en)
	fail := func(err error) *ObjectError {
		return &ObjectError{Kind: "Ingress", Namespace: p.ing.Namespace, Name: p.ing.Name, Field: pp.ref.backend() + ".service", Severity: SeverityError, Err: err}
	}
	if en.lb.err != nil {
		return nil, fail(en.lb.err)
	}
	if en.lb.noServers() && !t.allowEmpty {
		return nil, fail(fmt.Errorf("service %s/%s port %s has no servers (the path is skipped; allowEmptyServices keeps it)", p.ing.Namespace, pp.backend.svc.name, pp.backend.text()))
	}
	return en.lb.service, nil
}

// use records that the part uses en, once.
func (p *ingressPart) use(en *serviceEntry) {
	if p.entrySet != nil {
		if _, ok := p.entrySet[en]; ok {
			return
		}
		p.entrySet[en] = struct{}{}
	} else if slices.Contains(p.entries, en) {
		return
	}
	if p.entries == nil {
		p.entries = p.entryBuf[:0]
	}
	p.entries = append(p.entries, en)
}

// ingressCerts loads the certificates of the Ingress's spec.tls entries.
func (t *translator) ingressCerts(p *ingressPart) {
	ing := p.ing
	for i, entry := range ing.Spec.TLS {
		if entry.SecretName == "" {
			continue
		}
		id := objectKey{ing.Namespace, entry.SecretName}
		if !slices.Contains(p.secrets, id) {
			p.secrets = append(p.secrets, id)
		}
		key := ing.Namespace + "-" + entry.SecretName
		if slices.ContainsFunc(p.certs, func(c certUse) bool { return c.key == key }) {
			continue
		}
		field := func() string { return fmt.Sprintf("spec.tls[%d].secretName", i) } // written only for a problem
		secret := t.snap.Secret(ing.Namespace, entry.SecretName)
		if secret == nil {
			p.errorf(field(), fmt.Errorf("secret %s/%s not found (the routes are kept without this certificate)", ing.Namespace, excerpt.Text(entry.SecretName)))
			continue
		}
		cert, err := t.certs.check(id, secret)
		if err != nil {
			p.errorf(field(), fmt.Errorf("secret %s/%s: %w (the routes are kept without this certificate)", ing.Namespace, entry.SecretName, err))
			continue
		}
		p.certs = append(p.certs, certUse{key: key, cert: cert})
	}
}

func (p *ingressPart) errorf(field string, err error) {
	p.errs = append(p.errs, &ObjectError{Kind: "Ingress", Namespace: p.ing.Namespace, Name: p.ing.Name, Field: field, Severity: SeverityError, Err: err})
}

// TranslationPanic is the error of an Ingress whose translation panicked:
// a bug in sliceway. The Ingress is skipped; the others are served. Stack
// is where it happened, for the report.
type TranslationPanic struct {
	Value any
	Stack []byte
}

func (tp *TranslationPanic) Error() string {
	return fmt.Sprintf("translation failed: %v (a bug in sliceway; the Ingress is skipped)", tp.Value)
}
