package integration_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/sliceway/sliceway/integration/controlplane"
	"github.com/sliceway/sliceway/internal/pki"
)

// The objects the tests create, as a user or a Deployment would.

const ourClass = "sliceway"

var ctx = context.Background()

// createIngressClass creates IngressClass sliceway, Traefik's controller.
func createIngressClass(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	_, err := cp.Client().NetworkingV1().IngressClasses().Create(ctx, &netv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: ourClass},
		Spec:       netv1.IngressClassSpec{Controller: "traefik.io/ingress-controller"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// createNodes registers node-a in zone-a and node-b in zone-b.
func createNodes(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	_, err := cp.CreateNode(ctx, "node-a", "zone-a", "192.168.0.1")
	require.NoError(t, err)
	_, err = cp.CreateNode(ctx, "node-b", "zone-b", "192.168.0.2")
	require.NoError(t, err)
}

// createService creates a ClusterIP Service with one port named http (80
// to target port http), selecting app=<selector> unless selector is empty.
func createService(t *testing.T, cp *controlplane.ControlPlane, namespace, name, selector string) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("http")}},
		},
	}
	if selector != "" {
		svc.Spec.Selector = map[string]string{"app": selector}
	} else {
		svc.Spec.Ports[0].TargetPort = intstr.FromInt32(8080)
	}
	svc, err := cp.Client().CoreV1().Services(namespace).Create(ctx, svc, metav1.CreateOptions{})
	require.NoError(t, err)
	return svc
}

// ingressSpec describes an Ingress of class sliceway with one rule.
type ingressSpec struct {
	namespace, name string
	host, path      string
	service         string // backend service, port http
	port            string // the backend port's name, when it is not http
	tlsSecret       string
	annotations     map[string]string
}

func createIngress(t *testing.T, cp *controlplane.ControlPlane, s ingressSpec) *netv1.Ingress {
	t.Helper()
	prefix := netv1.PathTypePrefix
	path := s.path
	if path == "" {
		path = "/"
	}
	port := s.port
	if port == "" {
		port = "http"
	}
	ing := &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: s.name, Annotations: s.annotations},
		Spec: netv1.IngressSpec{
			IngressClassName: new(ourClass),
			Rules: []netv1.IngressRule{{
				Host: s.host,
				IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
					Paths: []netv1.HTTPIngressPath{{
						Path:     path,
						PathType: &prefix,
						Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{
							Name: s.service, Port: netv1.ServiceBackendPort{Name: port},
						}},
					}},
				}},
			}},
		},
	}
	if s.tlsSecret != "" {
		ing.Spec.TLS = []netv1.IngressTLS{{Hosts: []string{s.host}, SecretName: s.tlsSecret}}
	}
	ing, err := cp.Client().NetworkingV1().Ingresses(s.namespace).Create(ctx, ing, metav1.CreateOptions{})
	require.NoError(t, err)
	return ing
}

// createTLSSecret creates a kubernetes.io/tls Secret with a fresh
// self-signed certificate for host, and returns the PEM certificate and key.
func createTLSSecret(t *testing.T, cp *controlplane.ControlPlane, namespace, name, host string) (certPEM, keyPEM string) {
	t.Helper()
	cert, err := pki.SelfSigned(pki.Request{CommonName: host, Hosts: []string{host}, Usage: pki.ServerAuth})
	require.NoError(t, err)
	certPEM, keyPEM = string(cert.CertPEM()), string(cert.KeyPEM())
	_, err = cp.Client().CoreV1().Secrets(namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: []byte(certPEM), corev1.TLSPrivateKeyKey: []byte(keyPEM)},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	return certPEM, keyPEM
}

// deployment plays a Deployment, its ReplicaSets and the kubelets of its
// pods: pods labelled app=<app> listening on port http (8080).
type deployment struct {
	t         *testing.T
	cp        *controlplane.ControlPlane
	namespace string
	app       string
}

// addPod creates pod name on node with ip, and makes it ready when ready
// is set (the kubelet starts it and its readiness probe passes).
func (d deployment) addPod(name, node, ip string, ready bool) {
	d.t.Helper()
	_, err := d.cp.CreatePod(ctx, controlplane.PodSpec{
		Namespace: d.namespace, Name: name, Node: node,
		Labels: map[string]string{"app": d.app},
		Ports:  []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
	})
	require.NoError(d.t, err)
	require.NoError(d.t, d.cp.SetPodReady(ctx, d.namespace, name, ip, ready))
}

// setReady changes the readiness of a pod.
func (d deployment) setReady(name, ip string, ready bool) {
	d.t.Helper()
	require.NoError(d.t, d.cp.SetPodReady(ctx, d.namespace, name, ip, ready))
}

// terminate deletes a pod with a 300s grace period: it stays, terminating,
// as its kubelet would keep it while the containers shut down.
func (d deployment) terminate(name string) {
	d.t.Helper()
	require.NoError(d.t, d.cp.DeletePod(ctx, d.namespace, name, 300))
}

// finish removes a terminating pod, as its kubelet does once it stopped.
func (d deployment) finish(name string) {
	d.t.Helper()
	require.NoError(d.t, d.cp.FinishPod(ctx, d.namespace, name))
}
