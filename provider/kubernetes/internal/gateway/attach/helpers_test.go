package attach

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The namespaces of the conformance suite, whose manifests the tables
// retell.
const (
	infraNS   = "gateway-conformance-infra"
	webNS     = "gateway-conformance-web-backend"
	appNS     = "gateway-conformance-app-backend"
	ourCtrl   = gatewayv1.GatewayController("sliceway.io/gateway-controller")
	className = "sliceway"
	gwGen     = int64(3)
)

func testOptions() Options {
	ip := gatewayv1.IPAddressType
	return Options{
		ControllerName: ourCtrl,
		EntryPoints: []EntryPoint{
			{Name: "web", Port: 80, Protocol: gatewayv1.HTTPProtocolType},
			{Name: "websecure", Port: 443, Protocol: gatewayv1.HTTPSProtocolType},
			{Name: "web8080", Port: 8080, Protocol: gatewayv1.HTTPProtocolType},
			{Name: "web8090", Port: 8090, Protocol: gatewayv1.HTTPProtocolType},
			{Name: "passthrough", Port: 8443, Protocol: gatewayv1.TLSProtocolType},
			{Name: "tcp", Port: 9000, Protocol: gatewayv1.TCPProtocolType},
			{Name: "udp", Port: 9000, Protocol: gatewayv1.UDPProtocolType},
		},
		Addresses: []gatewayv1.GatewayStatusAddress{{Type: &ip, Value: "192.0.2.10"}},
	}
}

func class(controller gatewayv1.GatewayController) *gatewayv1.GatewayClass {
	return &gatewayv1.GatewayClass{
		ObjectMeta: metav1.ObjectMeta{Name: className, Generation: 2},
		Spec:       gatewayv1.GatewayClassSpec{ControllerName: controller},
	}
}

func gateway(name string, listeners ...gatewayv1.Listener) *gatewayv1.Gateway {
	return &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: infraNS, Generation: gwGen},
		Spec:       gatewayv1.GatewaySpec{GatewayClassName: className, Listeners: listeners},
	}
}

// listenerOpt changes a test listener.
type listenerOpt func(*gatewayv1.Listener)

func listener(name string, port int32, proto gatewayv1.ProtocolType, opts ...listenerOpt) gatewayv1.Listener {
	l := gatewayv1.Listener{Name: gatewayv1.SectionName(name), Port: port, Protocol: proto}
	for _, o := range opts {
		o(&l)
	}
	return l
}

func host(h string) listenerOpt {
	return func(l *gatewayv1.Listener) { hh := gatewayv1.Hostname(h); l.Hostname = &hh }
}

func from(f gatewayv1.FromNamespaces) listenerOpt {
	return func(l *gatewayv1.Listener) {
		if l.AllowedRoutes == nil {
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{}
		}
		l.AllowedRoutes.Namespaces = &gatewayv1.RouteNamespaces{From: &f}
	}
}

func selector(sel *metav1.LabelSelector) listenerOpt {
	return func(l *gatewayv1.Listener) {
		f := gatewayv1.NamespacesFromSelector
		if l.AllowedRoutes == nil {
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{}
		}
		l.AllowedRoutes.Namespaces = &gatewayv1.RouteNamespaces{From: &f, Selector: sel}
	}
}

func kinds(ks ...gatewayv1.Kind) listenerOpt {
	return func(l *gatewayv1.Listener) {
		if l.AllowedRoutes == nil {
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{}
		}
		for _, k := range ks {
			l.AllowedRoutes.Kinds = append(l.AllowedRoutes.Kinds, gatewayv1.RouteGroupKind{Kind: k})
		}
	}
}

func certs(refs ...gatewayv1.SecretObjectReference) listenerOpt {
	return func(l *gatewayv1.Listener) {
		if l.TLS == nil {
			l.TLS = &gatewayv1.ListenerTLSConfig{}
		}
		l.TLS.CertificateRefs = append(l.TLS.CertificateRefs, refs...)
	}
}

func tlsMode(m gatewayv1.TLSModeType) listenerOpt {
	return func(l *gatewayv1.Listener) {
		if l.TLS == nil {
			l.TLS = &gatewayv1.ListenerTLSConfig{}
		}
		l.TLS.Mode = &m
	}
}

// secretRef builds a certificateRef; group and kind are set only when not
// empty, namespace only when given.
func secretRef(group, kind, namespace, name string) gatewayv1.SecretObjectReference {
	r := gatewayv1.SecretObjectReference{Name: gatewayv1.ObjectName(name)}
	if group != "-" {
		g := gatewayv1.Group(group)
		r.Group = &g
	}
	if kind != "" {
		k := gatewayv1.Kind(kind)
		r.Kind = &k
	}
	if namespace != "" {
		ns := gatewayv1.Namespace(namespace)
		r.Namespace = &ns
	}
	return r
}

// fakeCluster is a Lookups over plain maps.
type fakeCluster struct {
	namespaces map[string]map[string]string
	services   map[string]Service // "ns/name"
	secrets    map[string]error   // "ns/name" -> nil when usable
	grants     []*gatewayv1.ReferenceGrant
}

func (c fakeCluster) lookups() Lookups {
	return Lookups{
		NamespaceLabels: func(ns string) (map[string]string, bool) {
			l, ok := c.namespaces[ns]
			return l, ok
		},
		Service: func(ns, name string) (Service, bool) {
			s, ok := c.services[ns+"/"+name]
			return s, ok
		},
		TLSSecret: func(ns, name string) error {
			err, ok := c.secrets[ns+"/"+name]
			if !ok {
				return errors.New("not found")
			}
			return err
		},
		ReferencePermitted: GrantLookup(c.grants),
	}
}

// conformanceCluster holds the base objects of the conformance suite.
func conformanceCluster() fakeCluster {
	web := Service{Ports: []ServicePort{{Port: 8080}}}
	return fakeCluster{
		namespaces: map[string]map[string]string{
			infraNS: {"gateway-conformance": "infra"},
			webNS:   {"gateway-conformance": "backend"},
			appNS:   {"gateway-conformance": "backend"},
		},
		services: map[string]Service{
			infraNS + "/infra-backend-v1": web,
			infraNS + "/infra-backend-v2": web,
			webNS + "/web-backend":        web,
		},
		secrets: map[string]error{
			infraNS + "/tls-validity-checks-certificate": nil,
			infraNS + "/malformed-certificate":           errors.New("tls.crt holds no PEM certificate"),
			webNS + "/certificate":                       nil,
		},
	}
}

// grant builds a ReferenceGrant in namespace; toName "" leaves the name out.
func grant(namespace, fromGroup, fromKind, fromNS, toGroup, toKind, toName string) *gatewayv1.ReferenceGrant {
	to := gatewayv1.ReferenceGrantTo{Group: gatewayv1.Group(toGroup), Kind: gatewayv1.Kind(toKind)}
	if toName != "" {
		n := gatewayv1.ObjectName(toName)
		to.Name = &n
	}
	return &gatewayv1.ReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Name: "grant", Namespace: namespace},
		Spec: gatewayv1.ReferenceGrantSpec{
			From: []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.Group(fromGroup), Kind: gatewayv1.Kind(fromKind), Namespace: gatewayv1.Namespace(fromNS)}},
			To:   []gatewayv1.ReferenceGrantTo{to},
		},
	}
}

// want is an expected condition: its type, status and reason ("" for any).
type want struct {
	typ    string
	status metav1.ConditionStatus
	reason string
}

func requireConditions(t *testing.T, conds []metav1.Condition, generation int64, wants ...want) {
	t.Helper()
	for _, w := range wants {
		c, ok := FindCondition(conds, w.typ)
		require.Truef(t, ok, "condition %s missing in %+v", w.typ, conds)
		require.Equalf(t, w.status, c.Status, "condition %s: %+v", w.typ, c)
		if w.reason != "" {
			require.Equalf(t, w.reason, c.Reason, "condition %s: %+v", w.typ, c)
		}
		require.Equalf(t, generation, c.ObservedGeneration, "condition %s", w.typ)
		require.NotEmptyf(t, c.Message, "condition %s", w.typ)
	}
}

func processed(t *testing.T, gw *gatewayv1.Gateway, opts Options, look Lookups) Gateway {
	t.Helper()
	g, ok := ProcessGateway(gw, class(ourCtrl), opts, look)
	require.True(t, ok, "gateway should be ours")
	return g
}

func mustListener(t *testing.T, g *Gateway, name string) *Listener {
	t.Helper()
	l, ok := g.Listener(gatewayv1.SectionName(name))
	require.Truef(t, ok, "listener %s", name)
	return l
}

const (
	condTrue  = metav1.ConditionTrue
	condFalse = metav1.ConditionFalse
)
