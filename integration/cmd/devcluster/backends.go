package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/sliceway/sliceway/integration/controlplane"
)

// The echo backends are HTTP servers on 127.0.0.1 that answer with their
// name, behind Service echo/echo and an Ingress for host echo.demo.example,
// so that the configuration sliceway renders routes somewhere a request can
// go. The API server refuses loopback addresses in IPv4 and IPv6
// EndpointSlices, so each backend is an EndpointSlice of address type FQDN
// holding "127.0.0.1": valid as a name there, and read by sliceway as that
// IP, which it uses only with allowFQDNEndpoints and allowLoopbackEndpoints
// (`make demo` sets both).
const (
	echoNamespace = "echo"
	echoService   = "echo"
	echoHost      = "echo.demo.example"
)

// echoBackend is one running echo server.
type echoBackend struct {
	name string // also its EndpointSlice's
	port int
}

// startEchoBackends starts n servers on 127.0.0.1 at ports the kernel
// picks; they stop when ctx is done.
func startEchoBackends(ctx context.Context, n int) ([]echoBackend, error) {
	var out []echoBackend
	for i := 1; i <= n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("echo backend %d: %w", i, err)
		}
		b := echoBackend{name: fmt.Sprintf("echo-%d", i), port: ln.Addr().(*net.TCPAddr).Port}
		srv := &http.Server{Handler: b, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }() // ends with the Close below
		context.AfterFunc(ctx, func() { _ = srv.Close() })
		out = append(out, b)
	}
	return out, nil
}

// ServeHTTP says which backend answered what.
func (b echoBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = fmt.Fprintf(w, "%s (127.0.0.1:%d) answered %s %s for host %s\n", b.name, b.port, r.Method, r.URL.RequestURI(), r.Host)
}

// publishEchoBackends creates the namespace, the selectorless Service, one
// ready EndpointSlice per backend and the Ingress, then says how to reach
// them.
func publishEchoBackends(ctx context.Context, cp *controlplane.ControlPlane, backends []echoBackend) error {
	if err := cp.CreateNamespace(ctx, echoNamespace); err != nil {
		return err
	}
	cs := cp.Client()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: echoNamespace, Name: echoService},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP},
		}},
	}
	if _, err := cs.CoreV1().Services(echoNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating Service %s/%s: %w", echoNamespace, echoService, err)
	}
	for _, b := range backends {
		slice := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: echoNamespace, Name: b.name, Labels: map[string]string{
				discoveryv1.LabelServiceName: echoService,
				discoveryv1.LabelManagedBy:   "devcluster",
			}},
			AddressType: discoveryv1.AddressTypeFQDN,
			Ports: []discoveryv1.EndpointPort{
				{Name: ptr.To("http"), Port: ptr.To(int32(b.port)), Protocol: ptr.To(corev1.ProtocolTCP)},
			},
			Endpoints: []discoveryv1.Endpoint{{
				Addresses:  []string{"127.0.0.1"},
				Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true), Serving: ptr.To(true), Terminating: ptr.To(false)},
			}},
		}
		if _, err := cs.DiscoveryV1().EndpointSlices(echoNamespace).Create(ctx, slice, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating EndpointSlice %s/%s: %w", echoNamespace, b.name, err)
		}
	}
	prefix := netv1.PathTypePrefix
	ing := &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: echoNamespace, Name: echoService},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{
			Host: echoHost,
			IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{
				Path: "/", PathType: &prefix,
				Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{
					Name: echoService, Port: netv1.ServiceBackendPort{Name: "http"},
				}},
			}}}},
		}}},
	}
	if _, err := cs.NetworkingV1().Ingresses(echoNamespace).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating Ingress %s/%s: %w", echoNamespace, echoService, err)
	}
	for _, b := range backends {
		fmt.Fprintf(os.Stderr, "devcluster: backend %s at http://127.0.0.1:%d (EndpointSlice %s/%s)\n",
			b.name, b.port, echoNamespace, b.name)
	}
	fmt.Fprintf(os.Stderr, "devcluster: Ingress %s/%s routes host %s to them: curl a backend directly, or through a proxy that reads sliceway's output:\n"+
		"  curl -H 'Host: %s' http://127.0.0.1:8000/   # Traefik with entry point 127.0.0.1:8000, see docs/getting-started.md\n",
		echoNamespace, echoService, echoHost, echoHost)
	return nil
}
