package ingress

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/internal/clustergen"
)

// churn drives random changes through the fake clientset and waits until
// the informers have delivered each one.
type churn struct {
	t       *testing.T
	rnd     *rand.Rand
	cs      *fake.Clientset
	events  *atomic.Int64
	want    int64
	ctx     context.Context
	crt     []byte
	key     []byte
	nsvc    int
	created time.Time
	nodes   bool // also change Nodes, NodePort Services and topology hints
	nginx   bool // change ingress-nginx annotations and TLS hosts
	// client, when set, also has fetched the data of every Secret an
	// Ingress newly names before wait returns: the fetches run on their
	// own goroutine, and a render must not race one.
	client *Client
}

const churnNS = clustergen.Namespace

func (c *churn) wait() {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	waiting := func() int {
		if c.client == nil {
			return 0
		}
		return c.client.secrets.pending()
	}
	for c.events.Load() < c.want || waiting() > 0 {
		if time.Now().After(deadline) {
			c.t.Fatalf("informers delivered %d events, want %d (Secrets waiting for their data: %d)", c.events.Load(), c.want, waiting())
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// did counts one API write that succeeded (one informer event follows).
func (c *churn) did(err error) {
	if err == nil {
		c.want++
	}
}

func (c *churn) svcName() string { return clustergen.Name(c.rnd.IntN(c.nsvc + 2)) } // two that never exist

// step makes one random change and names it.
func (c *churn) step() string {
	ctx, cs := c.ctx, c.cs
	slices := cs.DiscoveryV1().EndpointSlices(churnNS)
	ingresses := cs.NetworkingV1().Ingresses(churnNS)
	secrets := cs.CoreV1().Secrets(churnNS)
	i := c.rnd.IntN(c.nsvc)
	name := clustergen.Name(i)
	if c.nodes && c.rnd.IntN(4) == 0 {
		return c.nodeStep(i)
	}
	switch op := c.rnd.IntN(20); op {
	case 0, 1, 2, 3, 4:
		return c.endpointStep(i)
	case 5: // a slice moves to another Service, goes, or comes back
		if s, err := slices.Get(ctx, name+"-1", metav1.GetOptions{}); err == nil && c.rnd.IntN(3) == 0 {
			to := c.svcName()
			s.Labels[discoveryv1.LabelServiceName] = to
			c.did(withErr(slices.Update(ctx, s, metav1.UpdateOptions{})))
			return "slice " + s.Name + " moved to " + to
		}
		if err := slices.Delete(ctx, name+"-1", metav1.DeleteOptions{}); err == nil {
			c.did(nil)
			return "slice deleted " + name
		}
		c.did(withErr(slices.Create(ctx, clustergen.Slice(i, 1, 5, 9), metav1.CreateOptions{})))
		return "slice created " + name
	case 6, 7:
		return c.serviceStep(i)
	case 8, 9, 10, 11, 12: // an Ingress changes
		ing, err := ingresses.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			ing = clustergen.Service(i, 4)[1].(*netv1.Ingress)
			ing.CreationTimestamp = metav1.NewTime(c.created.Add(time.Duration(c.rnd.IntN(5)) * time.Second))
			c.did(withErr(ingresses.Create(ctx, ing, metav1.CreateOptions{})))
			return "ingress created " + name
		}
		c.mutateIngress(ing)
		c.did(withErr(ingresses.Update(ctx, ing, metav1.UpdateOptions{})))
		return "ingress updated " + name
	case 13: // an Ingress goes
		c.did(ingresses.Delete(ctx, name, metav1.DeleteOptions{}))
		return "ingress deleted " + name
	case 14, 15: // a certificate is created, broken, repaired or deleted
		secretName := fmt.Sprintf("tls-%d", c.rnd.IntN(3))
		s, err := secrets.Get(ctx, secretName, metav1.GetOptions{})
		if err != nil {
			s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: churnNS, Name: secretName}, Type: corev1.SecretTypeTLS,
				Data: map[string][]byte{corev1.TLSCertKey: c.crt, corev1.TLSPrivateKeyKey: c.key}}
			c.did(withErr(secrets.Create(ctx, s, metav1.CreateOptions{})))
			return "secret created " + secretName
		}
		switch c.rnd.IntN(3) {
		case 0:
			c.did(secrets.Delete(ctx, secretName, metav1.DeleteOptions{}))
			return "secret deleted " + secretName
		case 1:
			s.Data = map[string][]byte{corev1.TLSCertKey: []byte("garbage"), corev1.TLSPrivateKeyKey: c.key}
		default:
			s.Data = map[string][]byte{corev1.TLSCertKey: c.crt, corev1.TLSPrivateKeyKey: c.key}
		}
		c.did(withErr(secrets.Update(ctx, s, metav1.UpdateOptions{})))
		return "secret updated " + secretName
	case 16: // the default IngressClass flips (a full render)
		if c.rnd.IntN(4) != 0 {
			return "nothing"
		}
		ic, err := cs.NetworkingV1().IngressClasses().Get(ctx, "sliceway", metav1.GetOptions{})
		require.NoError(c.t, err)
		if ic.Annotations[AnnotationDefaultClass] == "true" {
			ic.Annotations[AnnotationDefaultClass] = "false"
		} else {
			ic.Annotations[AnnotationDefaultClass] = "true"
		}
		c.did(withErr(cs.NetworkingV1().IngressClasses().Update(ctx, ic, metav1.UpdateOptions{})))
		return "ingressclass updated"
	default: // an update that cannot change the output
		s, err := slices.Get(ctx, name+"-0", metav1.GetOptions{})
		if err != nil {
			return "nothing"
		}
		s.Annotations = map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": fmt.Sprint(c.rnd.Int())}
		c.did(withErr(slices.Update(ctx, s, metav1.UpdateOptions{})))
		return "slice annotated " + name
	}
}

// nodeStep changes a Node (zone label, address, existence), makes a
// Service a node-port one or back, or sets the zone hints of an endpoint.
// serviceStep changes Service i: renames its port, changes an
// annotation, deletes it, or creates it again.
func (c *churn) serviceStep(i int) string {
	services := c.cs.CoreV1().Services(churnNS)
	name := clustergen.Name(i)
	svc, err := services.Get(c.ctx, name, metav1.GetOptions{})
	if err != nil {
		c.did(withErr(services.Create(c.ctx, clustergen.Service(i, 4)[0].(*corev1.Service), metav1.CreateOptions{})))
		return "service created " + name
	}
	switch c.rnd.IntN(4) {
	case 0:
		if svc.Spec.Ports[0].Name == "http" {
			svc.Spec.Ports[0].Name = "web"
		} else {
			svc.Spec.Ports[0].Name = "http"
		}
	case 1:
		svc.Annotations = map[string]string{"traefik.ingress.kubernetes.io/service.serversscheme": "h2c"}
	case 2:
		svc.Annotations = map[string]string{"traefik.ingress.kubernetes.io/service.passhostheader": []string{"false", "maybe"}[c.rnd.IntN(2)]}
	default:
		c.did(services.Delete(c.ctx, name, metav1.DeleteOptions{}))
		return "service deleted " + name
	}
	c.did(withErr(services.Update(c.ctx, svc, metav1.UpdateOptions{})))
	return "service updated " + name
}

// endpointStep changes the readiness or the address of one endpoint of
// the first slice of Service i, or creates that slice.
func (c *churn) endpointStep(i int) string {
	slices := c.cs.DiscoveryV1().EndpointSlices(churnNS)
	name := clustergen.Name(i)
	s, err := slices.Get(c.ctx, name+"-0", metav1.GetOptions{})
	if err != nil {
		c.did(withErr(slices.Create(c.ctx, clustergen.Slice(i, 0, 0, 3), metav1.CreateOptions{})))
		return "slice created " + name
	}
	if len(s.Endpoints) == 0 {
		s.Endpoints = []discoveryv1.Endpoint{clustergen.Endpoint(i, 0)}
	}
	ep := &s.Endpoints[c.rnd.IntN(len(s.Endpoints))]
	if c.rnd.IntN(2) == 0 {
		ready := ep.Conditions.Ready == nil || !*ep.Conditions.Ready
		ep.Conditions.Ready = &ready
	} else {
		ep.Addresses = []string{clustergen.Address(i, c.rnd.IntN(clustergen.MaxEndpoints))}
	}
	c.did(withErr(slices.Update(c.ctx, s, metav1.UpdateOptions{})))
	return "slice updated " + name
}

func (c *churn) nodeStep(i int) string {
	ctx, cs := c.ctx, c.cs
	name := clustergen.Name(i)
	switch c.rnd.IntN(4) {
	case 0, 1:
		node := fmt.Sprintf("node-%d", c.rnd.IntN(3))
		n, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			c.did(withErr(cs.CoreV1().Nodes().Create(ctx, testNode(node, fmt.Sprintf("zone-%d", c.rnd.IntN(2)), fmt.Sprintf("192.0.2.%d", 1+c.rnd.IntN(9))), metav1.CreateOptions{})))
			return "node created " + node
		}
		switch c.rnd.IntN(4) {
		case 0:
			c.did(cs.CoreV1().Nodes().Delete(ctx, node, metav1.DeleteOptions{}))
			return "node deleted " + node
		case 1:
			n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("192.0.2.%d", 1+c.rnd.IntN(9))}}
		case 2:
			delete(n.Labels, corev1.LabelTopologyZone)
		default:
			n.Labels[corev1.LabelTopologyZone] = fmt.Sprintf("zone-%d", c.rnd.IntN(3))
		}
		c.did(withErr(cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})))
		return "node updated " + node
	case 2:
		svc, err := cs.CoreV1().Services(churnNS).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "nothing"
		}
		if svc.Spec.Type == corev1.ServiceTypeNodePort {
			svc.Spec.Type = corev1.ServiceTypeClusterIP
			svc.Spec.Ports[0].NodePort = 0
			delete(svc.Annotations, "traefik.ingress.kubernetes.io/service.nodeportlb")
		} else {
			svc.Spec.Type = corev1.ServiceTypeNodePort
			svc.Spec.Ports[0].NodePort = int32(30000 + i)
			if svc.Annotations == nil {
				svc.Annotations = map[string]string{}
			}
			svc.Annotations["traefik.ingress.kubernetes.io/service.nodeportlb"] = "true"
		}
		c.did(withErr(cs.CoreV1().Services(churnNS).Update(ctx, svc, metav1.UpdateOptions{})))
		return "service node ports toggled " + name
	default:
		s, err := cs.DiscoveryV1().EndpointSlices(churnNS).Get(ctx, name+"-0", metav1.GetOptions{})
		if err != nil || len(s.Endpoints) == 0 {
			return "nothing"
		}
		for k := range s.Endpoints {
			if c.rnd.IntN(3) == 0 {
				s.Endpoints[k].Hints = nil
			} else {
				s.Endpoints[k].Hints = &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: fmt.Sprintf("zone-%d", c.rnd.IntN(3))}}}
			}
		}
		c.did(withErr(cs.DiscoveryV1().EndpointSlices(churnNS).Update(ctx, s, metav1.UpdateOptions{})))
		return "slice hints " + name
	}
}

func testNode(name, zone, ip string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelTopologyZone: zone}},
		Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}},
	}
}

// mutateIngress changes one thing of an Ingress: hosts, paths (including
// paths that conflict), backends (shared, missing), TLS, the default
// backend, the class, annotations.
func (c *churn) mutateIngress(ing *netv1.Ingress) {
	prefix := netv1.PathTypePrefix
	exact := netv1.PathTypeExact
	backend := func(svc string) netv1.IngressBackend {
		return netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: svc, Port: netv1.ServiceBackendPort{Name: "http"}}}
	}
	if len(ing.Spec.Rules) == 0 {
		ing.Spec.Rules = []netv1.IngressRule{{IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{}}}}
	}
	rule := &ing.Spec.Rules[0]
	if rule.HTTP == nil {
		rule.HTTP = &netv1.HTTPIngressRuleValue{}
	}
	switch c.rnd.IntN(9) {
	case 0:
		rule.Host = fmt.Sprintf("h%d.example", c.rnd.IntN(4))
	case 1: // another path; the same path twice is a conflict resolved by hashes
		paths := []string{"/", "/a", "/b"}
		rule.HTTP.Paths = append(rule.HTTP.Paths, netv1.HTTPIngressPath{
			Path: paths[c.rnd.IntN(len(paths))], PathType: []*netv1.PathType{&prefix, &exact}[c.rnd.IntN(2)], Backend: backend(c.svcName()),
		})
	case 2:
		if n := len(rule.HTTP.Paths); n > 0 {
			rule.HTTP.Paths = rule.HTTP.Paths[:n-1]
		}
	case 3:
		if n := len(rule.HTTP.Paths); n > 0 {
			rule.HTTP.Paths[c.rnd.IntN(n)].Backend = backend(c.svcName())
		}
	case 4:
		if ing.Spec.TLS == nil {
			ing.Spec.TLS = []netv1.IngressTLS{{SecretName: fmt.Sprintf("tls-%d", c.rnd.IntN(3))}}
			if c.nginx {
				ing.Spec.TLS[0].Hosts = []string{rule.Host}
			}
		} else {
			ing.Spec.TLS = nil
		}
	case 5:
		if ing.Spec.DefaultBackend == nil {
			b := backend(c.svcName())
			ing.Spec.DefaultBackend = &b
		} else {
			ing.Spec.DefaultBackend = nil
		}
	case 6:
		if ing.Spec.IngressClassName == nil {
			other := "other"
			ing.Spec.IngressClassName = &other
		} else {
			ing.Spec.IngressClassName = nil
		}
	case 7:
		if ing.Annotations == nil {
			ing.Annotations = map[string]string{}
		}
		if c.nginx {
			c.mutateNGINXAnnotations(ing.Annotations)
			break
		}
		ing.Annotations["traefik.ingress.kubernetes.io/router.priority"] = []string{"10", "x"}[c.rnd.IntN(2)]
	default:
		path := "/" + []string{"", "a"}[c.rnd.IntN(2)]
		ing.Spec.Rules = append(ing.Spec.Rules, netv1.IngressRule{Host: rule.Host, IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
			Paths: []netv1.HTTPIngressPath{{Path: path, PathType: &prefix, Backend: backend(c.svcName())}},
		}}})
	}
}
