package ingress

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// loadBalancer is what one Service port gives the Ingress paths that name
// it: the service of the configuration, or why there is none. Once built
// it is never modified: renders and the client's index share it.
type loadBalancer struct {
	service *dynamic.Service
	err     error          // why the Service port has no load balancer
	errs    []*ObjectError // problems of the Service and its slices, reported while it is used
	nodes   bool           // built from the Nodes (node ports)
}

// noServers says that the service was built without a server.
func (lb *loadBalancer) noServers() bool {
	return lb.service != nil && len(lb.service.LoadBalancer.Servers) == 0
}

// serviceObjects are the objects a Service port's load balancer is built
// from: the Service (nil when there is none) and the EndpointSlices
// labelled with its name, sorted by name.
type serviceObjects struct {
	svc    *corev1.Service
	slices []*discoveryv1.EndpointSlice
	// prepared[i] is slices[i] prepared when it arrived (the client's
	// index), so that no render parses its addresses again; nil when the
	// snapshot has no index.
	prepared []*endpoints.Prepared
	// memo is the load balancers the index built from these objects; nil
	// without an index that builds them.
	memo *lbMemo
}

// lbMemo is the load balancers the client's index built for each port of
// a Service when its objects arrived, with the index's options, for a
// proxy whose node and zone are not known. A render whose options are the
// index's takes them instead of building its own: they come from the same
// builder (lbEnv.buildPort), so both give the same.
type lbMemo struct {
	opts *lbOptions // the index's
	// hinted says that an endpoint of the slices has topology hints: the
	// memo then holds only for a proxy whose node and zone are unknown.
	hinted bool
	ports  []*loadBalancer // by the index of the Service's port; nil where a render builds it (node ports)
}

// lbOptions are the options a load balancer depends on, besides where
// this proxy runs: how endpoints are chosen (selection) and whether
// ExternalName Services are allowed.
type lbOptions struct {
	sel               selection
	allowExternalName bool
}

func newLBOptions(p *Provider) *lbOptions {
	return &lbOptions{sel: newSelection(p), allowExternalName: p.AllowExternalNameServices}
}

func (o *lbOptions) same(other *lbOptions) bool {
	return o.sel.same(other.sel) && o.allowExternalName == other.allowExternalName
}

// lbEnv is what building a load balancer reads besides the Service's
// objects: the options, where this proxy runs, the Nodes (for node
// ports), the memo of Service annotations, and which memos of the
// client's index hold (memoOpts: the index's options when they are
// these, else nil). Its scratch buffer makes it single-threaded.
type lbEnv struct {
	opts        *lbOptions
	node, zone  string
	nodes       func() []*corev1.Node // nil: node-port load balancers are not built (the index)
	serviceSets *annotationMemo[*serviceAnnotations]
	memoOpts    *lbOptions
	backends    []endpoints.Backend
}

// build returns the load balancer of the Service port key, built from
// objs (nil when there is no such Service), or taken from the index's
// memo of them.
func (b *lbEnv) build(objs *serviceObjects, key portKey) loadBalancer {
	namespace, name := key.svc.namespace, key.svc.name
	var svc *corev1.Service
	if objs != nil {
		svc = objs.svc
	}
	if svc == nil {
		return loadBalancer{err: fmt.Errorf("service %s/%s not found", namespace, excerpt.Text(name))}
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName && !b.opts.allowExternalName {
		return loadBalancer{err: fmt.Errorf("service %s/%s is of type ExternalName, which allowExternalNameServices does not allow", namespace, name)}
	}
	i := servicePort(svc, key.port)
	if i < 0 {
		return loadBalancer{err: fmt.Errorf("service %s/%s has no port %s", namespace, name, portString(key.port))}
	}
	if p := svc.Spec.Ports[i]; p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
		return loadBalancer{err: fmt.Errorf("service %s/%s port %s is %s, not TCP", namespace, name, portString(key.port), excerpt.Text(string(p.Protocol)))}
	}
	if m := objs.memo; m != nil && m.opts == b.memoOpts && (!m.hinted || b.node == "" && b.zone == "") && m.ports[i] != nil {
		return *m.ports[i]
	}
	lb, _ := b.buildPort(objs, i)
	return lb
}

// buildPort builds the load balancer of port i of objs.svc, a TCP port of
// a Service this render may use: what depends on the Service's objects
// and the port alone, which the client's index memoises. It says false,
// building nothing, when the load balancer is made of the Nodes and b
// has none.
func (b *lbEnv) buildPort(objs *serviceObjects, i int) (loadBalancer, bool) {
	svc := objs.svc
	portSpec := svc.Spec.Ports[i]
	sa, err := b.serviceSets.parse(svc.Annotations, parseServiceAnnotations)
	if err != nil {
		lb := loadBalancer{err: fmt.Errorf("service %s/%s has an invalid annotation: %w", svc.Namespace, svc.Name, err)}
		var ae *annotationError
		if errors.As(err, &ae) {
			lb.errs = []*ObjectError{{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name, Field: ae.field(), Severity: SeverityError, Err: ae.Err}}
		}
		return lb, true
	}
	byNodes := sa.NodePortLB && svc.Spec.Type == corev1.ServiceTypeNodePort
	if byNodes && b.nodes == nil {
		return loadBalancer{}, false
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
	nativeLB := b.opts.sel.nativeLB
	if sa.NativeLB != nil {
		nativeLB = *sa.NativeLB
	}

	out := loadBalancer{}
	switch {
	case byNodes:
		out.nodes = true
		lb.Servers, err = nodePortServers(b.nodes(), svc, portSpec, scheme)
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		if reason := refusedExternalName(svc.Spec.ExternalName, b.opts.sel.opts.AllowLoopback); reason != "" {
			out.err = fmt.Errorf("service %s/%s: externalName %s is %s: never used as a server", svc.Namespace, svc.Name, excerpt.Quote(svc.Spec.ExternalName), reason)
			return out, true
		}
		lb.Servers = []dynamic.Server{{URL: serverURL(scheme, svc.Spec.ExternalName, portSpec.Port)}}
	case nativeLB:
		lb.Servers, err = clusterIPServers(svc, portSpec, scheme)
	default:
		lb.Servers, out.errs = b.endpointServers(objs, portSpec, scheme)
	}
	if err != nil {
		out.err = err
		return out, true
	}
	out.service = service
	return out, true
}

// endpointServers chooses the servers of a Service port from its
// EndpointSlices, and files the problems of the slices as warnings.
func (b *lbEnv) endpointServers(objs *serviceObjects, p corev1.ServicePort, scheme string) ([]dynamic.Server, []*ObjectError) {
	opts := b.opts.sel.forService(objs.svc, b.node, b.zone)
	var backends []endpoints.Backend
	var problems []*endpoints.Problem
	if objs.prepared != nil {
		backends, problems = endpoints.AppendSelectPrepared(b.backends[:0], objs.prepared, p.Name, opts)
	} else {
		backends, problems = endpoints.AppendSelect(b.backends[:0], objs.slices, p.Name, opts)
	}
	b.backends = backends[:0] // one buffer serves every Service: the backends become servers at once
	var errs []*ObjectError
	for _, pr := range problems {
		ns, name, _ := strings.Cut(pr.Slice, "/")
		errs = append(errs, &ObjectError{Kind: "EndpointSlice", Namespace: ns, Name: name, Field: pr.Field, Severity: SeverityWarning, Err: pr.Err})
	}
	if len(backends) == 0 {
		return nil, errs
	}
	servers := make([]dynamic.Server, len(backends))
	var zero *int // the weight of fenced servers, shared by those of this service
	for i, be := range backends {
		url, ok := be.URL(scheme) // written when the slice was prepared
		if !ok {
			url = serverURL(scheme, be.Address, be.Port)
		}
		servers[i] = dynamic.Server{URL: url}
		if be.Fenced {
			// Traefik's file and HTTP providers do not know "fenced"; a
			// weight of 0 keeps new requests away there too.
			if zero == nil {
				zero = new(int)
			}
			servers[i].Weight, servers[i].Fenced = zero, true
		}
	}
	return servers, errs
}

// servicePort is the index of the Service port an Ingress backend refers
// to, by name or by number: the first that refersTo; -1 when none does.
func servicePort(svc *corev1.Service, ref netv1.ServiceBackendPort) int {
	for i, p := range svc.Spec.Ports {
		if refersTo(ref, p.Name, p.Port) {
			return i
		}
	}
	return -1
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
	return fmt.Sprint(ref.Number)
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

// refusedExternalName applies the address rules of EndpointSlices to an
// ExternalName target: no metadata, link-local, multicast or unspecified IP
// literal, and no loopback (IP or localhost) unless allowed.
func refusedExternalName(name string, allowLoopback bool) string {
	if ip, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		return endpoints.RefusedAddress(ip, allowLoopback)
	}
	return endpoints.RefusedName(name, allowLoopback)
}
