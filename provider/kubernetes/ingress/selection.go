package ingress

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/endpoints"
)

// selection is how the endpoints of a Service port are chosen: the
// options of endpoints.Select that the provider's options give (every one
// but where this proxy runs, which a render finds out, and those the
// Service itself gives), the ipFamily option, and nativeLBByDefault, which
// decides whether endpoints are used at all.
type selection struct {
	opts     endpoints.Options // without AddressTypes, PublishNotReady, Node and Zone
	ipFamily string            // in lower case
	nativeLB bool
}

func newSelection(p *Provider) selection {
	policy, err := endpoints.ParseTerminatingPolicy(p.TerminatingEndpoints)
	if err != nil {
		policy = endpoints.TerminatingFallback // Init refuses it; an embedder's renders get the default
	}
	return selection{
		opts: endpoints.Options{
			Terminating:   policy,
			AllowFQDN:     p.AllowFQDNEndpoints,
			AllowLoopback: p.AllowLoopbackEndpoints,
			Managers:      slices.Clone(p.EndpointSliceManagers),
		},
		ipFamily: strings.ToLower(p.IPFamily),
		nativeLB: p.NativeLBByDefault,
	}
}

// same says whether s and o choose the same endpoints of every Service.
func (s selection) same(o selection) bool {
	return s.opts.Terminating == o.opts.Terminating && s.opts.AllowFQDN == o.opts.AllowFQDN &&
		s.opts.AllowLoopback == o.opts.AllowLoopback && slices.Equal(s.opts.Managers, o.opts.Managers) &&
		s.ipFamily == o.ipFamily && s.nativeLB == o.nativeLB
}

// forService is the options for the slices of svc, with node and zone
// (where this proxy runs, "" when not known).
func (s selection) forService(svc *corev1.Service, node, zone string) endpoints.Options {
	opts := s.opts
	opts.AddressTypes = s.addressTypes(svc)
	opts.PublishNotReady = svc.Spec.PublishNotReadyAddresses
	opts.Node, opts.Zone = node, zone
	return opts
}

// addressTypes are the slice address types to use for a Service, by the
// ipFamily option: the Service's primary family, one family, or both. A
// Service without ipFamilies (headless, ExternalName, old objects) uses both.
func (s selection) addressTypes(svc *corev1.Service) []discoveryv1.AddressType {
	switch s.ipFamily {
	case IPFamilyIPv4:
		return onlyIPv4
	case IPFamilyIPv6:
		return onlyIPv6
	case IPFamilyAll:
		return nil
	}
	if len(svc.Spec.IPFamilies) == 0 {
		return nil
	}
	switch svc.Spec.IPFamilies[0] {
	case corev1.IPv4Protocol:
		return onlyIPv4
	case corev1.IPv6Protocol:
		return onlyIPv6
	}
	return nil
}

// The address types of one family; shared, never modified.
var (
	onlyIPv4 = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4}
	onlyIPv6 = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv6}
)

// selectedPort is the servers of one port of a Service, chosen from its
// prepared slices by the client's index when they arrived (selectPorts),
// with the URLs for preparedScheme. For the common port (TCP, http, a
// Service without the provider's annotations) the index also builds the
// load balancer a render would. Servers and load balancer are shared by
// every configuration that uses them and never modified.
type selectedPort struct {
	name     string // the Service port's name, which the slices' ports carry
	number   int32
	servers  []dynamic.Server
	problems []*endpoints.Problem
	service  *dynamic.Service // nil: a render builds it
	// The port is the first of the Service with its name, with its number:
	// the one an Ingress backend naming it that way gets.
	firstByName, firstByNumber bool
	// The service's name in the configuration when a backend names the
	// port, when it gives its number (serviceKey); with service.
	keyByName, keyByNumber string
}

// key is the service's name in the configuration for a backend naming
// the port by ref, which service found.
func (sp *selectedPort) key(ref netv1.ServiceBackendPort) string {
	if ref.Name != "" {
		return sp.keyByName
	}
	return sp.keyByNumber
}

// selected is what the index chose for the ports of a Service.
type selected struct {
	sel   *selection // the index's
	ports []selectedPort
	// hinted says that an endpoint of the slices has topology hints: the
	// choice then holds only for a proxy whose node and zone are unknown.
	// Without hints where the proxy runs changes nothing.
	hinted bool
	// Most Services have one port: room for it in the same allocation,
	// which a render reads right after the rest.
	buf [1]selectedPort
}

// port returns the servers chosen for the port named name, for a render
// that found the index's selection to be its own (sel, nil when not) and
// knows this proxy's node and zone; nil when the render must choose itself
// (other options, hints that may apply, a port the index could not choose
// for).
func (s *selected) port(name string, sel *selection, node, zone string) *selectedPort {
	if !s.holds(sel, node, zone) {
		return nil
	}
	for i := range s.ports {
		if s.ports[i].name == name {
			return &s.ports[i]
		}
	}
	return nil
}

// holds says whether the choice is the one of a render with selection sel
// that knows this proxy's node and zone.
func (s *selected) holds(sel *selection, node, zone string) bool {
	return s != nil && sel != nil && s.sel == sel && (!s.hinted || node == "" && zone == "")
}

// service returns the port, with the load balancer the index built, that
// an Ingress backend naming ref gets, for a render as in port; nil when the
// render builds the load balancer itself.
func (s *selected) service(ref netv1.ServiceBackendPort, sel *selection, node, zone string) *selectedPort {
	if !s.holds(sel, node, zone) {
		return nil
	}
	for i := range s.ports {
		sp := &s.ports[i]
		first := sp.firstByNumber
		if ref.Name != "" {
			first = sp.firstByName
		}
		if sp.service != nil && first && refersTo(ref, sp.name, sp.number) {
			return sp
		}
	}
	return nil
}

// keys returns the service names s gave to a port named and numbered as p
// ("" when none).
func (s *selected) keys(p corev1.ServicePort) (byName, byNumber string) {
	if s == nil {
		return "", ""
	}
	for i := range s.ports {
		if sp := &s.ports[i]; sp.name == p.Name && sp.number == p.Port {
			return sp.keyByName, sp.keyByNumber
		}
	}
	return "", ""
}

// selectPorts chooses the servers of each port of o's Service from its
// prepared slices, as a render would for a proxy whose node and zone are
// not known. A port with a backend whose URL Prepare did not write (a
// slice it left to Select, more ports than it writes) is left out: the
// render chooses for it. Where a render would build the load balancer of
// a port from nothing but its servers (buildService: no annotations of the
// provider on the Service, a TCP port of scheme http, endpoints used), it
// is built here too, with the service's names: those of the previous
// choice for the Service (prev, nil when none) where it had a port of the
// same name and number, since nothing else of the port goes into them.
// scratch is a buffer for the backends.
func selectPorts(o *serviceObjects, prev *selected, sel *selection, scratch *[]endpoints.Backend) *selected {
	if o.svc == nil || len(o.prepared) == 0 || o.svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	s := &selected{sel: sel}
	s.ports = s.buf[:0]
	if len(o.svc.Spec.Ports) > len(s.buf) {
		s.ports = make([]selectedPort, 0, len(o.svc.Spec.Ports))
	}
	for _, sl := range o.slices {
		for i := range sl.Endpoints {
			if h := sl.Endpoints[i].Hints; h != nil && (len(h.ForNodes) > 0 || len(h.ForZones) > 0) {
				s.hinted = true
			}
		}
	}
	opts := sel.forService(o.svc, "", "")
	plain := !sel.nativeLB && !hasAnnotations(o.svc.Annotations)
	for i, p := range o.svc.Spec.Ports {
		backends, problems := endpoints.AppendSelectPrepared((*scratch)[:0], o.prepared, p.Name, opts)
		*scratch = backends[:0]
		var servers []dynamic.Server
		if len(backends) > 0 {
			servers = make([]dynamic.Server, len(backends))
			if !preparedURLs(servers, backends, preparedScheme) {
				continue
			}
		}
		sp := selectedPort{name: p.Name, number: p.Port, servers: servers, problems: problems}
		if plain && (p.Protocol == "" || p.Protocol == corev1.ProtocolTCP) && serverScheme(p, noServiceAnnotations) == preparedScheme {
			earlier := o.svc.Spec.Ports[:i]
			sp.firstByName = p.Name != "" && !slices.ContainsFunc(earlier, func(q corev1.ServicePort) bool { return q.Name == p.Name })
			sp.firstByNumber = !slices.ContainsFunc(earlier, func(q corev1.ServicePort) bool { return q.Port == p.Port })
			sp.service = dynamic.NewServersService()
			sp.service.LoadBalancer.Servers = servers
			sp.keyByName, sp.keyByNumber = prev.keys(p)
			if sp.keyByName == "" {
				sp.keyByName = serviceKey(o.svc.Namespace, o.svc.Name, p.Name)
				sp.keyByNumber = serviceKey(o.svc.Namespace, o.svc.Name, strconv.Itoa(int(p.Port)))
			}
		}
		s.ports = append(s.ports, sp)
	}
	return s
}
