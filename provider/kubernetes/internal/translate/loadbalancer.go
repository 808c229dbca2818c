package translate

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// LoadBalancer is what one Service port gives the Ingress paths that name
// it: the service of the configuration, or why there is none. Once built
// it is never modified: renders and the client's index share it.
type LoadBalancer struct {
	Service *dynamic.Service
	Err     error          // why the Service port has no load balancer
	Errs    []*ObjectError // problems of the Service and its slices, reported while it is used
	Nodes   bool           // built from the Nodes (node ports)
}

// NoServers says that the service was built without a server.
func (lb *LoadBalancer) NoServers() bool {
	return lb.Service != nil && len(lb.Service.LoadBalancer.Servers) == 0
}

// ServiceObjects are the objects a Service port's load balancer is built
// from: the Service (nil when there is none) and the EndpointSlices
// labelled with its name, sorted by name.
type ServiceObjects struct {
	Service *corev1.Service
	Slices  []*discoveryv1.EndpointSlice
	// Prepared[i] is Slices[i] prepared when it arrived (the client's
	// index), so that no render parses its addresses again; nil when the
	// snapshot has no index.
	Prepared []*endpoints.Prepared
	// Memo is the load balancers the index built from these objects; nil
	// without an index that builds them.
	Memo *LBMemo
}

// LBOptions are the options a load balancer depends on, besides where
// this proxy runs: how endpoints are chosen (Selection) and whether
// ExternalName Services are allowed.
type LBOptions struct {
	Selection         Selection
	AllowExternalName bool
	// BareServices (the ingress-nginx dialect) reads no annotation of
	// the Services and reaches every server over plain http, whatever its
	// port is named: the dialect's own annotations on the Ingress choose
	// the scheme, stickiness and transport, from the Ingress alone, so
	// that a load balancer rebuilt in place never changes what the
	// dialect derived from it.
	BareServices bool
	// ExternalNameTargetPort (the ingress-nginx dialect): an ExternalName
	// Service's server has the port's targetPort, as ingress-nginx
	// proxies to it, and a port number the Service does not list is
	// reached as such; else the Service port, as Traefik's providers do.
	ExternalNameTargetPort bool
	// CrossProvider is crossProviderNamespaces: which namespaces' Services
	// may name another provider's servers transport.
	CrossProvider CrossProviderNamespaces
	// NoNodes (disableClusterScopeResources): Nodes are never read, so a
	// node-port load balancer (service.nodeportlb) cannot be built.
	NoNodes bool
}

// Same says whether o and other build the same load balancers.
func (o *LBOptions) Same(other *LBOptions) bool {
	return o.Selection.same(other.Selection) && o.AllowExternalName == other.AllowExternalName && o.BareServices == other.BareServices &&
		o.ExternalNameTargetPort == other.ExternalNameTargetPort && o.CrossProvider == other.CrossProvider && o.NoNodes == other.NoNodes
}

// LBEnv is what building a load balancer reads besides the Service's
// objects: the options, where this proxy runs, the Nodes (for node
// ports), the memo of Service annotations, and which memos of the
// client's index hold (IndexOptions: the index's options when they are
// these, else nil). Its scratch buffer makes it single-threaded.
type LBEnv struct {
	Options      *LBOptions
	Node, Zone   string
	Nodes        func() []*corev1.Node // nil: node-port load balancers are not built (the index)
	Memos        *Memos                // its Service annotations
	IndexOptions *LBOptions
	backends     []endpoints.Backend
}

// Build returns the load balancer of the Service port key, built from
// objs (nil when there is no such Service), or taken from the index's
// memo of them.
func (b *LBEnv) Build(objs *ServiceObjects, key PortKey) LoadBalancer {
	namespace, name := key.Service.Namespace, key.Service.Name
	var svc *corev1.Service
	if objs != nil {
		svc = objs.Service
	}
	if svc == nil {
		return LoadBalancer{Err: fmt.Errorf("service %s/%s not found", namespace, excerpt.Text(name))}
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName && !b.Options.AllowExternalName {
		return LoadBalancer{Err: fmt.Errorf("service %s/%s is of type ExternalName, which allowExternalNameServices does not allow", namespace, name)}
	}
	i := servicePort(svc, key.Port)
	if i < 0 && svc.Spec.Type == corev1.ServiceTypeExternalName && b.Options.ExternalNameTargetPort && key.Port.Name == "" && key.Port.Number > 0 {
		// Not memoised: ExternalName Services never are.
		lb, _ := b.buildPort(objs, corev1.ServicePort{Port: key.Port.Number, TargetPort: intstr.FromInt32(key.Port.Number), Protocol: corev1.ProtocolTCP})
		return lb
	}
	if i < 0 {
		return LoadBalancer{Err: fmt.Errorf("service %s/%s has no port %s", namespace, name, portString(key.Port))}
	}
	if p := svc.Spec.Ports[i]; p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
		return LoadBalancer{Err: fmt.Errorf("service %s/%s port %s is %s, not TCP", namespace, name, portString(key.Port), excerpt.Text(string(p.Protocol)))}
	}
	if m := objs.Memo; m != nil && m.opts == b.IndexOptions && (!m.hinted || b.Node == "" && b.Zone == "") && m.ports[i] != nil {
		return *m.ports[i]
	}
	lb, _ := b.BuildPort(objs, i)
	return lb
}

// BuildPort builds the load balancer of port i of objs.Service, a TCP port of
// a Service this render may use: what depends on the Service's objects
// and the port alone, which the client's index memoises. It says false,
// building nothing, when the load balancer is made of the Nodes and b
// has none.
func (b *LBEnv) BuildPort(objs *ServiceObjects, i int) (LoadBalancer, bool) {
	return b.buildPort(objs, objs.Service.Spec.Ports[i])
}

// buildPort is BuildPort of portSpec, a port of objs.Service or, for an
// ExternalName Service, one its backend names.
func (b *LBEnv) buildPort(objs *ServiceObjects, portSpec corev1.ServicePort) (LoadBalancer, bool) {
	svc := objs.Service
	annotations := svc.Annotations
	if b.Options.BareServices {
		annotations = nil
	}
	sa, err := b.Memos.serviceSets.parse(annotations, parseServiceAnnotations)
	if err == nil {
		// Checked here, not in the memo: it depends on the namespace.
		if ae := crossProviderTransport(svc.Namespace, sa, annotations, b.Options.CrossProvider); ae != nil {
			err = ae
		}
	}
	if err != nil {
		lb := LoadBalancer{Err: fmt.Errorf("service %s/%s has an invalid annotation: %w", svc.Namespace, svc.Name, err)}
		var ae *annotationError
		if errors.As(err, &ae) {
			lb.Errs = []*ObjectError{{Kind: "Service", Namespace: svc.Namespace, Name: svc.Name, Field: ae.field(), Severity: SeverityError, Err: ae.Err}}
		}
		return lb, true
	}
	byNodes := sa.NodePortLB && svc.Spec.Type == corev1.ServiceTypeNodePort
	if byNodes && b.Options.NoNodes {
		return LoadBalancer{Err: fmt.Errorf("service %s/%s: service.nodeportlb needs the cluster's Nodes, which disableClusterScopeResources keeps the provider from reading", svc.Namespace, svc.Name)}, true
	}
	if byNodes && b.Nodes == nil {
		return LoadBalancer{}, false
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
	if len(sa.Middlewares) > 0 {
		service.Middlewares = slices.Clone(sa.Middlewares)
	}
	scheme := serverScheme(portSpec, sa)
	if b.Options.BareServices {
		scheme = "http"
	}
	nativeLB := b.Options.Selection.NativeLB
	if sa.NativeLB != nil {
		nativeLB = *sa.NativeLB
	}

	out := LoadBalancer{}
	switch {
	case byNodes:
		out.Nodes = true
		lb.Servers, err = nodePortServers(b.Nodes(), svc, portSpec, scheme)
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		if reason := refusedExternalName(svc.Spec.ExternalName, b.Options.Selection.Endpoints.AllowLoopback); reason != "" {
			out.Err = fmt.Errorf("service %s/%s: externalName %s is %s: never used as a server", svc.Namespace, svc.Name, excerpt.Quote(svc.Spec.ExternalName), reason)
			return out, true
		}
		port := portSpec.Port
		if tp := portSpec.TargetPort; b.Options.ExternalNameTargetPort && tp.Type == intstr.Int && tp.IntVal > 0 {
			port = tp.IntVal
		}
		lb.Servers = []dynamic.Server{{URL: serverURL(scheme, svc.Spec.ExternalName, port)}}
	case nativeLB:
		lb.Servers, err = clusterIPServers(svc, portSpec, scheme)
	default:
		lb.Servers, out.Errs = b.endpointServers(objs, portSpec, scheme)
	}
	if err != nil {
		out.Err = err
		return out, true
	}
	out.Service = service
	return out, true
}

// endpointServers chooses the servers of a Service port from its
// EndpointSlices, and files the problems of the slices as warnings.
func (b *LBEnv) endpointServers(objs *ServiceObjects, p corev1.ServicePort, scheme string) ([]dynamic.Server, []*ObjectError) {
	opts := b.Options.Selection.forService(objs.Service, b.Node, b.Zone)
	var backends []endpoints.Backend
	var problems []*endpoints.Problem
	if objs.Prepared != nil {
		backends, problems = endpoints.AppendSelectPrepared(b.backends[:0], objs.Prepared, p.Name, opts)
	} else {
		backends, problems = endpoints.AppendSelect(b.backends[:0], objs.Slices, p.Name, opts)
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
