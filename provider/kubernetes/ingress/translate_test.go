package ingress

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// memSnapshot is a Snapshot held in memory. Its getters hand out the stored
// pointers and slices themselves, as listers do, so that a translation that
// writes to its input is caught.
type memSnapshot struct {
	ingresses []*netv1.Ingress
	classes   []*netv1.IngressClass
	services  map[string]*corev1.Service              // namespace/name
	slices    map[string][]*discoveryv1.EndpointSlice // namespace/service
	secrets   map[string]*corev1.Secret               // namespace/name
	nodes     []*corev1.Node
}

var _ Snapshot = (*memSnapshot)(nil)

// newMemSnapshot sorts objects by type; EndpointSlices are filed under their
// kubernetes.io/service-name label (unlabelled ones are dropped).
func newMemSnapshot(objs ...any) *memSnapshot {
	s := &memSnapshot{
		services: map[string]*corev1.Service{},
		slices:   map[string][]*discoveryv1.EndpointSlice{},
		secrets:  map[string]*corev1.Secret{},
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *netv1.Ingress:
			s.ingresses = append(s.ingresses, o)
		case *netv1.IngressClass:
			s.classes = append(s.classes, o)
		case *corev1.Service:
			s.services[o.Namespace+"/"+o.Name] = o
		case *discoveryv1.EndpointSlice:
			if svc := o.Labels[discoveryv1.LabelServiceName]; svc != "" {
				s.slices[o.Namespace+"/"+svc] = append(s.slices[o.Namespace+"/"+svc], o)
			}
		case *corev1.Secret:
			s.secrets[o.Namespace+"/"+o.Name] = o
		case *corev1.Node:
			s.nodes = append(s.nodes, o)
		default:
			panic(fmt.Sprintf("memSnapshot: unsupported %T", o))
		}
	}
	return s
}

func (s *memSnapshot) Ingresses() []*netv1.Ingress             { return s.ingresses }
func (s *memSnapshot) IngressClasses() []*netv1.IngressClass   { return s.classes }
func (s *memSnapshot) Service(ns, name string) *corev1.Service { return s.services[ns+"/"+name] }
func (s *memSnapshot) EndpointSlices(ns, svc string) []*discoveryv1.EndpointSlice {
	return s.slices[ns+"/"+svc]
}
func (s *memSnapshot) Secret(ns, name string) *corev1.Secret { return s.secrets[ns+"/"+name] }
func (s *memSnapshot) Nodes() []*corev1.Node                 { return s.nodes }

// deepCopy returns a snapshot holding deep copies of every object, in the same order.
func (s *memSnapshot) deepCopy() *memSnapshot {
	c := &memSnapshot{
		services: map[string]*corev1.Service{},
		slices:   map[string][]*discoveryv1.EndpointSlice{},
		secrets:  map[string]*corev1.Secret{},
	}
	for _, o := range s.ingresses {
		c.ingresses = append(c.ingresses, o.DeepCopy())
	}
	for _, o := range s.classes {
		c.classes = append(c.classes, o.DeepCopy())
	}
	for k, o := range s.services {
		c.services[k] = o.DeepCopy()
	}
	for k, list := range s.slices {
		for _, o := range list {
			c.slices[k] = append(c.slices[k], o.DeepCopy())
		}
	}
	for k, o := range s.secrets {
		c.secrets[k] = o.DeepCopy()
	}
	for _, o := range s.nodes {
		c.nodes = append(c.nodes, o.DeepCopy())
	}
	return c
}

// Object builders.

type ingressOpt func(*netv1.Ingress)

func withClassName(name string) ingressOpt {
	return func(ing *netv1.Ingress) { ing.Spec.IngressClassName = &name }
}

func withAnnotation(key, value string) ingressOpt {
	return func(ing *netv1.Ingress) {
		if ing.Annotations == nil {
			ing.Annotations = map[string]string{}
		}
		ing.Annotations[key] = value
	}
}

func withCreated(sec int64) ingressOpt {
	return func(ing *netv1.Ingress) { ing.CreationTimestamp = metav1.Unix(sec, 0) }
}

func withTLS(secrets ...string) ingressOpt {
	return func(ing *netv1.Ingress) {
		for _, s := range secrets {
			ing.Spec.TLS = append(ing.Spec.TLS, netv1.IngressTLS{SecretName: s})
		}
	}
}

func withDefaultBackend(svc string, port int32) ingressOpt {
	return func(ing *netv1.Ingress) {
		ing.Spec.DefaultBackend = &netv1.IngressBackend{Service: &netv1.IngressServiceBackend{
			Name: svc, Port: netv1.ServiceBackendPort{Number: port},
		}}
	}
}

// withPath adds a Prefix path on host to the service port (a number, or a
// name when portName is set).
func withPath(host, path, svc string, port int32, portName string) ingressOpt {
	return func(ing *netv1.Ingress) {
		pt := netv1.PathTypePrefix
		ing.Spec.Rules = append(ing.Spec.Rules, netv1.IngressRule{
			Host: host,
			IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
				Path: path, PathType: &pt,
				Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{
					Name: svc, Port: netv1.ServiceBackendPort{Number: port, Name: portName},
				}},
			}}}},
		})
	}
}

func newIngress(ns, name string, opts ...ingressOpt) *netv1.Ingress {
	ing := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, o := range opts {
		o(ing)
	}
	return ing
}

func newClass(name, controller string, isDefault bool) *netv1.IngressClass {
	ic := &netv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: netv1.IngressClassSpec{Controller: controller}}
	if isDefault {
		ic.Annotations = map[string]string{AnnotationDefaultClass: "true"}
	}
	return ic
}

func newService(ns, name string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", Ports: ports},
	}
}

func svcPort(name string, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, Protocol: corev1.ProtocolTCP}
}

type endpointState int

const (
	ready endpointState = iota
	servingTerminating
	notReady
)

func endpoint(addr string, state endpointState) discoveryv1.Endpoint {
	t, f := true, false
	ep := discoveryv1.Endpoint{Addresses: []string{addr}}
	switch state {
	case ready:
		ep.Conditions = discoveryv1.EndpointConditions{Ready: &t, Serving: &t, Terminating: &f}
	case servingTerminating:
		ep.Conditions = discoveryv1.EndpointConditions{Ready: &f, Serving: &t, Terminating: &t}
	case notReady:
		ep.Conditions = discoveryv1.EndpointConditions{Ready: &f, Serving: &f, Terminating: &f}
	}
	return ep
}

func newSlice(ns, name, svc, portName string, port int32, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	proto := corev1.ProtocolTCP
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &proto}},
		Endpoints:   eps,
	}
}

// backend returns a Service "name" with an unnamed port 80 and one slice with
// one ready endpoint, so that paths to it get a router.
func backend(ns, name, ip string) []any {
	return []any{
		newService(ns, name, svcPort("", 80)),
		newSlice(ns, name+"-abc", name, "", 8080, endpoint(ip, ready)),
	}
}

func translate(t *testing.T, snap Snapshot, opts *Provider) *Result {
	t.Helper()
	if opts == nil {
		opts = &Provider{}
		opts.SetDefaults()
	}
	res := Translate(snap, opts)
	require.NotNil(t, res)
	require.NotNil(t, res.Configuration)
	require.NotNil(t, res.Configuration.HTTP)
	return res
}

func errorStrings(errs []*ObjectError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestTranslateIngressClassSelection(t *testing.T) {
	const other = "k8s.io/ingress-nginx"
	tests := []struct {
		desc    string
		classes []*netv1.IngressClass
		option  string
		opts    []ingressOpt
		served  bool
	}{
		// spec.ingressClassName
		{desc: "class name of our class", classes: []*netv1.IngressClass{newClass("traefik", ControllerName, false)},
			opts: []ingressOpt{withClassName("traefik")}, served: true},
		{desc: "class name of our class named by the option", classes: []*netv1.IngressClass{newClass("internal", ControllerName, false)},
			option: "internal", opts: []ingressOpt{withClassName("internal")}, served: true},
		{desc: "class name of our class not named by the option", classes: []*netv1.IngressClass{newClass("traefik", ControllerName, false), newClass("internal", ControllerName, false)},
			option: "internal", opts: []ingressOpt{withClassName("traefik")}, served: false},
		{desc: "class name of another controller's class", classes: []*netv1.IngressClass{newClass("nginx", other, false), newClass("traefik", ControllerName, false)},
			opts: []ingressOpt{withClassName("nginx")}, served: false},
		{desc: "class name of another controller's class equal to the option", classes: []*netv1.IngressClass{newClass("nginx", other, false)},
			option: "nginx", opts: []ingressOpt{withClassName("nginx")}, served: false},
		{desc: "class name of an unknown class", classes: []*netv1.IngressClass{newClass("traefik", ControllerName, false)},
			opts: []ingressOpt{withClassName("missing")}, served: false},
		{desc: "class name of an unknown class, no classes at all", opts: []ingressOpt{withClassName("traefik")}, served: false},
		{desc: "class name wins over the annotation (ours)", classes: []*netv1.IngressClass{newClass("traefik", ControllerName, false)},
			opts: []ingressOpt{withClassName("traefik"), withAnnotation(AnnotationIngressClass, "nginx")}, served: true},
		{desc: "class name wins over the annotation (other)", classes: []*netv1.IngressClass{newClass("nginx", other, false)},
			opts: []ingressOpt{withClassName("nginx"), withAnnotation(AnnotationIngressClass, "traefik")}, served: false},
		{desc: "class name wins over the default class", classes: []*netv1.IngressClass{newClass("nginx", other, false), newClass("traefik", ControllerName, true)},
			opts: []ingressOpt{withClassName("nginx")}, served: false},

		// kubernetes.io/ingress.class
		{desc: "annotation traefik, empty option", opts: []ingressOpt{withAnnotation(AnnotationIngressClass, "traefik")}, served: true},
		{desc: "annotation traefik, empty option, other default class", classes: []*netv1.IngressClass{newClass("nginx", other, true)},
			opts: []ingressOpt{withAnnotation(AnnotationIngressClass, "traefik")}, served: true},
		{desc: "annotation of another value, empty option", opts: []ingressOpt{withAnnotation(AnnotationIngressClass, "nginx")}, served: false},
		{desc: "annotation of another value, our default class", classes: []*netv1.IngressClass{newClass("traefik", ControllerName, true)},
			opts: []ingressOpt{withAnnotation(AnnotationIngressClass, "nginx")}, served: false},
		{desc: "annotation equal to the option", option: "internal", opts: []ingressOpt{withAnnotation(AnnotationIngressClass, "internal")}, served: true},
		{desc: "annotation traefik, option set to another value", option: "internal", opts: []ingressOpt{withAnnotation(AnnotationIngressClass, "traefik")}, served: false},
		{desc: "annotation traefik, option traefik", option: "traefik", opts: []ingressOpt{withAnnotation(AnnotationIngressClass, "traefik")}, served: true},

		// no class at all
		{desc: "classless, our default class", classes: []*netv1.IngressClass{newClass("nginx", other, false), newClass("traefik", ControllerName, true)}, served: true},
		{desc: "classless, our default class named by the option", classes: []*netv1.IngressClass{newClass("internal", ControllerName, true)},
			option: "internal", served: true},
		{desc: "classless, our default class not named by the option", classes: []*netv1.IngressClass{newClass("traefik", ControllerName, true)},
			option: "internal", served: false},
		{desc: "classless, another controller's default class", classes: []*netv1.IngressClass{newClass("nginx", other, true), newClass("traefik", ControllerName, false)},
			served: false},
		{desc: "classless, no default class, empty option", classes: []*netv1.IngressClass{newClass("traefik", ControllerName, false)}, served: true},
		{desc: "classless, no classes, empty option", served: true},
		{desc: "classless, no default class, option set", classes: []*netv1.IngressClass{newClass("internal", ControllerName, false)},
			option: "internal", served: false},
		{desc: "classless, default annotation false is no default", classes: []*netv1.IngressClass{
			{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Annotations: map[string]string{AnnotationDefaultClass: "false"}}, Spec: netv1.IngressClassSpec{Controller: other}},
		}, served: true},
		{desc: "classless, empty annotation is no annotation", classes: []*netv1.IngressClass{newClass("traefik", ControllerName, true)},
			opts: []ingressOpt{withAnnotation(AnnotationIngressClass, "")}, served: true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			objs := backend("default", "whoami", "10.0.0.1")
			objs = append(objs, newIngress("default", "web", append([]ingressOpt{withPath("foo.com", "/", "whoami", 80, "")}, tc.opts...)...))
			for _, c := range tc.classes {
				objs = append(objs, c)
			}
			opts := &Provider{IngressClass: tc.option}
			opts.SetDefaults()
			res := translate(t, newMemSnapshot(objs...), opts)
			assert.Empty(t, res.Errors)
			if tc.served {
				require.Contains(t, res.Configuration.HTTP.Routers, "default-web-foo-com")
				assert.Equal(t, "default-whoami-80", res.Configuration.HTTP.Routers["default-web-foo-com"].Service)
				assert.Contains(t, res.Configuration.HTTP.Services, "default-whoami-80")
			} else {
				assert.Empty(t, res.Configuration.HTTP.Routers)
				assert.Empty(t, res.Configuration.HTTP.Services)
			}
		})
	}
}

// richSnapshot exercises most of the translator: annotations, TLS, the
// default backend, sticky cookies, node ports, native LB, fenced servers,
// router key conflicts and broken objects.
func richSnapshot(t *testing.T) *memSnapshot {
	t.Helper()
	crt, key := selfSignedPEM(t)
	nodePortSvc := newService("apps", "np", svcPort("web", 80))
	nodePortSvc.Spec.Type = corev1.ServiceTypeNodePort
	nodePortSvc.Spec.Ports[0].NodePort = 30080
	nodePortSvc.Annotations = map[string]string{ann("service.nodeportlb"): "true"}

	stickySvc := newService("apps", "sticky", svcPort("http", 80), svcPort("https", 443))
	stickySvc.Annotations = map[string]string{
		ann("service.sticky.cookie.name"): "affinity",
		ann("service.passhostheader"):     "false",
	}
	nativeSvc := newService("apps", "native", svcPort("", 8080))
	nativeSvc.Annotations = map[string]string{ann("service.nativelb"): "true"}

	return newMemSnapshot(
		newClass("traefik", ControllerName, true),
		newClass("nginx", "k8s.io/ingress-nginx", false),
		newIngress("apps", "main", withCreated(100),
			withAnnotation(ann("router.entrypoints"), "web,websecure"),
			withAnnotation(ann("router.middlewares"), "apps-auth@kubernetescrd"),
			withAnnotation(ann("router.tls.domains.0.main"), "example.com"),
			withAnnotation(ann("router.tls.domains.0.sans"), "a.example.com,b.example.com"),
			withTLS("tls-good", "tls-missing", "tls-bad"),
			withDefaultBackend("sticky", 80),
			withPath("example.com", "/", "sticky", 0, "http"),
			withPath("example.com", "/secure", "sticky", 443, ""),
			withPath("*.example.com", "/np", "np", 80, ""),
			withPath("", "/native", "native", 8080, ""),
			withPath("example.com", "/missing", "nope", 80, ""),
		),
		// Same router key as apps/main's "example.com" "/" path: apps-main-example-com.
		newIngress("apps", "main-example.com", withCreated(200), withPath("", "/", "sticky", 80, "")),
		newIngress("apps", "late-default", withCreated(300), withDefaultBackend("native", 8080)),
		newIngress("apps", "bad-annotation", withCreated(50), withAnnotation(ann("router.priority"), "high"),
			withPath("bad.example.com", "/", "sticky", 80, "")),
		newIngress("other", "not-ours", withClassName("nginx"), withPath("nginx.example.com", "/", "x", 80, "")),
		stickySvc, nodePortSvc, nativeSvc,
		newSlice("apps", "sticky-a", "sticky", "http", 8080,
			endpoint("10.0.1.2", ready), endpoint("10.0.1.1", ready), endpoint("10.0.1.3", servingTerminating), endpoint("10.0.1.4", notReady)),
		newSlice("apps", "sticky-b", "sticky", "http", 8080, endpoint("10.0.1.1", servingTerminating), endpoint("10.0.1.5", ready)),
		newSlice("apps", "sticky-https", "sticky", "https", 8443, endpoint("10.0.1.1", ready)),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}, Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "192.168.0.2"}, {Type: corev1.NodeHostName, Address: "n2"}}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: "192.168.0.1"}}}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "tls-good"}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "tls-bad"}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: []byte("not a certificate"), corev1.TLSPrivateKeyKey: key}},
	)
}

func TestTranslateRichSnapshotSanity(t *testing.T) {
	// The other tests on richSnapshot are only meaningful if it actually
	// produces routers, services, certificates and errors.
	res := translate(t, richSnapshot(t), nil)
	conf := res.Configuration
	var routers []string
	for k := range conf.HTTP.Routers {
		routers = append(routers, k)
	}
	slices.Sort(routers)
	want := []string{
		"apps-main-example-com-" + sha256Hex(`PathPrefix("/")`)[:20],
		"apps-main-example-com-" + sha256Hex(`Host("example.com") && PathPrefix("/")`)[:20],
		"apps-main-example-com-np",
		"apps-main-example-com-secure",
		"apps-main-native",
		DefaultRouterName,
	}
	slices.Sort(want)
	assert.Equal(t, want, routers)
	assert.Equal(t, []dynamic.Server{{URL: "http://192.168.0.1:30080"}, {URL: "http://192.168.0.2:30080"}},
		conf.HTTP.Services["apps-np-80"].LoadBalancer.Servers)
	assert.Equal(t, []dynamic.Server{{URL: "http://10.96.0.10:8080"}}, conf.HTTP.Services["apps-native-8080"].LoadBalancer.Servers)
	assert.Equal(t, []dynamic.Server{{URL: "https://10.0.1.1:8443"}}, conf.HTTP.Services["apps-sticky-443"].LoadBalancer.Servers)
	require.NotNil(t, conf.TLS)
	assert.Len(t, conf.TLS.Certificates, 1)
	assert.Len(t, res.Errors, 5, "%v", errorStrings(res.Errors))
}

func TestTranslateDoesNotMutateInput(t *testing.T) {
	snap := richSnapshot(t)
	before := snap.deepCopy()
	opts := &Provider{StrictPrefixMatching: true, NativeLBByDefault: false, AllowEmptyServices: true}
	opts.SetDefaults()
	optsBefore := mustJSON(t, opts) // the options a user sets; the provider's own caches may change

	res := translate(t, snap, opts)
	require.NotEmpty(t, res.Configuration.HTTP.Routers)

	assert.True(t, reflect.DeepEqual(before, snap), "Translate changed its snapshot")
	// Field by field, for a readable diff when it fails.
	assert.Equal(t, before.ingresses, snap.ingresses)
	assert.Equal(t, before.classes, snap.classes)
	assert.Equal(t, before.services, snap.services)
	assert.Equal(t, before.slices, snap.slices)
	assert.Equal(t, before.secrets, snap.secrets)
	assert.Equal(t, before.nodes, snap.nodes)
	assert.Equal(t, optsBefore, mustJSON(t, opts), "Translate changed its options")

	// Changing the output must not reach back into the snapshot either.
	for _, rt := range res.Configuration.HTTP.Routers {
		for i := range rt.EntryPoints {
			rt.EntryPoints[i] = "changed"
		}
		if rt.TLS != nil {
			for i := range rt.TLS.Domains {
				rt.TLS.Domains[i].Main = "changed"
			}
		}
	}
	for _, svc := range res.Configuration.HTTP.Services {
		if svc.LoadBalancer.Sticky != nil && svc.LoadBalancer.Sticky.Cookie != nil {
			svc.LoadBalancer.Sticky.Cookie.Name = "changed"
		}
		svc.LoadBalancer.ServersTransport = "changed"
		for i := range svc.LoadBalancer.Servers {
			svc.LoadBalancer.Servers[i].URL = "changed"
		}
	}
	assert.True(t, reflect.DeepEqual(before, snap), "changing the output changed the snapshot")
	again := translate(t, snap, opts)
	assert.NotContains(t, mustJSON(t, again.Configuration), "changed", "changing one output changed the next one")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestTranslateIsDeterministic(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strictPrefixMatching=%t", strict), func(t *testing.T) {
			opts := &Provider{StrictPrefixMatching: strict}
			opts.SetDefaults()
			snap := richSnapshot(t)
			first := translate(t, snap, opts)
			wantConf := mustJSON(t, first.Configuration)
			wantErrs := errorStrings(first.Errors)
			require.NotEmpty(t, wantErrs)

			again := translate(t, snap, opts)
			assert.Equal(t, wantConf, mustJSON(t, again.Configuration), "same snapshot, different output")
			assert.Equal(t, wantErrs, errorStrings(again.Errors))

			rng := mrand.New(mrand.NewPCG(1, 2))
			for i := range 30 {
				shuffled := snap.deepCopy()
				rng.Shuffle(len(shuffled.ingresses), func(a, b int) {
					shuffled.ingresses[a], shuffled.ingresses[b] = shuffled.ingresses[b], shuffled.ingresses[a]
				})
				rng.Shuffle(len(shuffled.classes), func(a, b int) {
					shuffled.classes[a], shuffled.classes[b] = shuffled.classes[b], shuffled.classes[a]
				})
				rng.Shuffle(len(shuffled.nodes), func(a, b int) {
					shuffled.nodes[a], shuffled.nodes[b] = shuffled.nodes[b], shuffled.nodes[a]
				})
				for _, list := range shuffled.slices {
					rng.Shuffle(len(list), func(a, b int) { list[a], list[b] = list[b], list[a] })
				}
				res := translate(t, shuffled, opts)
				require.Equal(t, wantConf, mustJSON(t, res.Configuration), "shuffle %d", i)
				require.Equal(t, wantErrs, errorStrings(res.Errors), "shuffle %d", i)
			}
		})
	}
}

// TestTranslateSameCreationTime checks that Ingresses created in the same
// second are ordered by namespace and name, whatever the listing order:
// the older-looking one keeps the default backend and the contested router.
func TestTranslateSameCreationTime(t *testing.T) {
	objs := backend("ns", "a", "10.0.0.1")
	objs = append(objs, backend("ns", "b", "10.0.0.2")...)
	objs = append(objs,
		newIngress("ns", "x", withCreated(10), withDefaultBackend("b", 80)),
		newIngress("ns", "w", withCreated(10), withDefaultBackend("a", 80)),
	)
	snap := newMemSnapshot(objs...)
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		s := snap.deepCopy()
		s.ingresses = []*netv1.Ingress{s.ingresses[order[0]], s.ingresses[order[1]]}
		res := translate(t, s, nil)
		require.Contains(t, res.Configuration.HTTP.Routers, DefaultRouterName)
		md := res.Configuration.HTTP.Routers[DefaultRouterName].Observability.Metadata.Ingress
		assert.Equal(t, "w", md.IngressName)
		assert.Equal(t, "http://10.0.0.1:8080", res.Configuration.HTTP.Services[DefaultBackendName].LoadBalancer.Servers[0].URL)
		require.Len(t, res.Errors, 1)
		assert.Equal(t, "x", res.Errors[0].Name)
		assert.Equal(t, "spec.defaultBackend", res.Errors[0].Field)
	}
}

func TestTranslateBrokenIngressLeavesOthersIntact(t *testing.T) {
	good := newIngress("apps", "good", withCreated(200),
		withPath("good.example.com", "/", "whoami", 80, ""),
		withPath("good.example.com", "/api", "whoami", 80, ""))
	tests := []struct {
		desc       string
		broken     *netv1.Ingress
		extra      []any
		wantFields []string // fields of the broken Ingress's errors
	}{
		{
			desc:       "missing service",
			broken:     newIngress("apps", "broken", withCreated(100), withPath("broken.example.com", "/", "nope", 80, "")),
			wantFields: []string{"spec.rules[0].http.paths[0].backend.service"},
		},
		{
			desc: "missing service next to the good one's service",
			broken: newIngress("apps", "broken", withCreated(100),
				withPath("good.example.com", "/x", "whoami", 80, ""),
				withPath("good.example.com", "/y", "nope", 80, "")),
			wantFields: []string{"spec.rules[1].http.paths[0].backend.service"},
		},
		{
			desc:       "unknown port of the same service",
			broken:     newIngress("apps", "broken", withCreated(100), withPath("broken.example.com", "/", "whoami", 81, "")),
			wantFields: []string{"spec.rules[0].http.paths[0].backend.service"},
		},
		{
			desc: "bad annotation",
			broken: newIngress("apps", "broken", withCreated(100), withAnnotation(ann("router.priority"), "high"),
				withPath("good.example.com", "/", "whoami", 80, "")),
			wantFields: []string{"metadata.annotations[" + ann("router.priority") + "]"},
		},
		{
			desc:       "missing default backend service",
			broken:     newIngress("apps", "broken", withCreated(100), withDefaultBackend("nope", 80)),
			wantFields: []string{"spec.defaultBackend.service"},
		},
		{
			desc:       "missing secret",
			broken:     newIngress("apps", "broken", withCreated(100), withTLS("nope")),
			wantFields: []string{"spec.tls[0].secretName"},
		},
	}
	alone := translate(t, newMemSnapshot(append(backend("apps", "whoami", "10.0.0.1"), good)...), nil)
	require.Empty(t, alone.Errors)
	require.Len(t, alone.Configuration.HTTP.Routers, 2)

	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			objs := append(backend("apps", "whoami", "10.0.0.1"), good, tc.broken)
			objs = append(objs, tc.extra...)
			res := translate(t, newMemSnapshot(objs...), nil)

			for key, want := range alone.Configuration.HTTP.Routers {
				assert.Equal(t, want, res.Configuration.HTTP.Routers[key], "router %s of the good Ingress", key)
			}
			for key, want := range alone.Configuration.HTTP.Services {
				assert.Equal(t, want, res.Configuration.HTTP.Services[key], "service %s", key)
			}
			var fields []string
			for _, e := range res.Errors {
				assert.Equal(t, "Ingress", e.Kind)
				assert.Equal(t, "apps", e.Namespace)
				assert.Equal(t, "broken", e.Name, "only the broken Ingress has errors: %v", e)
				assert.Equal(t, SeverityError, e.Severity)
				fields = append(fields, e.Field)
			}
			assert.Equal(t, tc.wantFields, fields)
			for key, rt := range res.Configuration.HTTP.Routers {
				if _, ok := alone.Configuration.HTTP.Routers[key]; ok {
					continue
				}
				assert.Equal(t, "broken", rt.Observability.Metadata.Ingress.IngressName, "extra router %s", key)
				assert.NotEqual(t, "apps-nope-80", rt.Service)
			}
			assert.NotContains(t, res.Configuration.HTTP.Services, "apps-nope-80")
		})
	}
}

func TestTranslateMissingServiceError(t *testing.T) {
	ing := newIngress("apps", "web", withPath("", "/", "nope", 80, ""))
	res := translate(t, newMemSnapshot(ing), nil)
	assert.Empty(t, res.Configuration.HTTP.Routers)
	assert.Empty(t, res.Configuration.HTTP.Services)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "Ingress apps/web: spec.rules[0].http.paths[0].backend.service: service apps/nope not found", res.Errors[0].Error())
}

func TestTranslateFencedServers(t *testing.T) {
	tests := []struct {
		desc        string
		policy      string
		eps         []discoveryv1.Endpoint
		wantServers []dynamic.Server
	}{
		{
			desc:   "fallback with a ready endpoint fences the terminating one",
			policy: "fallback",
			eps:    []discoveryv1.Endpoint{endpoint("10.0.0.2", servingTerminating), endpoint("10.0.0.1", ready), endpoint("10.0.0.3", notReady)},
			wantServers: []dynamic.Server{
				{URL: "http://10.0.0.1:8080"},
				{URL: "http://10.0.0.2:8080", Weight: new(int), Fenced: true},
			},
		},
		{
			desc:   "fallback without a ready endpoint uses the terminating ones",
			policy: "fallback",
			eps:    []discoveryv1.Endpoint{endpoint("10.0.0.2", servingTerminating), endpoint("10.0.0.3", notReady)},
			wantServers: []dynamic.Server{
				{URL: "http://10.0.0.2:8080"},
			},
		},
		{
			desc:   "fence always fences",
			policy: "fence",
			eps:    []discoveryv1.Endpoint{endpoint("10.0.0.2", servingTerminating)},
			wantServers: []dynamic.Server{
				{URL: "http://10.0.0.2:8080", Weight: new(int), Fenced: true},
			},
		},
		{
			desc:   "exclude drops them",
			policy: "exclude",
			eps:    []discoveryv1.Endpoint{endpoint("10.0.0.2", servingTerminating), endpoint("10.0.0.1", ready)},
			wantServers: []dynamic.Server{
				{URL: "http://10.0.0.1:8080"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			snap := newMemSnapshot(
				newService("ns", "svc", svcPort("", 80)),
				newSlice("ns", "svc-1", "svc", "", 8080, tc.eps...),
				newIngress("ns", "ing", withPath("", "/", "svc", 80, "")),
			)
			opts := &Provider{TerminatingEndpoints: tc.policy}
			res := translate(t, snap, opts)
			require.Empty(t, res.Errors)
			require.Contains(t, res.Configuration.HTTP.Services, "ns-svc-80")
			servers := res.Configuration.HTTP.Services["ns-svc-80"].LoadBalancer.Servers
			assert.Equal(t, tc.wantServers, servers)
			for _, s := range servers {
				if s.Fenced {
					require.NotNil(t, s.Weight, "fenced server %s needs an explicit weight", s.URL)
					assert.Equal(t, 0, *s.Weight, "fenced server %s", s.URL)
				} else {
					assert.Nil(t, s.Weight, "server %s keeps the default weight", s.URL)
				}
			}
			// The weight 0 must survive JSON, where Traefik's file provider reads it.
			js := mustJSON(t, servers)
			assert.Equal(t, strings.Count(js, `"fenced":true`), strings.Count(js, `"weight":0`), js)
		})
	}
}

func TestTranslateRouterKeyConflict(t *testing.T) {
	exact, prefix := netv1.PathTypeExact, netv1.PathTypePrefix
	be := netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "whoami", Port: netv1.ServiceBackendPort{Number: 80}}}
	ing := newIngress("ns", "ing")
	ing.Spec.Rules = []netv1.IngressRule{{Host: "foo.com", IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
		Paths: []netv1.HTTPIngressPath{
			{Path: "/bar", PathType: &exact, Backend: be},
			{Path: "/bar", PathType: &prefix, Backend: be},
		},
	}}}}
	res := translate(t, newMemSnapshot(append(backend("ns", "whoami", "10.0.0.1"), ing)...), nil)
	require.Empty(t, res.Errors)

	keyFor := func(rule string) string {
		sum := sha256Hex(rule)
		return "ns-ing-foo-com-bar-" + sum[:20]
	}
	want := map[string]string{
		keyFor(`Host("foo.com") && Path("/bar")`):       `Host("foo.com") && Path("/bar")`,
		keyFor(`Host("foo.com") && PathPrefix("/bar")`): `Host("foo.com") && PathPrefix("/bar")`,
	}
	got := map[string]string{}
	for k, rt := range res.Configuration.HTTP.Routers {
		got[k] = rt.Rule
	}
	assert.Equal(t, want, got)
}

func TestTranslateTLSSecrets(t *testing.T) {
	crt, key := selfSignedPEM(t)
	secret := func(ns, name string, data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeTLS, Data: data}
	}
	snap := newMemSnapshot(append(backend("apps", "whoami", "10.0.0.1"),
		newIngress("apps", "a", withTLS("good", "missing"), withPath("a.example.com", "/", "whoami", 80, "")),
		newIngress("apps", "b", withTLS("bad", "good"), withPath("b.example.com", "/", "whoami", 80, "")),
		secret("apps", "good", map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}),
		secret("apps", "bad", map[string][]byte{corev1.TLSCertKey: key, corev1.TLSPrivateKeyKey: key}),
		secret("other", "missing", map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}),
	)...)
	res := translate(t, snap, nil)

	assert.Contains(t, res.Configuration.HTTP.Routers, "apps-a-a-example-com", "a keeps its routes")
	assert.Contains(t, res.Configuration.HTTP.Routers, "apps-b-b-example-com", "b keeps its routes")
	require.NotNil(t, res.Configuration.TLS)
	require.Len(t, res.Configuration.TLS.Certificates, 1, "the shared good secret is loaded once")
	assert.Equal(t, string(crt), res.Configuration.TLS.Certificates[0].CertFile)
	assert.Equal(t, string(key), res.Configuration.TLS.Certificates[0].KeyFile)

	require.Len(t, res.Errors, 2)
	assert.Equal(t, "a", res.Errors[0].Name)
	assert.Equal(t, "spec.tls[1].secretName", res.Errors[0].Field)
	assert.Contains(t, res.Errors[0].Error(), "secret apps/missing not found")
	assert.Equal(t, "b", res.Errors[1].Name)
	assert.Equal(t, "spec.tls[0].secretName", res.Errors[1].Field)
	assert.Contains(t, res.Errors[1].Error(), "secret apps/bad")
	for _, e := range res.Errors {
		assert.NotContains(t, e.Error(), "PRIVATE KEY", "errors must not leak secret contents")
		assert.NotContains(t, e.Error(), string(key[40:80]), "errors must not leak secret contents")
	}
}

func sha256Hex(s string) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(s)))
}

// selfSignedPEM returns a real self-signed certificate and its PKCS#8 key.
func selfSignedPEM(t *testing.T) (crt, key []byte) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "example.com"},
		DNSNames:     []string{"example.com"},
		NotBefore:    time.Unix(0, 0),
		NotAfter:     time.Unix(0, 0).Add(100 * 365 * 24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

func TestCertificate(t *testing.T) {
	crt, key := selfSignedPEM(t)
	_, otherKey := selfSignedPEM(t)
	garbageCrt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("not DER")})
	garbageKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("not DER")})
	ecKey := pemRetype(t, key, "EC PRIVATE KEY")
	rsaKey := pemRetype(t, key, "RSA PRIVATE KEY")
	chain := append(append([]byte("# a comment before the chain\n"), crt...), crt...)
	withParams := append(pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: []byte{6, 8, 42}}), ecKey...)

	tests := []struct {
		desc    string
		data    map[string][]byte
		wantErr string
	}{
		{desc: "certificate and PKCS#8 key", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}},
		{desc: "EC key", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: ecKey}},
		{desc: "RSA key type", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: rsaKey}},
		{desc: "chain with text before it", data: map[string][]byte{corev1.TLSCertKey: chain, corev1.TLSPrivateKeyKey: key}},
		{desc: "key after EC parameters", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: withParams}},
		{desc: "nil data", data: nil, wantErr: "tls.crt is missing or empty"},
		{desc: "no tls.crt", data: map[string][]byte{corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt is missing or empty"},
		{desc: "empty tls.crt", data: map[string][]byte{corev1.TLSCertKey: {}, corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt is missing or empty"},
		{desc: "no tls.key", data: map[string][]byte{corev1.TLSCertKey: crt}, wantErr: "tls.key is missing or empty"},
		{desc: "empty tls.key", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: {}}, wantErr: "tls.key is missing or empty"},
		{desc: "tls.crt is not PEM", data: map[string][]byte{corev1.TLSCertKey: []byte("hello"), corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt holds no PEM CERTIFICATE block"},
		{desc: "tls.crt is binary DER", data: map[string][]byte{corev1.TLSCertKey: pemBytes(t, crt), corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt holds no PEM CERTIFICATE block"},
		{desc: "tls.crt holds a key", data: map[string][]byte{corev1.TLSCertKey: key, corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt holds no PEM CERTIFICATE block"},
		{desc: "tls.key is not PEM", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: []byte("secret")}, wantErr: "tls.key holds no PEM PRIVATE KEY block"},
		{desc: "tls.key holds a certificate", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: crt}, wantErr: "tls.key holds no PEM PRIVATE KEY block"},
		{desc: "key of another certificate", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: otherKey}, wantErr: "tls.crt and tls.key are not a valid certificate and key"},
		{desc: "certificate block is not DER", data: map[string][]byte{corev1.TLSCertKey: garbageCrt, corev1.TLSPrivateKeyKey: key}, wantErr: "tls.crt and tls.key are not a valid certificate and key"},
		{desc: "key block is not DER", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: garbageKey}, wantErr: "tls.crt and tls.key are not a valid certificate and key"},
		{desc: "tls.key holds a public key", data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: pemRetype(t, key, "PUBLIC KEY")}, wantErr: "tls.key holds no PEM PRIVATE KEY block"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s"}, Data: tc.data}
			got, err := certificate(secret)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Nil(t, got)
				assert.True(t, strings.HasPrefix(err.Error(), tc.wantErr), "error %q should start with %q", err, tc.wantErr)
				assert.NotContains(t, err.Error(), "PRIVATE KEY-----", "errors must not leak secret contents")
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got)
			assert.Equal(t, &dynamic.CertAndStores{Certificate: dynamic.Certificate{
				CertFile: string(tc.data[corev1.TLSCertKey]),
				KeyFile:  string(tc.data[corev1.TLSPrivateKeyKey]),
			}}, got)
		})
	}
}

// pemRetype re-encodes the first PEM block of data under another type.
func pemRetype(t *testing.T, data []byte, typ string) []byte {
	t.Helper()
	block, _ := pem.Decode(data)
	require.NotNil(t, block)
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: block.Bytes})
}

// pemBytes returns the DER bytes of the first PEM block of data.
func pemBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	block, _ := pem.Decode(data)
	require.NotNil(t, block)
	return block.Bytes
}

func TestObjectErrorError(t *testing.T) {
	base := errors.New("boom")
	tests := []struct {
		err  *ObjectError
		want string
	}{
		{err: &ObjectError{Kind: "Ingress", Namespace: "ns", Name: "web", Field: "spec.rules[0]", Err: base}, want: "Ingress ns/web: spec.rules[0]: boom"},
		{err: &ObjectError{Kind: "Service", Namespace: "ns", Name: "svc", Err: base}, want: "Service ns/svc: boom"},
		{err: &ObjectError{Kind: "IngressClass", Name: "traefik", Err: base}, want: "IngressClass traefik: boom"},
		{err: &ObjectError{Kind: "IngressClass", Name: "traefik", Field: "spec.controller", Severity: SeverityWarning, Err: base}, want: "IngressClass traefik: spec.controller: boom"},
		{err: &ObjectError{Kind: "EndpointSlice", Namespace: "ns", Name: "s-1", Field: "endpoints[3].addresses[0]", Err: fmt.Errorf("wrapped: %w", base)},
			want: "EndpointSlice ns/s-1: endpoints[3].addresses[0]: wrapped: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.err.Error())
			assert.ErrorIs(t, tc.err, base)
		})
	}
}

// Keep the helpers honest: the snapshot must hand out what it was given.
func TestMemSnapshot(t *testing.T) {
	svc := newService("ns", "svc", svcPort("", 80))
	sl := newSlice("ns", "svc-1", "svc", "", 80)
	unlabelled := newSlice("ns", "svc-2", "", "", 80)
	snap := newMemSnapshot(svc, sl, unlabelled)
	assert.Same(t, svc, snap.Service("ns", "svc"))
	assert.Nil(t, snap.Service("other", "svc"))
	assert.Equal(t, []*discoveryv1.EndpointSlice{sl}, snap.EndpointSlices("ns", "svc"))
	assert.Nil(t, snap.Secret("ns", "x"))
	c := snap.deepCopy()
	assert.True(t, reflect.DeepEqual(snap, c))
	assert.NotSame(t, svc, c.Service("ns", "svc"))
	c.services["ns/svc"].Spec.Ports[0].Port = 81
	assert.False(t, reflect.DeepEqual(snap, c))
}

// TestTranslateDefaultRouterNameCollision: the path "/" without host of an
// Ingress named "router" in namespace "default" has the router key
// "default-router", the name of the default backend's router.
func TestTranslateDefaultRouterNameCollision(t *testing.T) {
	objs := backend("default", "a", "10.0.0.1")
	objs = append(objs, backend("default", "b", "10.0.0.2")...)
	objs = append(objs,
		newIngress("default", "router", withCreated(1), withPath("", "/", "a", 80, "")),
		newIngress("default", "db", withCreated(2), withDefaultBackend("b", 80)))
	res := translate(t, newMemSnapshot(objs...), nil)
	for _, e := range res.Errors {
		assert.NotEqual(t, SeverityError, e.Severity, "%v", e)
	}
	require.Contains(t, res.Configuration.HTTP.Routers, DefaultRouterName)
	assert.Equal(t, DefaultBackendName, res.Configuration.HTTP.Routers[DefaultRouterName].Service)
	var pathRouters []string
	for key, rt := range res.Configuration.HTTP.Routers {
		if rt.Service == "default-a-80" {
			pathRouters = append(pathRouters, key)
			assert.Equal(t, `PathPrefix("/")`, rt.Rule)
		}
	}
	assert.Len(t, pathRouters, 1, "the path of default/router must keep a router")
}
