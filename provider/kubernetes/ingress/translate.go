package ingress

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// Names Traefik gives the default backend.
const (
	DefaultRouterName  = "default-router"
	DefaultBackendName = "default-backend"
)

// Ingress class names and annotations.
const (
	// ControllerName is the controller an IngressClass must name to be ours.
	ControllerName = "traefik.io/ingress-controller"
	// AnnotationIngressClass is the legacy class annotation.
	AnnotationIngressClass = "kubernetes.io/ingress.class"
	// AnnotationDefaultClass marks the cluster's default IngressClass.
	AnnotationDefaultClass = "ingressclass.kubernetes.io/is-default-class"
	// defaultClassAnnotationValue is the legacy annotation value served when no class option is set.
	defaultClassAnnotationValue = "traefik"
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
//
// The maps a render fills from nothing and drops (those it would keep for
// the next render of a Renderer), and its parts and entries, which die
// with the render, are made in a scratch that goes back to a pool, for the
// next Translate to fill again.
func Translate(snap Snapshot, opts *Provider) *Result {
	r := NewRenderer(opts)
	r.e.oneShot = true
	if s, ok := scratchPool.Get().(*scratch); ok {
		r.e.adopt(s)
	}
	res, _ := r.Render(snap, nil)
	scratchPool.Put(r.e.scratch())
	return res
}

// scratch is what a full render fills from nothing: the engine's maps of
// parts, users, groups, rules and services, its slab of groups, its
// entries (with their slabs) and the slab of its parts. None of it is in
// the Result.
type scratch struct {
	parts      map[string]*ingressPart
	svcUsers   map[string][]*ingressPart
	groups     map[string]*routerGroup
	svcRefs    map[string]svcRef
	rulePlaced map[string]int32
	slab       []routerGroup
	entries    entryMap
	partSlab   []ingressPart
}

var scratchPool sync.Pool

// adopt gives a new engine the scratch of an engine done with it, which
// its first full render clears and fills (reuse, newEntries).
func (e *engine) adopt(s *scratch) {
	e.parts, e.svcUsers, e.groups, e.svcRefs, e.rulePlaced, e.slab = s.parts, s.svcUsers, s.groups, s.svcRefs, s.rulePlaced, s.slab
	e.spare, e.partSlab = s.entries, s.partSlab
}

// scratch takes the scratch of an engine that renders no more, emptied:
// kept in the pool, it holds on to no object of the cluster.
func (e *engine) scratch() *scratch {
	s := &scratch{parts: e.parts, svcUsers: e.svcUsers, groups: e.groups, svcRefs: e.svcRefs, rulePlaced: e.rulePlaced, slab: e.slab, entries: e.entries, partSlab: e.partSlab}
	*e = engine{}
	clear(s.parts)
	clear(s.svcUsers)
	clear(s.groups)
	clear(s.svcRefs)
	clear(s.rulePlaced)
	clear(s.slab[:cap(s.slab)])
	clear(s.partSlab[:cap(s.partSlab)])
	for i := range s.entries.shards {
		sh := &s.entries.shards[i]
		clear(sh.entries)
		clear(sh.slab[:cap(sh.slab)])
		clear(sh.backends[:cap(sh.backends)])
	}
	return s
}

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

// pathRef names an Ingress backend in errors; the text is only built when
// an error needs it.
type pathRef struct {
	rule, path int // rule < 0: spec.defaultBackend
}

func (p pathRef) String() string {
	if p.rule < 0 {
		return "spec.defaultBackend"
	}
	return "spec.rules[" + strconv.Itoa(p.rule) + "].http.paths[" + strconv.Itoa(p.path) + "]"
}

func (p pathRef) backend() string {
	if p.rule < 0 {
		return p.String()
	}
	return p.String() + ".backend"
}

// locate finds where the proxy runs, for topology hints: the node from the
// options (or NODE_NAME, resolved by Init), the zone from the options or
// else from the Node's zone label, which needs the Nodes watched.
func (e *engine) locate() {
	e.errsDirty = e.errsDirty || len(e.locErrs) > 0
	e.locErrs, e.locNodes = nil, false
	node, zone := e.opts.nodeName, ""
	if tp := e.opts.Topology; tp != nil {
		if tp.Node != "" {
			node = tp.Node
		}
		zone = tp.Zone
	}
	if node != "" && zone == "" {
		e.locNodes = true
		if nodes := e.snap.Nodes(); nodes != nil {
			found := false
			for _, n := range nodes {
				if n != nil && n.Name == node {
					found = true
					zone = n.Labels[corev1.LabelTopologyZone]
					break
				}
			}
			switch {
			case !found:
				e.locErrs = append(e.locErrs, &ObjectError{Kind: "Node", Name: node, Severity: SeverityWarning,
					Err: errors.New("this proxy's node (topology.node or NODE_NAME) does not exist: zone hints are not used")})
			case zone == "":
				e.locErrs = append(e.locErrs, &ObjectError{Kind: "Node", Name: node, Field: "metadata.labels[" + corev1.LabelTopologyZone + "]", Severity: SeverityWarning,
					Err: errors.New("this proxy's node has no zone label: zone hints are not used (set topology.zone)")})
			}
			e.errsDirty = e.errsDirty || len(e.locErrs) > 0
		}
	}
	e.node, e.zone = node, zone
}

// classSet is what the IngressClasses of the cluster say about which
// Ingresses are ours.
type classSet struct {
	ours          map[string]bool
	defaultExists bool
	defaultIsOurs bool
}

func (e *engine) readClasses() classSet {
	cs := classSet{ours: map[string]bool{}}
	for _, ic := range e.snap.IngressClasses() {
		if ic == nil {
			continue
		}
		isDefault := ic.Annotations[AnnotationDefaultClass] == "true"
		ours := ic.Spec.Controller == ControllerName && (e.opts.IngressClass == "" || ic.Name == e.opts.IngressClass)
		if ours {
			cs.ours[ic.Name] = true
		}
		if isDefault {
			cs.defaultExists = true
			cs.defaultIsOurs = cs.defaultIsOurs || ours
		}
	}
	return cs
}

// serves says whether an Ingress is for this provider: its ingressClassName
// names one of our IngressClasses; or its legacy class annotation matches the
// ingressClass option ("traefik" when the option is empty); or it names no
// class at all and either the cluster's default IngressClass is ours or, when
// the cluster has no default class, the ingressClass option is empty.
func (cs classSet) serves(ing *netv1.Ingress, option string) bool {
	if ing.Spec.IngressClassName != nil {
		return cs.ours[*ing.Spec.IngressClassName]
	}
	if annotation := ing.Annotations[AnnotationIngressClass]; annotation != "" {
		return annotation == option || (option == "" && annotation == defaultClassAnnotationValue)
	}
	if cs.defaultExists {
		return cs.defaultIsOurs
	}
	return option == ""
}

// translateIngress builds what one served Ingress contributes: its routers,
// its default-backend candidate, its certificates and its problems. It
// depends on the Ingress, the Services and EndpointSlices it names (through
// the service entries) and its Secrets, and on nothing another Ingress says:
// conflicts between Ingresses are settled when the parts are assembled.
//
// A panic while translating (a bug, as a malformed annotation once caused
// in the parser) skips this Ingress with a *TranslationPanic error instead
// of stopping the render: the other Ingresses are served. The part keeps
// the Service ports and Secrets it had looked up, so that a change of
// those translates it again.
//
// slot, when not nil, is where the part goes (a slab of Translate's).
func (e *engine) translateIngress(ing *netv1.Ingress, pre *orderedIngress, slot *ingressPart) (p *ingressPart) {
	p = slot
	if p == nil {
		p = &ingressPart{}
	}
	*p = ingressPart{nsLen: int32(len(ing.Namespace)), ing: ing,
		createdSec: ing.CreationTimestamp.Unix(), createdNsec: int32(ing.CreationTimestamp.Nanosecond())}
	if pre != nil {
		p.key = pre.key
	} else {
		p.key = ing.Namespace + "/" + ing.Name
	}
	p.routers, p.entries = p.routerBuf[:0], p.entryBuf[:0]
	defer func() {
		if v := recover(); v != nil {
			secrets := p.secrets()
			p.routers, p.x = nil, nil
			if len(secrets) > 0 {
				p.extra().secrets = secrets
			}
			p.errorf("", SeverityError, &TranslationPanic{Value: v, Stack: debug.Stack()})
		}
	}()
	e.translateInto(p, pre)
	return p
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

// translateInto is translateIngress without the recovery.
func (e *engine) translateInto(p *ingressPart, pre *orderedIngress) {
	ing := p.ing
	ra, err := e.routerSets.parse(ing.Annotations, parseRouterAnnotations)
	if err != nil {
		field := "metadata.annotations"
		var ae *annotationError
		if errors.As(err, &ae) {
			field = ae.field()
			err = ae.Err
		}
		p.errorf(field, SeverityError, fmt.Errorf("%w (the Ingress is skipped)", err))
		return
	}
	if field, err := checkOutput(ing, ra, e.opts.StrictPrefixMatching, e.opts.maxIngressOutput()); err != nil {
		p.errorf(field, SeverityError, err)
		return
	}

	e.ingressCerts(p)

	if db := ing.Spec.DefaultBackend; db != nil {
		e.defaultBackend(p, db, ra)
	}

	paths := 0 // the paths of the rules before this one
	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		first := paths
		paths += len(rule.HTTP.Paths)
		if err := checkHost(rule.Host); err != nil {
			p.errorf("spec.rules["+strconv.Itoa(i)+"].host", SeverityError, fmt.Errorf("%w (the rule is skipped)", err))
			continue
		}
		for j, path := range rule.HTTP.Paths {
			ref := pathRef{rule: i, path: j}
			if err := checkPath(path, ra.PathMatcher); err != nil {
				p.errorf(ref.String()+".path", SeverityError, fmt.Errorf("%w (the path is skipped)", err))
				continue
			}
			op := pre.path(first, j)
			svc, key, port, errs := e.backend(p, ref, path.Backend, op)
			if errs != nil {
				x := p.extra()
				x.errs = append(x.errs, errs...)
				continue
			}
			pr := p.newPending()
			pr.service, pr.part, pr.path, pr.index = svc, p, ref, len(p.routers)
			if op != nil {
				pr.key = op.routerKey
			} else {
				pr.key = routerKey(ing.Namespace, ing.Name, rule.Host, path.Path)
			}
			if op != nil && e.builtRouters && op.router != nil && op.router.Service == key {
				pr.router = op.router // the client's order built it when the Ingress arrived
			} else {
				pr.router = pathRouter(ra, ing, rule.Host, path, key, port, e.opts.StrictPrefixMatching)
			}
			p.routers = append(p.routers, pr)
		}
	}
	if p.x != nil {
		p.x.entrySet = nil
	}
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
func pathRouter(ra *routerAnnotations, ing *netv1.Ingress, host string, path netv1.HTTPIngressPath, key, port string, strictPrefix bool) *dynamic.Router {
	a := &builtRouter{}
	rt := &a.rt
	fillRouter(rt, ra, key)
	rt.Rule = buildRule(host, path, ra.PathMatcher, strictPrefix)
	rt.Priority = ra.Priority
	if rt.Priority == 0 && strictPrefix {
		rt.Priority = specPriority(host, path)
	}
	setObservability(rt, &a.obs, ing, path.Backend.Service.Name, port)
	return rt
}

func newRouter(ra *routerAnnotations, service string) *dynamic.Router {
	rt := &dynamic.Router{}
	fillRouter(rt, ra, service)
	return rt
}

func fillRouter(rt *dynamic.Router, ra *routerAnnotations, service string) {
	rt.Service = service
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

// defaultBackend resolves the Ingress's spec.defaultBackend. Whether it is
// used depends on the other Ingresses (the oldest usable one wins), so the
// part only holds the candidate.
func (e *engine) defaultBackend(p *ingressPart, db *netv1.IngressBackend, ra *routerAnnotations) {
	c := &defaultCandidate{}
	p.extra().defaultBackend = c
	svc, _, port, errs := e.backend(p, pathRef{rule: -1}, *db, nil)
	if errs != nil {
		c.errs = errs
		return
	}
	c.router = newRouter(ra, DefaultBackendName)
	c.router.Rule = `PathPrefix("/")`
	c.router.Priority = math.MinInt32
	setObservability(c.router, &observabilityAlloc{}, p.ing, db.Service.Name, port)
	c.service = svc
}

// backend resolves an Ingress backend to its service, through the entry of
// the Service port (built on first use), and returns the service's key. When
// it cannot, it returns the problems, as errors of the Ingress.
// op, when not nil, is what the client's order kept of the path, whose
// entry id it takes.
func (e *engine) backend(p *ingressPart, ref pathRef, b netv1.IngressBackend, op *orderedPath) (svc *dynamic.Service, key, port string, errs []*ObjectError) {
	ing := p.ing
	fail := func(field string, err error) []*ObjectError {
		return []*ObjectError{{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name, Field: ref.backend() + field, Severity: SeverityError, Err: err}}
	}
	if b.Resource != nil {
		return nil, "", "", fail(".resource", errors.New("resource backends are not supported"))
	}
	if b.Service == nil {
		return nil, "", "", fail(".service", errors.New("no service is given"))
	}
	var id string
	if op != nil && op.entryID != "" {
		id, port = op.entryID, op.port
	} else {
		id, port = entryID(ing.Namespace, b.Service)
	}
	en := e.entry(id, ing.Namespace, b.Service, port)
	p.use(en)
	if en.err != nil {
		return nil, "", "", fail(".service", en.err)
	}
	if e.lacksServers(en) {
		return nil, "", "", fail(".service",
			fmt.Errorf("service %s/%s port %s has no servers (the path is skipped; allowEmptyServices keeps it)", ing.Namespace, b.Service.Name, port))
	}
	return en.service, en.name, port, nil
}

// entryID returns the key of the entry of a backend's Service port,
// namespace/service/port or namespace/service/#number, and the port as
// names write it: its name, or its number.
func entryID(namespace string, sb *netv1.IngressServiceBackend) (id, port string) {
	if port = sb.Port.Name; port != "" {
		return namespace + "/" + sb.Name + "/" + port, port
	}
	port = strconv.Itoa(int(sb.Port.Number))
	return namespace + "/" + sb.Name + "/#" + port, port
}

// lacksServers says whether the paths to en's load balancer (built, with
// no error) are skipped for having no servers. With en.err, it is all a
// part reads of an entry, which refresh relies on.
func (e *engine) lacksServers(en *serviceEntry) bool {
	return en.noServers && !e.opts.AllowEmptyServices
}

// buildService builds the load balancer of one Service port into en:
// the service or the reason there is none, and the problems of the Service
// and its EndpointSlices.
func (e *engine) buildService(en *serviceEntry, namespace string, sb *netv1.IngressServiceBackend, scratch *[]endpoints.Backend) {
	svc := en.svc()
	if svc == nil {
		en.err = fmt.Errorf("service %s/%s not found", namespace, excerpt.Text(sb.Name))
		return
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName && !e.opts.AllowExternalNameServices {
		en.err = fmt.Errorf("service %s/%s is of type ExternalName, which allowExternalNameServices does not allow", namespace, sb.Name)
		return
	}
	portSpec, found := servicePort(svc, sb.Port)
	if !found {
		en.err = fmt.Errorf("service %s/%s has no port %s", namespace, sb.Name, portString(sb.Port))
		return
	}
	if portSpec.Protocol != "" && portSpec.Protocol != corev1.ProtocolTCP {
		en.err = fmt.Errorf("service %s/%s port %s is %s, not TCP", namespace, sb.Name, portString(sb.Port), excerpt.Text(string(portSpec.Protocol)))
		return
	}
	sa, err := e.serviceSets.parse(svc.Annotations, parseServiceAnnotations)
	if err != nil {
		var ae *annotationError
		if errors.As(err, &ae) {
			en.errs = append(en.errs, &ObjectError{Kind: "Service", Namespace: namespace, Name: sb.Name,
				Field: ae.field(), Severity: SeverityError, Err: ae.Err})
		}
		en.err = fmt.Errorf("service %s/%s has an invalid annotation: %w", namespace, sb.Name, err)
		return
	}

	service := dynamic.NewServersService()
	lb := service.LoadBalancer
	if sa.Sticky != nil {
		sticky := *sa.Sticky
		if sticky.Cookie != nil {
			cookie := *sticky.Cookie
			sticky.Cookie = &cookie
		}
		lb.Sticky = &sticky
	}
	if sa.PassHostHeader != nil {
		v := *sa.PassHostHeader
		lb.PassHostHeader = &v
	}
	lb.ServersTransport = sa.ServersTransport
	scheme := serverScheme(portSpec, sa)

	nativeLB := e.opts.NativeLBByDefault
	if sa.NativeLB != nil {
		nativeLB = *sa.NativeLB
	}

	switch {
	case sa.NodePortLB && svc.Spec.Type == corev1.ServiceTypeNodePort:
		en.nodes = true
		lb.Servers, err = e.nodePortServers(svc, portSpec, scheme)
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		if reason := e.refusedExternalName(svc.Spec.ExternalName); reason != "" {
			en.err = fmt.Errorf("service %s/%s: externalName %s is %s: never used as a server", namespace, sb.Name, excerpt.Quote(svc.Spec.ExternalName), reason)
			return
		}
		lb.Servers = []dynamic.Server{{URL: scheme + "://" + net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(portSpec.Port)))}}
	case nativeLB:
		lb.Servers, err = clusterIPServers(svc, portSpec, scheme)
	default:
		lb.Servers = e.endpointServers(en, svc, portSpec, scheme, scratch)
	}
	if err != nil {
		en.err = err
		return
	}
	en.service = service
}

// ingressCerts loads the certificates of the Ingress's spec.tls entries.
func (e *engine) ingressCerts(p *ingressPart) {
	ing := p.ing
	for i, entry := range ing.Spec.TLS {
		if entry.SecretName == "" {
			continue
		}
		id := ing.Namespace + "/" + entry.SecretName
		x := p.extra()
		x.secrets = appendNew(x.secrets, id)
		key := ing.Namespace + "-" + entry.SecretName
		if slices.ContainsFunc(x.certs, func(c certUse) bool { return c.key == key }) {
			continue
		}
		// The field is named only when there is a problem.
		field := func() string { return fmt.Sprintf("spec.tls[%d].secretName", i) }
		secret := e.snap.Secret(ing.Namespace, entry.SecretName)
		if secret == nil {
			p.errorf(field(), SeverityError, fmt.Errorf("secret %s/%s not found (the routes are kept without this certificate)", ing.Namespace, excerpt.Text(entry.SecretName)))
			continue
		}
		cert, err := e.opts.certs.check(id, secret)
		if err != nil {
			p.errorf(field(), SeverityError, fmt.Errorf("secret %s/%s: %w (the routes are kept without this certificate)", ing.Namespace, entry.SecretName, err))
			continue
		}
		x.certs = append(x.certs, certUse{key: key, cert: cert})
	}
}

// appendNew appends s unless list holds it already.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// refusedExternalName applies the address rules of EndpointSlices to an
// ExternalName target: no metadata, link-local, multicast or unspecified IP
// literal, and no loopback (IP or localhost) unless allowed.
func (e *engine) refusedExternalName(name string) string {
	if ip, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		return endpoints.RefusedAddress(ip, e.opts.AllowLoopbackEndpoints)
	}
	return endpoints.RefusedName(name, e.opts.AllowLoopbackEndpoints)
}

// servicePort finds the Service port an Ingress backend refers to, by number
// or by name: the first that refersTo.
func servicePort(svc *corev1.Service, ref netv1.ServiceBackendPort) (corev1.ServicePort, bool) {
	for _, p := range svc.Spec.Ports {
		if refersTo(ref, p.Name, p.Port) {
			return p, true
		}
	}
	return corev1.ServicePort{}, false
}

// refersTo says whether an Ingress backend's port is the Service port of
// that name and number: by its name when it gives one, else by number.
func refersTo(ref netv1.ServiceBackendPort, name string, number int32) bool {
	if ref.Name != "" {
		return ref.Name == name
	}
	return ref.Number == number
}

func portString(ref netv1.ServiceBackendPort) string {
	if ref.Name != "" {
		return excerpt.Quote(ref.Name)
	}
	return strconv.Itoa(int(ref.Number))
}

// serverScheme is https for port 443 or a port name starting with https,
// else http, unless the service.serversscheme annotation says otherwise.
func serverScheme(p corev1.ServicePort, sa *serviceAnnotations) string {
	if sa.ServersScheme != "" {
		return sa.ServersScheme
	}
	if p.Port == 443 || strings.HasPrefix(p.Name, "https") {
		return "https"
	}
	return "http"
}

func (e *engine) endpointServers(en *serviceEntry, svc *corev1.Service, p corev1.ServicePort, scheme string, scratch *[]endpoints.Backend) []dynamic.Server {
	if scheme == preparedScheme {
		// The client's index chose them when the slices arrived.
		if sp := en.objs.selected.port(p.Name, e.indexSel, e.node, e.zone); sp != nil {
			en.sliceProblems(sp.problems)
			return sp.servers
		}
	}
	opts := e.sel.forService(svc, e.node, e.zone)
	// One buffer of backends (per goroutine of a parallel render) serves
	// every Service: they become URLs at once.
	var backends []endpoints.Backend
	var problems []*endpoints.Problem
	if en.objs.prepared != nil {
		backends, problems = endpoints.AppendSelectPrepared((*scratch)[:0], en.objs.prepared, p.Name, opts)
	} else {
		backends, problems = endpoints.AppendSelect((*scratch)[:0], en.objs.slices, p.Name, opts)
	}
	*scratch = backends[:0]
	en.sliceProblems(problems)
	if len(backends) == 0 {
		return nil
	}
	servers := make([]dynamic.Server, len(backends))
	if preparedURLs(servers, backends, scheme) {
		return servers
	}
	// All URLs of the service share one string, built at its exact size;
	// the text of a port is made once for the backends that share it (all
	// of them, mostly). The length of each URL is worked out once (on the
	// stack for most Services).
	var portBuf [8]byte
	var lenBuf [32]int
	lens := lenBuf[:0]
	if len(backends) > len(lenBuf) {
		lens = make([]int, 0, len(backends))
	}
	port, suffix := int32(-1), []byte(nil)
	size := 0
	for _, b := range backends {
		if b.Port != port {
			port, suffix = b.Port, portSuffix(&portBuf, b.Port)
		}
		n := urlLen(scheme, b.Address, suffix)
		lens = append(lens, n)
		size += n
	}
	var all strings.Builder
	all.Grow(size)
	for i, b := range backends {
		if b.Port != port {
			port, suffix = b.Port, portSuffix(&portBuf, b.Port)
		}
		all.WriteString(scheme)
		all.WriteString("://")
		if lens[i] > len(scheme)+len("://")+len(b.Address)+len(suffix) { // IPv6
			all.WriteByte('[')
			all.WriteString(b.Address)
			all.WriteByte(']')
		} else {
			all.WriteString(b.Address)
		}
		all.Write(suffix)
	}
	urls := all.String()
	var zero *int // the weight of fenced servers, shared by those of this service
	start := 0
	for i, b := range backends {
		end := start + lens[i]
		servers[i] = dynamic.Server{URL: urls[start:end]}
		start = end
		if b.Fenced {
			servers[i].Fenced = true
			// Traefik's file and HTTP providers do not know "fenced"; a
			// weight of 0 keeps new requests away there too.
			if zero == nil {
				zero = new(int)
			}
			servers[i].Weight = zero
		}
	}
	return servers
}

// sliceProblems files the problems of the Service's slices as warnings.
func (en *serviceEntry) sliceProblems(problems []*endpoints.Problem) {
	for _, pr := range problems {
		ns, name, _ := strings.Cut(pr.Slice, "/")
		en.errs = append(en.errs, &ObjectError{Kind: "EndpointSlice", Namespace: ns, Name: name, Field: pr.Field, Severity: SeverityWarning, Err: pr.Err})
	}
}

// preparedURLs fills servers from backends that all carry the URL Prepare
// wrote for scheme (those of the prepared slices of the client's index),
// and says whether they did; the URLs are parts of the slices' text.
func preparedURLs(servers []dynamic.Server, backends []endpoints.Backend, scheme string) bool {
	var zero *int // the weight of fenced servers, shared by those of this service
	for i, b := range backends {
		url, ok := b.URL(scheme)
		if !ok {
			return false
		}
		servers[i] = dynamic.Server{URL: url}
		if b.Fenced {
			if zero == nil {
				zero = new(int)
			}
			servers[i].Weight, servers[i].Fenced = zero, true
		}
	}
	return true
}

// portSuffix writes ":port" into buf.
func portSuffix(buf *[8]byte, port int32) []byte {
	return strconv.AppendInt(append(buf[:0], ':'), int64(port), 10)
}

// urlLen is the length of scheme://address followed by suffix, IPv6
// addresses in brackets.
func urlLen(scheme, address string, suffix []byte) int {
	n := len(scheme) + len("://") + len(address) + len(suffix)
	if strings.IndexByte(address, ':') >= 0 {
		n += 2
	}
	return n
}

func clusterIPServers(svc *corev1.Service, p corev1.ServicePort, scheme string) ([]dynamic.Server, error) {
	switch svc.Spec.ClusterIP {
	case corev1.ClusterIPNone:
		return nil, fmt.Errorf("service %s/%s is headless: it has no cluster IP for nativeLB", svc.Namespace, svc.Name)
	case "":
		return nil, fmt.Errorf("service %s/%s has no cluster IP for nativeLB", svc.Namespace, svc.Name)
	}
	return []dynamic.Server{{URL: scheme + "://" + net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(int(p.Port)))}}, nil
}

func (e *engine) nodePortServers(svc *corev1.Service, p corev1.ServicePort, scheme string) ([]dynamic.Server, error) {
	if p.NodePort == 0 {
		return nil, fmt.Errorf("service %s/%s port %d has no node port", svc.Namespace, svc.Name, p.Port)
	}
	port := strconv.Itoa(int(p.NodePort))
	seen := map[string]bool{}
	var servers []dynamic.Server
	for _, node := range e.snap.Nodes() {
		if node == nil {
			continue
		}
		for _, addr := range node.Status.Addresses {
			if addr.Type != corev1.NodeInternalIP || seen[addr.Address] {
				continue
			}
			seen[addr.Address] = true
			servers = append(servers, dynamic.Server{URL: scheme + "://" + net.JoinHostPort(addr.Address, port)})
		}
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("service %s/%s: no node has an internal IP for nodePortLB", svc.Namespace, svc.Name)
	}
	slices.SortFunc(servers, func(a, b dynamic.Server) int { return compareHostURLs(a.URL, b.URL) })
	return servers, nil
}

// compareHostURLs orders scheme://ip:port URLs by IP number, then as text.
func compareHostURLs(a, b string) int {
	ia, ea := urlAddr(a)
	ib, eb := urlAddr(b)
	if ea && eb {
		if c := ia.Compare(ib); c != 0 {
			return c
		}
	}
	return cmp.Compare(a, b)
}

func urlAddr(u string) (netip.Addr, bool) {
	_, hostport, _ := strings.Cut(u, "://")
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(host)
	return ip, err == nil
}
