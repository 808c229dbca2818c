package ingress

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/natural"
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
type Result struct {
	Configuration *dynamic.Configuration
	Errors        []*ObjectError
	// Ingresses are the Ingresses this provider serves (their class is
	// ours), whether or not all their paths could be used: the status
	// writer publishes the load-balancer address on them.
	Ingresses []*netv1.Ingress
	// NeedsNodes says that a Service asked for node ports (service.nodeportlb):
	// the Nodes must be watched for its servers.
	NeedsNodes bool
}

// Translate builds the dynamic configuration of a cluster snapshot. It is
// pure: it reads the snapshot, never writes to it, never logs, and reports
// what is wrong with an object as an ObjectError while building the rest.
func Translate(snap Snapshot, opts *Provider) *Result {
	t := &translator{
		snap:     snap,
		opts:     opts,
		services: map[string]*builtService{},
		routers:  map[string][]*pendingRouter{},
		certs:    map[string]*dynamic.CertAndStores{},
		conf: &dynamic.Configuration{
			HTTP: &dynamic.HTTPConfiguration{
				Routers:     map[string]*dynamic.Router{},
				Services:    map[string]*dynamic.Service{},
				Middlewares: map[string]*dynamic.Middleware{},
			},
		},
	}
	policy, err := endpoints.ParseTerminatingPolicy(opts.TerminatingEndpoints)
	if err != nil {
		policy = endpoints.TerminatingFallback
	}
	t.selectOpts = endpoints.Options{
		Terminating:   policy,
		AllowFQDN:     opts.AllowFQDNEndpoints,
		AllowLoopback: opts.AllowLoopbackEndpoints,
		Managers:      opts.EndpointSliceManagers,
	}
	t.locate()
	t.run()
	return &Result{Configuration: t.conf, Errors: t.errs, Ingresses: t.served, NeedsNodes: t.needsNodes}
}

type translator struct {
	snap       Snapshot
	opts       *Provider
	selectOpts endpoints.Options

	conf     *dynamic.Configuration
	errs     []*ObjectError
	services map[string]*builtService    // by service key, built once per translation
	routers  map[string][]*pendingRouter // by router key, before conflicts are resolved
	certs    map[string]*dynamic.CertAndStores

	defaultBackendOwner string // namespace/name of the Ingress whose default backend is used
	served              []*netv1.Ingress
	needsNodes          bool
}

type builtService struct {
	service *dynamic.Service
	err     error
}

type pendingRouter struct {
	router  *dynamic.Router
	service *dynamic.Service // added with the router, so no service is left without one
	ing     *netv1.Ingress   // for errors
	path    pathRef          // the Ingress path it comes from, for errors
	order   int
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

func (t *translator) report(e *ObjectError) { t.errs = append(t.errs, e) }

// locate finds where the proxy runs, for topology hints: the node from the
// options (or NODE_NAME, resolved by Init), the zone from the options or
// else from the Node's zone label, which needs the Nodes watched.
func (t *translator) locate() {
	node, zone := t.opts.nodeName, ""
	if tp := t.opts.Topology; tp != nil {
		if tp.Node != "" {
			node = tp.Node
		}
		zone = tp.Zone
	}
	if node != "" && zone == "" {
		t.needsNodes = true
		if nodes := t.snap.Nodes(); nodes != nil {
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
				t.report(&ObjectError{Kind: "Node", Name: node, Severity: SeverityWarning,
					Err: errors.New("this proxy's node (topology.node or NODE_NAME) does not exist: zone hints are not used")})
			case zone == "":
				t.report(&ObjectError{Kind: "Node", Name: node, Field: "metadata.labels[" + corev1.LabelTopologyZone + "]", Severity: SeverityWarning,
					Err: errors.New("this proxy's node has no zone label: zone hints are not used (set topology.zone)")})
			}
		}
	}
	t.selectOpts.Node, t.selectOpts.Zone = node, zone
}

func (t *translator) ingressError(ing *netv1.Ingress, field string, sev Severity, err error) {
	t.report(&ObjectError{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name, Field: field, Severity: sev, Err: err})
}

func (t *translator) run() {
	classes := t.classes()
	ingresses := slices.Clone(t.snap.Ingresses())
	// Oldest first, so that a newer Ingress cannot take the default backend
	// of an older one; names break ties so the order is total.
	slices.SortFunc(ingresses, func(a, b *netv1.Ingress) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	order := 0
	for _, ing := range ingresses {
		if ing == nil || !classes.serves(ing, t.opts.IngressClass) {
			continue
		}
		t.served = append(t.served, ing)
		order = t.ingress(ing, order)
	}
	t.resolveRouters()
	t.finishCerts()
	slices.SortStableFunc(t.errs, func(a, b *ObjectError) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.Name, b.Name), natural.Compare(a.Field, b.Field))
	})
	t.errs = slices.CompactFunc(t.errs, func(a, b *ObjectError) bool { return a.Error() == b.Error() })
}

// classSet is what the IngressClasses of the cluster say about which
// Ingresses are ours.
type classSet struct {
	ours          map[string]bool
	defaultExists bool
	defaultIsOurs bool
}

func (t *translator) classes() classSet {
	cs := classSet{ours: map[string]bool{}}
	for _, ic := range t.snap.IngressClasses() {
		if ic == nil {
			continue
		}
		isDefault := ic.Annotations[AnnotationDefaultClass] == "true"
		ours := ic.Spec.Controller == ControllerName && (t.opts.IngressClass == "" || ic.Name == t.opts.IngressClass)
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

func (t *translator) ingress(ing *netv1.Ingress, order int) int {
	ra, err := parseRouterAnnotations(ing.Annotations)
	if err != nil {
		field := "metadata.annotations"
		var ae *annotationError
		if errors.As(err, &ae) {
			field = fmt.Sprintf("metadata.annotations[%s]", ae.Annotation)
			err = ae.Err
		}
		t.ingressError(ing, field, SeverityError, fmt.Errorf("%w (the Ingress is skipped)", err))
		return order
	}

	t.ingressCerts(ing)

	if db := ing.Spec.DefaultBackend; db != nil {
		t.defaultBackend(ing, db, ra)
	}

	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		if err := checkHost(rule.Host); err != nil {
			t.ingressError(ing, "spec.rules["+strconv.Itoa(i)+"].host", SeverityError, fmt.Errorf("%w (the rule is skipped)", err))
			continue
		}
		for j, path := range rule.HTTP.Paths {
			ref := pathRef{rule: i, path: j}
			if err := checkPath(path, ra.PathMatcher); err != nil {
				t.ingressError(ing, ref.String()+".path", SeverityError, fmt.Errorf("%w (the path is skipped)", err))
				continue
			}
			svc, key, port, ok := t.backend(ing, ref, path.Backend)
			if !ok {
				continue
			}
			pr := newPendingRouter(ra, key)
			pr.service, pr.ing, pr.path, pr.order = svc, ing, ref, order
			rt := pr.router
			rt.Rule = buildRule(rule.Host, path, ra.PathMatcher, t.opts.StrictPrefixMatching)
			rt.Priority = ra.Priority
			if rt.Priority == 0 && t.opts.StrictPrefixMatching {
				rt.Priority = specPriority(rule.Host, path)
			}
			setObservability(rt, &pr.obs, ing, path.Backend.Service.Name, port)
			rk := routerKey(ing.Namespace, ing.Name, rule.Host, path.Path)
			t.routers[rk] = append(t.routers[rk], &pr.pendingRouter)
			order++
		}
	}
	return order
}

// routerAlloc holds a router and everything it points to, so that a router
// costs one allocation instead of five.
type routerAlloc struct {
	pendingRouter
	rt  dynamic.Router
	obs observabilityAlloc
}

type observabilityAlloc struct {
	cfg dynamic.RouterObservabilityConfig
	md  dynamic.ObservabilityMetadata
	ing dynamic.IngressMetadata
}

func newPendingRouter(ra *routerAnnotations, service string) *routerAlloc {
	a := &routerAlloc{}
	a.router = &a.rt
	fillRouter(&a.rt, ra, service)
	return a
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

func (t *translator) defaultBackend(ing *netv1.Ingress, db *netv1.IngressBackend, ra *routerAnnotations) {
	self := ing.Namespace + "/" + ing.Name
	if t.defaultBackendOwner != "" {
		t.ingressError(ing, "spec.defaultBackend", SeverityError,
			fmt.Errorf("the default backend is already defined by Ingress %s, which is older", t.defaultBackendOwner))
		return
	}
	svc, _, port, ok := t.backend(ing, pathRef{rule: -1}, *db)
	if !ok {
		return
	}
	t.defaultBackendOwner = self
	rt := newRouter(ra, DefaultBackendName)
	rt.Rule = `PathPrefix("/")`
	rt.Priority = math.MinInt32
	setObservability(rt, &observabilityAlloc{}, ing, db.Service.Name, port)
	t.conf.HTTP.Routers[DefaultRouterName] = rt
	t.conf.HTTP.Services[DefaultBackendName] = svc
}

// backend resolves an Ingress backend to its service, building it on first
// use, and returns the service's key. It reports why when it cannot.
func (t *translator) backend(ing *netv1.Ingress, ref pathRef, b netv1.IngressBackend) (svc *dynamic.Service, key, port string, ok bool) {
	if b.Resource != nil {
		t.ingressError(ing, ref.backend()+".resource", SeverityError, errors.New("resource backends are not supported"))
		return nil, "", "", false
	}
	if b.Service == nil {
		t.ingressError(ing, ref.backend()+".service", SeverityError, errors.New("no service is given"))
		return nil, "", "", false
	}
	port = b.Service.Port.Name
	if port == "" {
		port = strconv.Itoa(int(b.Service.Port.Number))
	}
	key = serviceKey(ing.Namespace, b.Service.Name, port)
	built, seen := t.services[key]
	if !seen {
		svc, err := t.buildService(ing.Namespace, b.Service)
		built = &builtService{service: svc, err: err}
		t.services[key] = built
	}
	if built.err != nil {
		t.ingressError(ing, ref.backend()+".service", SeverityError, built.err)
		return nil, "", "", false
	}
	if len(built.service.LoadBalancer.Servers) == 0 && !t.opts.AllowEmptyServices {
		t.ingressError(ing, ref.backend()+".service", SeverityError,
			fmt.Errorf("service %s/%s port %s has no servers (the path is skipped; allowEmptyServices keeps it)", ing.Namespace, b.Service.Name, port))
		return nil, "", "", false
	}
	return built.service, key, port, true
}

// buildService builds the load balancer of one Service port.
func (t *translator) buildService(namespace string, sb *netv1.IngressServiceBackend) (*dynamic.Service, error) {
	svc := t.snap.Service(namespace, sb.Name)
	if svc == nil {
		return nil, fmt.Errorf("service %s/%s not found", namespace, sb.Name)
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName && !t.opts.AllowExternalNameServices {
		return nil, fmt.Errorf("service %s/%s is of type ExternalName, which allowExternalNameServices does not allow", namespace, sb.Name)
	}
	portSpec, found := servicePort(svc, sb.Port)
	if !found {
		return nil, fmt.Errorf("service %s/%s has no port %s", namespace, sb.Name, portString(sb.Port))
	}
	if portSpec.Protocol != "" && portSpec.Protocol != corev1.ProtocolTCP {
		return nil, fmt.Errorf("service %s/%s port %s is %s, not TCP", namespace, sb.Name, portString(sb.Port), portSpec.Protocol)
	}
	sa, err := parseServiceAnnotations(svc.Annotations)
	if err != nil {
		var ae *annotationError
		if errors.As(err, &ae) {
			t.report(&ObjectError{Kind: "Service", Namespace: namespace, Name: sb.Name,
				Field: fmt.Sprintf("metadata.annotations[%s]", ae.Annotation), Severity: SeverityError, Err: ae.Err})
		}
		return nil, fmt.Errorf("service %s/%s has an invalid annotation: %w", namespace, sb.Name, err)
	}

	lb := dynamic.NewServersLoadBalancer()
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

	nativeLB := t.opts.NativeLBByDefault
	if sa.NativeLB != nil {
		nativeLB = *sa.NativeLB
	}

	switch {
	case sa.NodePortLB && svc.Spec.Type == corev1.ServiceTypeNodePort:
		t.needsNodes = true
		lb.Servers, err = t.nodePortServers(svc, portSpec, scheme)
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		if reason := t.refusedExternalName(svc.Spec.ExternalName); reason != "" {
			return nil, fmt.Errorf("service %s/%s: externalName %q is %s: never used as a server", namespace, sb.Name, svc.Spec.ExternalName, reason)
		}
		lb.Servers = []dynamic.Server{{URL: scheme + "://" + net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(portSpec.Port)))}}
	case nativeLB:
		lb.Servers, err = clusterIPServers(svc, portSpec, scheme)
	default:
		lb.Servers = t.endpointServers(svc, portSpec, scheme)
	}
	if err != nil {
		return nil, err
	}
	return &dynamic.Service{LoadBalancer: lb}, nil
}

// refusedExternalName applies the address rules of EndpointSlices to an
// ExternalName target: no metadata, link-local, multicast or unspecified IP
// literal, and no loopback (IP or localhost) unless allowed.
func (t *translator) refusedExternalName(name string) string {
	if ip, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		return endpoints.RefusedAddress(ip, t.opts.AllowLoopbackEndpoints)
	}
	return endpoints.RefusedName(name, t.opts.AllowLoopbackEndpoints)
}

// servicePort finds the Service port an Ingress backend refers to, by number
// or by name.
func servicePort(svc *corev1.Service, ref netv1.ServiceBackendPort) (corev1.ServicePort, bool) {
	for _, p := range svc.Spec.Ports {
		if (ref.Name == "" && ref.Number == p.Port) || (ref.Name != "" && ref.Name == p.Name) {
			return p, true
		}
	}
	return corev1.ServicePort{}, false
}

func portString(ref netv1.ServiceBackendPort) string {
	if ref.Name != "" {
		return strconv.Quote(ref.Name)
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

// addressTypes are the slice address types to use for a Service, by the
// ipFamily option: the Service's primary family, one family, or both. A
// Service without ipFamilies (headless, ExternalName, old objects) uses both.
func (t *translator) addressTypes(svc *corev1.Service) []discoveryv1.AddressType {
	switch strings.ToLower(t.opts.IPFamily) {
	case IPFamilyIPv4:
		return []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4}
	case IPFamilyIPv6:
		return []discoveryv1.AddressType{discoveryv1.AddressTypeIPv6}
	case IPFamilyAll:
		return nil
	}
	if len(svc.Spec.IPFamilies) == 0 {
		return nil
	}
	switch svc.Spec.IPFamilies[0] {
	case corev1.IPv4Protocol:
		return []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4}
	case corev1.IPv6Protocol:
		return []discoveryv1.AddressType{discoveryv1.AddressTypeIPv6}
	}
	return nil
}

func (t *translator) endpointServers(svc *corev1.Service, p corev1.ServicePort, scheme string) []dynamic.Server {
	opts := t.selectOpts
	opts.AddressTypes = t.addressTypes(svc)
	opts.PublishNotReady = svc.Spec.PublishNotReadyAddresses
	backends, problems := endpoints.Select(t.snap.EndpointSlices(svc.Namespace, svc.Name), p.Name, opts)
	for _, pr := range problems {
		ns, name, _ := strings.Cut(pr.Slice, "/")
		t.report(&ObjectError{Kind: "EndpointSlice", Namespace: ns, Name: name, Field: pr.Field, Severity: SeverityWarning, Err: pr.Err})
	}
	if len(backends) == 0 {
		return nil
	}
	servers := make([]dynamic.Server, len(backends))
	// All URLs of the service share one string, built at its exact size.
	size := 0
	for _, b := range backends {
		size += urlLen(scheme, b.Address, b.Port)
	}
	var all strings.Builder
	all.Grow(size)
	var scratch [64]byte
	for _, b := range backends {
		all.Write(appendURL(scratch[:0], scheme, b.Address, b.Port))
	}
	urls := all.String()
	start := 0
	for i, b := range backends {
		end := start + urlLen(scheme, b.Address, b.Port)
		servers[i] = dynamic.Server{URL: urls[start:end]}
		start = end
		if b.Fenced {
			servers[i].Fenced = true
			// Traefik's file and HTTP providers do not know "fenced"; a
			// weight of 0 keeps new requests away there too.
			servers[i].Weight = new(int)
		}
	}
	return servers
}

// urlLen is the length of the URL appendURL writes.
func urlLen(scheme, address string, port int32) int {
	n := len(scheme) + len("://") + len(address) + len(":")
	if strings.IndexByte(address, ':') >= 0 {
		n += 2
	}
	for p := port; ; p /= 10 {
		n++
		if p < 10 {
			break
		}
	}
	return n
}

// appendURL appends scheme://address:port, IPv6 addresses in brackets.
func appendURL(buf []byte, scheme, address string, port int32) []byte {
	buf = append(buf, scheme...)
	buf = append(buf, "://"...)
	if strings.IndexByte(address, ':') >= 0 {
		buf = append(buf, '[')
		buf = append(buf, address...)
		buf = append(buf, ']')
	} else {
		buf = append(buf, address...)
	}
	buf = append(buf, ':')
	return strconv.AppendInt(buf, int64(port), 10)
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

func (t *translator) nodePortServers(svc *corev1.Service, p corev1.ServicePort, scheme string) ([]dynamic.Server, error) {
	if p.NodePort == 0 {
		return nil, fmt.Errorf("service %s/%s port %d has no node port", svc.Namespace, svc.Name, p.Port)
	}
	port := strconv.Itoa(int(p.NodePort))
	seen := map[string]bool{}
	var servers []dynamic.Server
	for _, node := range t.snap.Nodes() {
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

// resolveRouters puts the routers in the configuration under their keys;
// routers that share a key get the hash of their rule appended.
func (t *translator) resolveRouters() {
	keys := make([]string, 0, len(t.routers))
	for k := range t.routers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		prs := t.routers[key]
		// A path whose key is the default backend's router name is renamed
		// like a conflict, so that neither hides the other.
		_, reserved := t.conf.HTTP.Routers[key]
		if len(prs) == 1 && !reserved {
			t.addRouter(key, prs[0])
			continue
		}
		slices.SortFunc(prs, func(a, b *pendingRouter) int { return cmp.Compare(a.order, b.order) })
		for _, pr := range prs {
			t.addRouter(hashedRouterKey(key, pr.router.Rule), pr)
		}
	}
}

func (t *translator) addRouter(key string, pr *pendingRouter) {
	if _, taken := t.conf.HTTP.Routers[key]; taken {
		t.report(&ObjectError{Kind: "Ingress", Namespace: pr.ing.Namespace, Name: pr.ing.Name, Field: pr.path.String(), Severity: SeverityError,
			Err: fmt.Errorf("router %s is already defined with the same rule by an older path; this one is skipped", key)})
		return
	}
	t.conf.HTTP.Routers[key] = pr.router
	t.conf.HTTP.Services[pr.router.Service] = pr.service
}

// ingressCerts loads the certificates of the Ingress's spec.tls entries.
func (t *translator) ingressCerts(ing *netv1.Ingress) {
	for i, entry := range ing.Spec.TLS {
		if entry.SecretName == "" {
			continue
		}
		key := ing.Namespace + "-" + entry.SecretName
		if _, done := t.certs[key]; done {
			continue
		}
		field := fmt.Sprintf("spec.tls[%d].secretName", i)
		secret := t.snap.Secret(ing.Namespace, entry.SecretName)
		if secret == nil {
			t.ingressError(ing, field, SeverityError, fmt.Errorf("secret %s/%s not found (the routes are kept without this certificate)", ing.Namespace, entry.SecretName))
			continue
		}
		cert, err := (&t.opts.certs).check(secret)
		if err != nil {
			t.ingressError(ing, field, SeverityError, fmt.Errorf("secret %s/%s: %w (the routes are kept without this certificate)", ing.Namespace, entry.SecretName, err))
			continue
		}
		t.certs[key] = cert
	}
}

func (t *translator) finishCerts() {
	if len(t.certs) == 0 {
		return
	}
	keys := make([]string, 0, len(t.certs))
	for k := range t.certs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	certs := make([]*dynamic.CertAndStores, 0, len(keys))
	for _, k := range keys {
		certs = append(certs, t.certs[k])
	}
	t.conf.TLS = &dynamic.TLSConfiguration{Certificates: certs}
}
