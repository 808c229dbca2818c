package ingress

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/sliceway/sliceway/internal/pki"
)

// These tests run Provide on client-go's fake clientset, as an embedding
// proxy would: a goroutine runs Provide, the test reads the unbuffered out
// channel, and changes are made through the clientset.

const (
	liveNS   = "shop"
	liveWait = 10 * time.Second
)

// liveEpoch orders objects by creation, as translation does.
var liveEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// liveMeta is metadata as an API server returns it: a UID, a resourceVersion
// and a creation time (age orders Ingresses).
func liveMeta(name, namespace string, age int) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: name, Namespace: namespace, UID: types.UID("uid-" + namespace + "-" + name), ResourceVersion: "1",
		CreationTimestamp: metav1.NewTime(liveEpoch.Add(time.Duration(age) * time.Minute)),
	}
}

func liveClass(name, controller string, isDefault bool) *netv1.IngressClass {
	c := &netv1.IngressClass{ObjectMeta: liveMeta(name, "", 0), Spec: netv1.IngressClassSpec{Controller: controller}}
	if isDefault {
		c.Annotations = map[string]string{AnnotationDefaultClass: "true"}
	}
	return c
}

func liveService(name string, ports ...corev1.ServicePort) *corev1.Service {
	if len(ports) == 0 {
		ports = []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	}
	return &corev1.Service{
		ObjectMeta: liveMeta(name, liveNS, 0),
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", Ports: ports},
	}
}

func liveNodePortService(name string) *corev1.Service {
	s := liveService(name, corev1.ServicePort{Name: "http", Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP})
	s.Spec.Type = corev1.ServiceTypeNodePort
	s.Annotations = map[string]string{AnnotationPrefix + "service.nodeportlb": "true"}
	return s
}

func liveSlice(name, service string, addresses ...string) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  liveMeta(name, liveNS, 0),
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(8080)), Protocol: new(corev1.ProtocolTCP)}},
	}
	s.Labels = map[string]string{
		discoveryv1.LabelServiceName: service,
		discoveryv1.LabelManagedBy:   "endpointslice-controller.k8s.io",
	}
	for _, a := range addresses {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{a},
			Conditions: discoveryv1.EndpointConditions{Ready: new(true), Serving: new(true), Terminating: new(false)},
		})
	}
	return s
}

func liveIngress(name, class, host, service string, port netv1.ServiceBackendPort, age int) *netv1.Ingress {
	ing := &netv1.Ingress{
		ObjectMeta: liveMeta(name, liveNS, age),
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{
			Host: host,
			IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
				Path: "/", PathType: new(netv1.PathTypePrefix),
				Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: service, Port: port}},
			}}}},
		}}},
	}
	if class != "" {
		ing.Spec.IngressClassName = new(class)
	}
	return ing
}

// liveCerts holds a real certificate and key per common name, made once.
var liveCerts sync.Map

// liveCert returns a self-signed certificate and its key, as PEM.
func liveCert(cn string) (crt, key []byte) {
	type pair struct{ crt, key []byte }
	if p, ok := liveCerts.Load(cn); ok {
		return p.(pair).crt, p.(pair).key
	}
	cert, err := pki.SelfSigned(pki.Request{
		CommonName: cn,
		Hosts:      []string{cn},
		Usage:      pki.ServerAuth,
		NotBefore:  liveEpoch.Add(-time.Hour),
		NotAfter:   liveEpoch.Add(100 * 365 * 24 * time.Hour),
	})
	if err != nil {
		panic(err)
	}
	p, _ := liveCerts.LoadOrStore(cn, pair{cert.CertPEM(), cert.KeyPEM()})
	return p.(pair).crt, p.(pair).key
}

func liveCertString(cn string) string {
	crt, _ := liveCert(cn)
	return string(crt)
}

func liveSecret(name, cn string) *corev1.Secret {
	crt, key := liveCert(cn)
	return &corev1.Secret{
		ObjectMeta: liveMeta(name, liveNS, 0),
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key},
	}
}

func liveNode(name, ip string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: liveMeta(name, "", 0),
		Status: corev1.NodeStatus{
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.NewTime(liveEpoch)}},
		},
	}
}

var (
	livePortHTTP = netv1.ServiceBackendPort{Name: "http"}
	livePort80   = netv1.ServiceBackendPort{Number: 80}
)

// liveWebKey is the service key of the web Service's http port.
const liveWebKey = "shop-web-http"

// liveCluster is a small shop: our default IngressClass, a TLS Secret, the
// web Service, one slice with one endpoint and the web Ingress using them.
// The map is keyed "Kind/name", so that a test can remove or add objects.
func liveCluster() map[string]k8sruntime.Object {
	web := liveIngress("web", "sliceway", "web.example", "web", livePortHTTP, 0)
	web.Spec.TLS = []netv1.IngressTLS{{Hosts: []string{"web.example"}, SecretName: "web-tls"}}
	return map[string]k8sruntime.Object{
		"IngressClass/sliceway": liveClass("sliceway", ControllerName, true),
		"Secret/web-tls":        liveSecret("web-tls", "web.example"),
		"Service/web":           liveService("web"),
		"EndpointSlice/web-1":   liveSlice("web-1", "web", "10.0.0.1"),
		"Ingress/web":           web,
	}
}

// liveWithNodePorts adds a node-port Service (service.nodeportlb) with its
// Ingress and one Node, so that the provider watches Nodes.
func liveWithNodePorts(objs map[string]k8sruntime.Object) {
	objs["Service/np"] = liveNodePortService("np")
	objs["Ingress/np"] = liveIngress("np", "sliceway", "np.example", "np", livePort80, 1)
	objs["Node/n1"] = liveNode("n1", "192.168.0.1")
}
