package translate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Plan is the part of an Ingress's translation that depends on the
// Ingress and the options alone: its router annotations, the problems of
// its own fields, and for each path with a Service backend the router
// key, the Service port and the router. A translation completes it with
// the load balancers of those ports and the certificates of its Secrets
// (IngressEnv.Translate). The client's index plans each Ingress when it
// arrives and a render takes that plan when it was made with the render's
// options: both come from PlanIngress. A plan is never modified once made.
type Plan struct {
	Ingress *netv1.Ingress
	Key     Key
	opts    PlanOptions
	// skipped says that the Ingress gets no router at all (its annotations
	// are invalid, or its routers would exceed maxIngressOutput); errs
	// says why.
	skipped bool
	errs    []*ObjectError
	ra      *routerAnnotations
	paths   []plannedPath
	// defaultBackend is spec.defaultBackend, planned; nil without one.
	defaultBackend *plannedDefault
}

// plannedDefault is spec.defaultBackend: its router, or (path.router nil)
// the problem of a backend without a Service, which is reported unless an
// older Ingress has the default backend.
type plannedDefault struct {
	path plannedPath
	errs []*ObjectError
}

// PlanOptions are the options a plan depends on.
type PlanOptions struct {
	StrictPrefix   bool                    // strictPrefixMatching
	SpecPriorities bool                    // routerPriority spec
	MaxOutput      int64                   // maxIngressOutput, its default for 0
	CrossProvider  CrossProviderNamespaces // crossProviderNamespaces
	// PinRuleSyntax (defaultRuleSyntax v2): every router names v3's
	// syntax, in which sliceway writes its rules, so that a Traefik whose
	// core.defaultRuleSyntax is v2 reads them as written.
	PinRuleSyntax bool
}

// PinnedRuleSyntax is the ruleSyntax that names Traefik's own v3 syntax,
// whatever its core.defaultRuleSyntax, without the deprecation warning an
// explicit "v3" brings.
const PinnedRuleSyntax = "default"

// plannedPath is one Ingress backend with a Service: a path of a rule, or
// spec.defaultBackend (ref.rule < 0).
type plannedPath struct {
	ref     PathRef
	key     string  // the router key, before conflicts are settled
	backend PortKey // the Service port
	service string  // the name of its load balancer: backend.ServiceName()
	router  *dynamic.Router
}

// PathRef names where in its object a router comes from, for errors: a
// path of an Ingress rule or its spec.defaultBackend, or a match of a
// route's rule (NewMatchRef). The text is only built when an error needs
// it.
type PathRef struct {
	rule, path int32 // rule < 0: spec.defaultBackend; an object's size bounds both
	match      bool  // path is a match of a route's rule
}

func (p PathRef) String() string {
	switch {
	case p.match:
		return "spec.rules[" + strconv.Itoa(int(p.rule)) + "].matches[" + strconv.Itoa(int(p.path)) + "]"
	case p.rule < 0:
		return "spec.defaultBackend"
	}
	return "spec.rules[" + strconv.Itoa(int(p.rule)) + "].http.paths[" + strconv.Itoa(int(p.path)) + "]"
}

func (p PathRef) backend() string {
	if p.rule < 0 {
		return p.String()
	}
	return p.String() + ".backend"
}

// PlanIngress plans ing with the options; memos, when not nil, are where
// its annotations are decoded through.
func PlanIngress(ing *netv1.Ingress, opts PlanOptions, memos *Memos) *Plan {
	pl := &Plan{Ingress: ing, Key: Key{ing.Namespace, ing.Name}, opts: opts}
	var ra *routerAnnotations
	var err error
	if memos != nil {
		ra, err = memos.routerSets.parse(ing.Annotations, parseRouterAnnotations)
	} else {
		ra, err = parseRouterAnnotations(ing.Annotations)
	}
	if err != nil {
		field := "metadata.annotations"
		var ae *annotationError
		if errors.As(err, &ae) {
			field = ae.field()
			err = ae.Err
		}
		pl.skip(field, fmt.Errorf("%w (the Ingress is skipped)", err))
		return pl
	}
	if field, err := crossProviderRouter(ing.Namespace, ra, ing.Annotations, opts.CrossProvider); err != nil {
		pl.skip(field, err)
		return pl
	}
	if field, err := checkOutput(ing, ra, opts); err != nil {
		pl.skip(field, err)
		return pl
	}
	pl.ra = ra
	for _, ae := range ra.ignored {
		pl.errs = append(pl.errs, &ObjectError{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name, Field: ae.field(),
			Severity: SeverityWarning, Err: fmt.Errorf("%w (the Ingress is served without it)", ae.Err)})
	}
	if db := ing.Spec.DefaultBackend; db != nil {
		ref := PathRef{rule: -1}
		pd := &plannedDefault{path: plannedPath{ref: ref}}
		if sb, problem := pl.serviceBackend(ref, *db); sb == nil {
			pd.errs = []*ObjectError{problem}
		} else {
			key := backendPort(ing.Namespace, sb)
			rt := newRouter(ra, DefaultBackendName)
			rt.Rule = `PathPrefix("/")`
			if rt.RuleSyntax == "" {
				// As Traefik's provider writes it: v3's syntax whatever
				// Traefik's core.defaultRuleSyntax, which Traefik does not
				// warn about (the option itself is deprecated).
				rt.RuleSyntax = PinnedRuleSyntax
			}
			rt.Priority = math.MinInt32
			setObservability(rt, &observabilityAlloc{}, ing, sb.Name, key.Text())
			ra.observe(rt)
			pd.path.backend, pd.path.service, pd.path.router = key, key.ServiceName(), rt
		}
		pl.defaultBackend = pd
	}
	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		if err := checkHost(rule.Host); err != nil {
			pl.errorf("spec.rules["+strconv.Itoa(i)+"].host", fmt.Errorf("%w (the rule is skipped)", err))
			continue
		}
		for j, path := range rule.HTTP.Paths {
			ref := NewPathRef(i, j)
			if err := checkPath(path, ra.PathMatcher); err != nil {
				pl.errorf(ref.String()+".path", fmt.Errorf("%w (the path is skipped)", err))
				continue
			}
			sb, problem := pl.serviceBackend(ref, path.Backend)
			if sb == nil {
				pl.errs = append(pl.errs, problem)
				continue
			}
			key := backendPort(ing.Namespace, sb)
			service := key.ServiceName()
			pl.paths = append(pl.paths, plannedPath{
				ref:     ref,
				key:     routerKey(ing.Namespace, ing.Name, rule.Host, path.Path),
				backend: key,
				service: service,
				router:  pathRouter(ra, ing, rule.Host, path, service, key.Text(), opts),
			})
		}
	}
	return pl
}

// serviceBackend is the Service of an Ingress backend, or nil and the
// problem of a resource backend or one without a Service.
func (pl *Plan) serviceBackend(ref PathRef, b netv1.IngressBackend) (*netv1.IngressServiceBackend, *ObjectError) {
	switch {
	case b.Resource != nil:
		return nil, pl.problem(ref.backend()+".resource", errors.New("resource backends are not supported"))
	case b.Service == nil:
		return nil, pl.problem(ref.backend()+".service", errors.New("no service is given"))
	}
	return b.Service, nil
}

func (pl *Plan) problem(field string, err error) *ObjectError {
	return &ObjectError{Kind: "Ingress", Namespace: pl.Ingress.Namespace, Name: pl.Ingress.Name, Field: field, Severity: SeverityError, Err: err}
}

func (pl *Plan) errorf(field string, err error) {
	pl.errs = append(pl.errs, pl.problem(field, err))
}

// skip files why the Ingress gets no router.
func (pl *Plan) skip(field string, err error) {
	pl.skipped = true
	pl.errorf(field, err)
}

// builtRouter holds a router and everything it points to, so that a
// router costs one allocation instead of four.
type builtRouter struct {
	rt  dynamic.Router
	obs observabilityAlloc
}

type observabilityAlloc struct {
	cfg dynamic.RouterObservabilityConfig
	md  dynamic.ObservabilityMetadata
	ing dynamic.IngressMetadata
}

// pathRouter builds the router of an Ingress path whose backend is the
// service key, port being the backend's port as names write it.
func pathRouter(ra *routerAnnotations, ing *netv1.Ingress, host string, path netv1.HTTPIngressPath, key, port string, opts PlanOptions) *dynamic.Router {
	a := &builtRouter{}
	rt := &a.rt
	fillRouter(rt, ra, key)
	rt.Rule = buildRule(host, path, ra.PathMatcher, opts.StrictPrefix)
	rt.Priority = ra.Priority
	if rt.Priority == 0 && opts.SpecPriorities {
		rt.Priority = specPriority(host, path, opts.StrictPrefix)
	}
	setObservability(rt, &a.obs, ing, path.Backend.Service.Name, port)
	ra.observe(rt)
	if opts.PinRuleSyntax && rt.RuleSyntax == "" {
		rt.RuleSyntax = PinnedRuleSyntax
	}
	return rt
}

func newRouter(ra *routerAnnotations, service string) *dynamic.Router {
	rt := &dynamic.Router{}
	fillRouter(rt, ra, service)
	return rt
}

func fillRouter(rt *dynamic.Router, ra *routerAnnotations, service string) {
	rt.Service = service
	rt.RuleSyntax = ra.RuleSyntax
	if len(ra.EntryPoints) > 0 {
		rt.EntryPoints = slices.Clone(ra.EntryPoints)
	}
	if len(ra.Middlewares) > 0 {
		rt.Middlewares = slices.Clone(ra.Middlewares)
	}
	if ra.TLS != nil {
		tlsConf := *ra.TLS
		tlsConf.Domains = slices.Clone(tlsConf.Domains)
		if len(tlsConf.Domains) == 0 {
			tlsConf.Domains = nil
		}
		rt.TLS = &tlsConf
	}
}

// setObservability names the Ingress and backend of a router, in a.
func setObservability(rt *dynamic.Router, a *observabilityAlloc, ing *netv1.Ingress, serviceName, port string) {
	a.ing = dynamic.IngressMetadata{
		Namespace:   ing.Namespace,
		IngressName: ing.Name,
		ServiceName: serviceName,
		ServicePort: port,
	}
	a.md.Ingress = &a.ing
	a.cfg.Metadata = &a.md
	rt.Observability = &a.cfg
}

// Paths is how many paths with a Service backend pl routes.
func (pl *Plan) Paths() int { return len(pl.paths) }

// Path is the router key, the Service port and the router of the i-th of
// them: what a render takes of the plan.
func (pl *Plan) Path(i int) (key string, backend PortKey, router *dynamic.Router) {
	pp := &pl.paths[i]
	return pp.key, pp.backend, pp.router
}
