package nginx

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Options are the dialect's options besides those of the engine.
type Options struct {
	Classes ClassOptions
	// ExclusiveHosts keeps every namespace but a host's owner (that of
	// its oldest Ingress, hostfacts.go) off the host: their rules for it
	// are not served.
	ExclusiveHosts bool
	// AllowCrossNamespace lets an annotation name a Secret or Service of
	// another namespace (namespace/name); ingress-nginx allows it, which
	// lets any Ingress author read another namespace's credentials.
	AllowCrossNamespace bool
	// DropSnippets serves an Ingress with a configuration-, server- or
	// stream-snippet without it (a problem says so); off, such an
	// Ingress's paths answer 403, since a snippet may be its access
	// control.
	DropSnippets bool
	// LoosePathTypes lets Prefix and Exact paths hold what strict path
	// types refuse (pathtypes.go): off, as ingress-nginx by default, such
	// an Ingress is not served.
	LoosePathTypes bool
	// SSLPassthrough is ingress-nginx's --enable-ssl-passthrough: the
	// ssl-passthrough annotation is honoured (passthrough.go); off, it is
	// ignored, as ingress-nginx ignores it then.
	SSLPassthrough bool
	// AllowedAuthHosts are the hosts auth-url and auth-signin may name
	// although authhost.go refuses them (loopback, link-local,
	// unspecified, localhost, numeric spellings): matched against the
	// URL's host as written, whatever its case.
	AllowedAuthHosts []string
	// Controller is what the controller's ConfigMap says (nil: none is
	// read, ingress-nginx's defaults).
	Controller *Controller
	// ControllerDefault is the Ingress the controller's default backend
	// is translated from (ControllerDefaultBackend; nil: there is none):
	// it is recognised by this pointer.
	ControllerDefault *netv1.Ingress

	// parsed remembers what sets of annotations read into under these
	// options (ParseAnnotations); WithController gives each Options a
	// memo of its own, nil elsewhere.
	parsed *translate.SetMemo[parsedAnnotations]
}

// Hosts are the hosts of ing's rules: its part reads the other Ingresses
// of each (whether a path of the host is a regular expression, whether
// the host has TLS, the canaries of its paths); and its aliases and www
// names (redirectHosts). None for an Ingress that o refuses for its path
// types: it is not served, so it decides nothing for a host.
func (o *Options) Hosts(ing *netv1.Ingress) []string {
	if len(o.pathTypeProblems(ing)) > 0 {
		return nil
	}
	var hosts []string
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP != nil && !containsString(hosts, rule.Host) {
			hosts = append(hosts, rule.Host)
		}
	}
	return redirectHosts(ing, hosts)
}

// Translate builds into p (zero) the part of ing, an Ingress this dialect
// serves: for each path with a Service backend a router (two when its
// host has TLS: one on TLS connections, one on plain ones), the
// middlewares its annotations ask for, its load balancer, the
// certificates of its spec.tls. A canary Ingress routes nothing of its
// own: the Ingress of its host and path sends it its share.
func Translate(env *translate.IngressEnv, opts *Options, p *translate.Part, ing *netv1.Ingress) {
	p.Begin(ing)
	defer translate.RecoverPart(p)
	if ing == opts.ControllerDefault {
		translateControllerDefault(env, opts, p, ing)
		return
	}
	if opts.refusePathTypes(p, ing) {
		return
	}
	cfg, problems := opts.ParseAnnotations(ing.Annotations)
	closed := false
	for _, pr := range problems {
		closed = closed || pr.Closed
		p.Problem("metadata.annotations["+pr.Annotation+"]", translate.SeverityError, pr.Err)
	}
	if ctl := opts.controller(); ctl.closes() {
		closed = true
		p.Problem("", translate.SeverityError, ctl.closedBy())
	}
	env.IngressCerts(p)
	if closed && cfg.Canary.Enabled {
		return // its main Ingress serves the path alone
	}
	if err := checkOutput(ing, env.PlanOptions.MaxOutput); err != nil {
		p.Problem("spec.rules", translate.SeverityError, err)
		return
	}
	if cfg.Canary.Enabled {
		checkCanary(env, opts, p, ing)
		return
	}
	// A closed Ingress's paths answer 403 (closed.go), and its default
	// backend is not used.
	t := &translation{env: env, opts: opts, p: p, ing: ing, cfg: cfg, closed: closed}
	t.claimProblems()
	db := ing.Spec.DefaultBackend
	switch {
	case db != nil && len(ing.Spec.Rules) == 0:
		if !closed {
			t.defaultBackend(*db)
		}
	case db != nil && !t.defaultBackendService(*db):
		db = nil
	}
	var fallbacks []string // the hosts given db as their fallback
	paths := 0
	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		if err := translate.CheckHost(rule.Host); err != nil {
			p.Problem("spec.rules["+strconv.Itoa(i)+"].host", translate.SeverityError, fmt.Errorf("%w (the rule is skipped)", err))
			continue
		}
		host := t.hostFacts(rule.Host)
		if t.opts.ExclusiveHosts && host.ownedElsewhere(ing) {
			o := host.owner
			p.Problem("spec.rules["+strconv.Itoa(i)+"].host", translate.SeverityError, fmt.Errorf(
				"host %q belongs to namespace %s (its oldest Ingress is %s/%s), and exclusiveHosts keeps other namespaces off it (the rule is skipped)",
				rule.Host, o.Namespace, o.Namespace, o.Name))
			continue
		}
		for j, path := range rule.HTTP.Paths {
			t.path(host, rule.Host, translate.NewPathRef(i, j), path)
			if paths++; t.overOutput(paths) {
				return
			}
		}
		if db != nil && !slices.Contains(fallbacks, rule.Host) {
			fallbacks = append(fallbacks, rule.Host)
			t.hostDefault(host, rule.Host, *db)
			if paths++; t.overOutput(paths) {
				return
			}
		}
	}
}

// translation is the translation of one Ingress.
type translation struct {
	env    *translate.IngressEnv
	opts   *Options
	p      *translate.Part
	ing    *netv1.Ingress
	cfg    *Config
	closed bool // an access annotation cannot be honoured: every path answers 403
	output outputCount
	// controllerDefault: ing is the controller's default backend
	// (controllerdefault.go), not an Ingress of the cluster.
	controllerDefault bool
	// built is what the backend annotations made for the whole Ingress,
	// once: its servers transport, middlewares, the default backend's
	// load balancer and the problems filed about them (transport.go).
	built *ingressBuild
	// ingressPrefix starts the names of what the Ingress defines
	// (ingressName).
	ingressPrefix string
}

// pathContext is one path being translated: what the builders of the
// annotation families read.
type pathContext struct {
	*translation
	host  string
	facts hostFacts
	path  netv1.HTTPIngressPath
	ref   translate.PathRef
	key   string // the router key
	// backend is the path's Service port and its load balancer's name.
	backend translate.PortKey
	lbName  string
	// Set by the access family for a host that asks for client
	// certificates: the TLS option of the TLS router, and the one
	// middleware of the plain router (a redirect to https).
	tlsOptions, plainRedirect string
	clientCertTried           bool // clientCert ran (its problems are filed)
	failClosed                bool // the service cannot be built as asked, and the path answers 403
	unavailable               bool // the Service cannot be used, and the path answers 503
	// canary is the split withCanaries chose, nil without one.
	canary *canarySplit
	// fallback: the path is spec.defaultBackend on a host of the
	// Ingress's rules (hostdefault.go).
	fallback bool
}

// name is the name of something of this path's own, suffix saying what.
func (pc *pathContext) name(suffix string) string { return pc.key + "_" + suffix }

// problem files a problem of this path's field.
func (pc *pathContext) problem(field string, err error) {
	if pc.ref.IsDefaultBackend() {
		pc.defaultBackendProblem(field, err)
		return
	}
	pc.p.Problem(pc.ref.String()+field, translate.SeverityError, err)
}

// path translates one path of a rule.
func (t *translation) path(facts hostFacts, host string, ref translate.PathRef, path netv1.HTTPIngressPath) {
	sb := path.Backend.Service
	if sb == nil {
		field, err := ".backend.service", errors.New("no service is given")
		if path.Backend.Resource != nil {
			field, err = ".backend.resource", errors.New("resource backends are not supported")
		}
		t.p.Problem(ref.String()+field, translate.SeverityError, err)
		return
	}
	if err := checkPath(path, facts.regex); err != nil {
		t.p.Problem(ref.String()+".path", translate.SeverityError, fmt.Errorf("%w (the path is skipped)", err))
		return
	}
	pc := t.pathContext(facts, host, ref, path)
	if r, ok := pc.serve(); ok {
		pc.extraRouters(r)
		pc.canaryRouters(r)
	}
	pc.passthrough()
}

// serve adds the routers of the path on its host: to its service through
// its middlewares, or answering 403 (closed) or 503 (unavailable). It
// gives the route of a path that is served, for the routers of its
// aliases and canaries.
func (pc *pathContext) serve() (route, bool) {
	if pc.closed {
		pc.closedRouters()
		return route{}, false
	}
	mark := markPart(pc.p)
	svc, ok := pc.service()
	if !ok {
		// The problems of the path's middlewares are told too, so that
		// every problem of the path is in one render's errors: a path
		// that answers 503 for want of its Service may answer 403 for an
		// access annotation once the Service is there.
		saved := *pc
		pc.middlewares()
		*pc = saved
		mark.rollback(pc.p)
		switch {
		case pc.failClosed:
			pc.closedRouters()
		case pc.unavailable:
			pc.unavailableRouters()
		}
		return route{}, false
	}
	mws, ok := pc.middlewares()
	if !ok {
		mark.rollback(pc.p)
		pc.closedRouters()
		return route{}, false
	}
	r := pc.hostRoute(pc.host, svc)
	if pc.plainRedirect != "" {
		// A host that asks for client certificates is only redirected
		// on plain connections: no request reaches the backend without
		// a verified certificate.
		r.plainMws = []string{pc.plainRedirect}
	} else {
		r.plainMws = pc.plainMiddlewares(mws)
	}
	r.plainMws, r.tlsMws = pc.withHSTS(r.plainMws), pc.withHSTS(mws)
	pc.routerPair(r)
	return r, true
}

// pathContext is the context of a path with a Service backend.
func (t *translation) pathContext(facts hostFacts, host string, ref translate.PathRef, path netv1.HTTPIngressPath) *pathContext {
	backend := translate.BackendPort(t.ing.Namespace, path.Backend.Service)
	return &pathContext{translation: t, host: host, facts: facts, path: path, ref: ref,
		key: NamePrefix + translate.RouterKey(t.ing.Namespace, t.ing.Name, host, path.Path), backend: backend, lbName: serviceName(backend)}
}

// routedService is where a path's routers send: the service and its
// name in the configuration.
type routedService struct {
	name string
	svc  *dynamic.Service
}

// service is the path's service: its Service port's load balancer, as
// the backend annotations change it (another transport, a sticky cookie,
// the ClusterIP), shared with the canaries of the path. false: the path
// is not served (the problem is filed), or with failClosed answers 403.
func (pc *pathContext) service() (routedService, bool) {
	var rs routedService
	lb := pc.env.LoadBalancer(pc.backend, pc.lbName)
	if lb.Err != nil {
		pc.problem(".backend.service", fmt.Errorf("%w %s", lb.Err, pc.unavailableAnswer()))
		pc.unavailable = true
		return rs, false
	}
	if lb.NoServers() && !pc.env.AllowEmptyServices && !pc.backendKeepsEmpty() {
		pc.problem(".backend.service", fmt.Errorf("service %s/%s port %s has no servers %s", pc.ing.Namespace, pc.backend.Service.Name, pc.backend.Text(), pc.unavailableAnswer()))
		pc.unavailable = true
		return rs, false
	}
	rs.name, rs.svc = pc.lbName, lb.Service
	derive, name, ok := pc.deriveService(lb.Service)
	if !ok {
		pc.failClosed = true // a verification of the backend was asked for
		return rs, false
	}
	if derive != nil {
		rs.name = name
		rs.svc = pc.addShared(translate.NamedService{Name: name, Service: derive(lb.Service), Base: lb.Service, Derive: derive})
	}
	return pc.withCanaries(rs)
}

// unavailableAnswer says what the path answers when its Service cannot
// be used (unavailableRouters).
func (pc *pathContext) unavailableAnswer() string {
	if to, _ := pc.cfg.Paths.Redirect.target(); to != "" {
		return "(the path answers its redirect)"
	}
	return "(the path answers 503)"
}

// addMiddleware defines a middleware of the part under name, once.
func (t *translation) addMiddleware(name string, mw dynamic.Middleware) {
	t.addMiddlewareRef(name, &mw)
}

// addMiddlewareRef is addMiddleware of a middleware that annotations
// decoded once for every Ingress that has them (their Config is
// memoised): the parts share it, and no part ever modifies it.
func (t *translation) addMiddlewareRef(name string, mw *dynamic.Middleware) {
	for _, m := range t.p.Middlewares {
		if m.Name == name {
			return
		}
	}
	if t.p.Middlewares == nil {
		t.p.Middlewares = make([]translate.NamedMiddleware, 0, 4) // most annotated Ingresses ask for a few
	}
	t.p.Middlewares = append(t.p.Middlewares, translate.NamedMiddleware{Name: name, Middleware: mw})
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
