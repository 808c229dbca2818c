package ingress

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/config/dynamic"
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
}

const churnNS = clustergen.Namespace

func (c *churn) wait() {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.events.Load() < c.want {
		if time.Now().After(deadline) {
			c.t.Fatalf("informers delivered %d events, want %d", c.events.Load(), c.want)
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
	services := cs.CoreV1().Services(churnNS)
	ingresses := cs.NetworkingV1().Ingresses(churnNS)
	secrets := cs.CoreV1().Secrets(churnNS)
	i := c.rnd.IntN(c.nsvc)
	name := clustergen.Name(i)
	if c.nodes && c.rnd.IntN(4) == 0 {
		return c.nodeStep(i)
	}
	switch op := c.rnd.IntN(20); op {
	case 0, 1, 2, 3, 4: // an endpoint changes readiness or address
		s, err := slices.Get(ctx, name+"-0", metav1.GetOptions{})
		if err != nil {
			c.did(withErr(slices.Create(ctx, clustergen.Slice(i, 0, 0, 3), metav1.CreateOptions{})))
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
		c.did(withErr(slices.Update(ctx, s, metav1.UpdateOptions{})))
		return "slice updated " + name
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
	case 6: // a Service port is renamed, or an annotation changes
		svc, err := services.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			objs := clustergen.Service(i, 4)
			c.did(withErr(services.Create(ctx, objs[0].(*corev1.Service), metav1.CreateOptions{})))
			return "service created " + name
		}
		switch c.rnd.IntN(3) {
		case 0:
			if svc.Spec.Ports[0].Name == "http" {
				svc.Spec.Ports[0].Name = "web"
			} else {
				svc.Spec.Ports[0].Name = "http"
			}
		case 1:
			svc.Annotations = map[string]string{"traefik.ingress.kubernetes.io/service.serversscheme": "h2c"}
		default:
			svc.Annotations = map[string]string{"traefik.ingress.kubernetes.io/service.passhostheader": []string{"false", "maybe"}[c.rnd.IntN(2)]}
		}
		c.did(withErr(services.Update(ctx, svc, metav1.UpdateOptions{})))
		return "service updated " + name
	case 7: // a Service goes or comes back
		if err := services.Delete(ctx, name, metav1.DeleteOptions{}); err == nil {
			c.did(nil)
			return "service deleted " + name
		}
		objs := clustergen.Service(i, 4)
		c.did(withErr(services.Create(ctx, objs[0].(*corev1.Service), metav1.CreateOptions{})))
		return "service created " + name
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
		ing.Annotations["traefik.ingress.kubernetes.io/router.priority"] = []string{"10", "x"}[c.rnd.IntN(2)]
	default:
		path := "/" + []string{"", "a"}[c.rnd.IntN(2)]
		ing.Spec.Rules = append(ing.Spec.Rules, netv1.IngressRule{Host: rule.Host, IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{
			Paths: []netv1.HTTPIngressPath{{Path: path, PathType: &prefix, Backend: backend(c.svcName())}},
		}}})
	}
}

func withErr[T any](_ T, err error) error { return err }

// startClient starts informers on cs and waits for them to sync; they stop
// when the test ends. ctx is theirs.
func startClient(t *testing.T, cs kubernetes.Interface, opts ClientOptions) (*Client, context.Context) {
	t.Helper()
	client, err := NewClient(cs, opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); client.Shutdown() })
	client.Start(ctx)
	require.NoError(t, client.WaitForSync(ctx, time.Minute))
	return client, ctx
}

// TestIncrementalMatchesFull drives random changes through real informers
// and checks after each one that the incremental render equals a full
// translation of the same caches, byte for byte, errors included, and that
// it says "changed" exactly when the configuration changed.
//
// SLICEWAY_INCREMENTAL_SEEDS=N runs N seeds instead of 3, for a longer hunt.
func TestIncrementalMatchesFull(t *testing.T) {
	crt, key := selfSignedPEM(t)
	seeds := uint64(3)
	if n, err := strconv.Atoi(os.Getenv("SLICEWAY_INCREMENTAL_SEEDS")); err == nil && n > 0 {
		seeds = uint64(n)
	}
	for _, variant := range []struct {
		name  string
		nodes bool
	}{{"objects", false}, {"nodes-and-topology", true}} {
		for seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", variant.name, seed), func(t *testing.T) {
				runIncremental(t, seed, variant.nodes, crt, key)
			})
		}
	}
}

// runIncremental is one run of TestIncrementalMatchesFull.
func runIncremental(t *testing.T, seed uint64, nodes bool, crt, key []byte) {
	const services = 30
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(services, 6) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	var events atomic.Int64
	changes := &Changes{}
	opts := benchOptions()
	if nodes {
		// The zone comes from this proxy's Node, so Node changes matter.
		opts.Topology = &Topology{Node: "node-1"}
	}
	client, ctx := startClient(t, cs, ClientOptions{
		OnChange:   changes.Record,
		Notify:     func(string, bool) { events.Add(1) },
		WatchNodes: nodes,
		Provider:   opts, // as Provide does: the index chooses servers
	})

	r := NewRenderer(opts)
	c := &churn{t: t, rnd: rand.New(rand.NewPCG(seed, 7)), cs: cs, events: &events, ctx: ctx,
		crt: crt, key: key, nsvc: services, created: time.Unix(1_700_000_000, 0), nodes: nodes}
	c.want = events.Load()
	prev, _ := r.Render(client.Snapshot(), changes)
	// What serve and watch do with the configurations: the encoder takes the
	// text of every router and service whose pointer it saw before, which
	// is right only if the renderer never modifies them once sent.
	var enc dynamic.JSONEncoder
	var yenc dynamic.YAMLEncoder
	for step := range 400 {
		what := c.step()
		c.wait()
		checkIndex(t, client)
		got, changed := r.Render(client.Snapshot(), changes)
		checkParts(t, r, what)
		// The reference is a full render, through both kinds of snapshot.
		want := referenceRender(t, client.Snapshot(), opts)
		if !equalResults(t, want, got) {
			t.Fatalf("step %d (%s): the incremental render differs from a full one", step, what)
		}
		text, err := enc.Encode(got.Configuration)
		require.NoError(t, err)
		var wantText bytes.Buffer
		wenc := json.NewEncoder(&wantText)
		wenc.SetEscapeHTML(false)
		require.NoError(t, wenc.Encode(want.Configuration))
		if !bytes.Equal(wantText.Bytes(), text) {
			t.Fatalf("step %d (%s): the encoder's text differs from a full encoding:\n%s\n%s", step, what, wantText.Bytes(), text)
		}
		yamlText, err := yenc.Encode(got.Configuration)
		require.NoError(t, err)
		wantYAML, err := dynamic.MarshalYAML(want.Configuration)
		require.NoError(t, err)
		if !bytes.Equal(wantYAML, yamlText) {
			t.Fatalf("step %d (%s): the YAML encoder's text differs from MarshalYAML's:\n%s\n%s", step, what, wantYAML, yamlText)
		}
		if same := reflect.DeepEqual(prev.Configuration, got.Configuration); same == changed {
			t.Fatalf("step %d (%s): changed=%t, but the configurations are equal=%t", step, what, changed, same)
		}
		prev = got
	}
	st := r.Stats()
	t.Logf("renders: %+v", st)
	require.Greater(t, st.Incremental, 250, "most renders should be incremental")
}

// checkParts checks what the next renders build on, beyond their output:
// every part holds the entries in use now (none a render replaced), each
// entry counts its users, and every router and default-backend candidate
// of a part sends to the load balancer of one of the part's entries. A
// part left holding an old load balancer would put it back into the
// configuration at the next assembly that meets the part's routers.
func checkParts(t *testing.T, r *Renderer, what string) {
	t.Helper()
	st := r.st
	users := map[*serviceEntry]int{}
	for _, p := range st.served {
		require.Same(t, p, st.parts[p.key], "after %s: the served part of %s", what, p.key)
		for _, en := range p.entries {
			require.Same(t, en, st.entries[en.key], "after %s: %s uses an entry of %v that was replaced", what, p.key, en.key)
			users[en]++
		}
		hasService := func(svc *dynamic.Service) bool {
			return slices.ContainsFunc(p.entries, func(en *serviceEntry) bool { return en.lb.service == svc })
		}
		for _, pr := range p.routers {
			require.True(t, hasService(pr.service), "after %s: a router of %s (%s) sends to a load balancer none of its entries has", what, p.key, pr.router.Rule)
		}
		if c := p.defaultBackend; c != nil && c.service != nil {
			require.True(t, hasService(c.service), "after %s: the default backend of %s is a load balancer none of its entries has", what, p.key)
		}
	}
	for id, en := range st.entries {
		require.Equal(t, users[en], int(en.users), "after %s: the users of %s", what, id)
	}
}

func equalResults(t *testing.T, want, got *Result) bool {
	t.Helper()
	wy, err := dynamic.MarshalYAML(want.Configuration)
	require.NoError(t, err)
	gy, err := dynamic.MarshalYAML(got.Configuration)
	require.NoError(t, err)
	ok := true
	if string(wy) != string(gy) {
		t.Errorf("configuration:\nfull:\n%s\nincremental:\n%s", wy, gy)
		ok = false
	}
	texts := func(errs []*ObjectError) []string {
		var out []string
		for _, e := range errs {
			out = append(out, e.Error())
		}
		return out
	}
	if !reflect.DeepEqual(texts(want.Errors), texts(got.Errors)) {
		t.Errorf("errors:\nfull: %q\nincremental: %q", texts(want.Errors), texts(got.Errors))
		ok = false
	}
	names := func(list []*netv1.Ingress) []string {
		var out []string
		for _, ing := range list {
			out = append(out, ing.Namespace+"/"+ing.Name)
		}
		return out
	}
	if !reflect.DeepEqual(names(want.Ingresses), names(got.Ingresses)) {
		t.Errorf("served Ingresses:\nfull: %v\nincremental: %v", names(want.Ingresses), names(got.Ingresses))
		ok = false
	}
	if want.NeedsNodes != got.NeedsNodes {
		t.Errorf("NeedsNodes: full %t, incremental %t", want.NeedsNodes, got.NeedsNodes)
		ok = false
	}
	return ok
}

// panicSnapshot panics when the incremental render looks up an Ingress.
type panicSnapshot struct{ Snapshot }

func (panicSnapshot) Ingress(string, string) *netv1.Ingress { panic("lookup failed") }

// TestRenderRecoversIntoFull checks that a panic during an incremental
// render gives a full render of the same snapshot, counted in Stats.
func TestRenderRecoversIntoFull(t *testing.T) {
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(5, 4) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	client, _ := startClient(t, cs, ClientOptions{})

	opts := benchOptions()
	r := NewRenderer(opts)
	snap := panicSnapshot{client.Snapshot()}
	_, _ = r.Render(snap, nil)
	changes := &Changes{}
	changes.Record("Ingress", nil, clustergen.Service(1, 4)[1])
	res, changed := r.Render(snap, changes)
	require.False(t, changed)
	require.True(t, equalResults(t, Translate(client.Snapshot(), opts), res))
	st := r.Stats()
	require.Equal(t, 1, st.Recovered)
	require.Equal(t, "lookup failed", st.LastRecovered)
	require.Equal(t, 2, st.Full)
}

// TestIncrementalNameCollisions covers the router names whose outcome
// depends on the order groups are named in: a path whose key is the default
// router's name, and an Ingress whose key equals the hashed name another
// Ingress's conflicting paths get. Renders assemble in full while they
// exist, and incrementally again once they are gone; every render equals a
// full translation.
// renderSteps renders after each change of a test, incrementally, and
// checks the result against a full render of the same caches.
type renderSteps struct {
	t       *testing.T
	cs      *fake.Clientset
	ctx     context.Context
	client  *Client
	changes *Changes
	events  *atomic.Int64
	opts    *Provider
	r       *Renderer
	prev    *Result
	want    int64
}

// newRenderSteps serves the generated cluster of services Services, and
// the objects of Service 9 in namespace default (its Ingress left out).
func newRenderSteps(t *testing.T, services int) *renderSteps {
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(services, 4) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	for _, o := range clustergen.Service(9, 4) {
		m := o.(metav1.Object)
		if m.GetName() == clustergen.Name(9) && o.GetObjectKind().GroupVersionKind().Kind == "Ingress" {
			continue
		}
		m.SetNamespace("default")
		require.NoError(t, cs.Tracker().Add(o))
	}
	s := &renderSteps{t: t, cs: cs, changes: &Changes{}, events: &atomic.Int64{}, opts: benchOptions()}
	s.client, s.ctx = startClient(t, cs, ClientOptions{OnChange: s.changes.Record, Notify: func(string, bool) { s.events.Add(1) }})
	s.r = NewRenderer(s.opts)
	s.prev, _ = s.r.Render(s.client.Snapshot(), s.changes)
	s.want = s.events.Load()
	return s
}

func (s *renderSteps) ingresses(ns string) interface {
	Create(context.Context, *netv1.Ingress, metav1.CreateOptions) (*netv1.Ingress, error)
	Update(context.Context, *netv1.Ingress, metav1.UpdateOptions) (*netv1.Ingress, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
} {
	return s.cs.NetworkingV1().Ingresses(ns)
}

// check waits for the event of one change (err is the change's error),
// renders, and compares with a full render.
func (s *renderSteps) check(what string, err error) *Result {
	t := s.t
	t.Helper()
	require.NoError(t, err, what)
	s.want++
	deadline := time.Now().Add(10 * time.Second)
	for s.events.Load() < s.want {
		require.True(t, time.Now().Before(deadline), "%s: no event", what)
		time.Sleep(time.Millisecond)
	}
	got, changed := s.r.Render(s.client.Snapshot(), s.changes)
	if !equalResults(t, referenceRender(t, s.client.Snapshot(), s.opts), got) {
		t.Fatalf("%s: the incremental render differs from a full one", what)
	}
	require.Equal(t, !reflect.DeepEqual(s.prev.Configuration, got.Configuration), changed, what)
	s.prev = got
	return got
}

// stepIngress is an Ingress of one rule (host may be empty) whose paths
// all send to Service svc's port http.
func stepIngress(ns, name, host, svc string, paths ...netv1.HTTPIngressPath) *netv1.Ingress {
	for i := range paths {
		paths[i].Backend = netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: svc, Port: netv1.ServiceBackendPort{Name: "http"}}}
	}
	return &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: host, IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: paths}}}}}}
}

func TestIncrementalNameCollisions(t *testing.T) {
	steps := newRenderSteps(t, 4)
	cs, ctx, r, ings := steps.cs, steps.ctx, steps.r, steps.ingresses
	check := func(what string, err error) *Result {
		t.Helper()
		got := steps.check(what, err)
		for _, err := range got.Errors {
			require.NotContains(t, err.Error(), "routes the same requests", "%s: names collide here, not rules", what)
		}
		return got
	}
	// Every rule below is different (hosts, path types, a PathRegexp
	// matcher), so that no two routers of different keys tie
	// (TestIncrementalTies); only their names collide.
	ingress := stepIngress
	prefix, exact := netv1.PathTypePrefix, netv1.PathTypeExact
	slash := func(pt *netv1.PathType) netv1.HTTPIngressPath { return netv1.HTTPIngressPath{Path: "/", PathType: pt} }

	// Two paths with one key and different rules: hashed names, in one group.
	res := check("conflict", withErr(ings(churnNS).Create(ctx, ingress(churnNS, "a", "a.example", clustergen.Name(1), slash(&prefix), slash(&exact)), metav1.CreateOptions{})))
	var hashed string
	for name := range res.Configuration.HTTP.Routers {
		if strings.HasPrefix(name, churnNS+"-a-a-example-") {
			hashed = name
		}
	}
	require.NotEmpty(t, hashed)
	// The same rule twice in one group: reported within the group.
	check("same rule twice", withErr(ings(churnNS).Create(ctx, ingress(churnNS, "b", "b.example", clustergen.Name(2), slash(&prefix), slash(&prefix)), metav1.CreateOptions{})))
	require.Zero(t, r.Stats().Reassembled)

	// An Ingress whose own key is that hashed name.
	check("key equals a hashed name", withErr(ings(churnNS).Create(ctx, ingress(churnNS, strings.TrimPrefix(hashed, churnNS+"-"), "", clustergen.Name(2), slash(&prefix)), metav1.CreateOptions{})))
	// The same the other way round: the Ingress whose key is the hashed
	// name is older than the one the hash comes from, so a full assembly
	// meets it first, while the order of keys names the hashed group first.
	newer := ingress(churnNS, "c", "c.example", clustergen.Name(1), slash(&prefix), slash(&exact))
	newer.CreationTimestamp = metav1.NewTime(time.Unix(2_000_000_000, 0))
	res = check("newer conflict", withErr(ings(churnNS).Create(ctx, newer, metav1.CreateOptions{})))
	var hashedC string
	for name := range res.Configuration.HTTP.Routers {
		if strings.HasPrefix(name, churnNS+"-c-c-example-") {
			hashedC = name
		}
	}
	require.NotEmpty(t, hashedC)
	older := ingress(churnNS, strings.TrimPrefix(hashedC, churnNS+"-"), "", clustergen.Name(2), slash(&exact))
	older.CreationTimestamp = metav1.NewTime(time.Unix(1_000_000_000, 0))
	check("an older key equals a newer hashed name", withErr(ings(churnNS).Create(ctx, older, metav1.CreateOptions{})))
	// A path whose key is the default router's name.
	router := ingress("default", "router", "", clustergen.Name(9), netv1.HTTPIngressPath{Path: "/"})
	router.Annotations = map[string]string{"traefik.ingress.kubernetes.io/router.pathmatcher": "PathRegexp"}
	check("key equals default-router", withErr(ings("default").Create(ctx, router, metav1.CreateOptions{})))
	reassembled := r.Stats().Reassembled
	slice := clustergen.Slice(1, 0, 0, 1)
	check("endpoints while irregular", withErr(cs.DiscoveryV1().EndpointSlices(churnNS).Update(ctx, slice, metav1.UpdateOptions{})))
	require.Greater(t, r.Stats().Reassembled, reassembled, "renders assemble in full while names collide")

	check("collision gone", ings(churnNS).Delete(ctx, strings.TrimPrefix(hashed, churnNS+"-"), metav1.DeleteOptions{}))
	check("older collision gone", ings(churnNS).Delete(ctx, older.Name, metav1.DeleteOptions{}))
	check("default-router key gone", ings("default").Delete(ctx, "router", metav1.DeleteOptions{}))
	reassembled = r.Stats().Reassembled
	slice = clustergen.Slice(1, 0, 0, 3)
	check("endpoints again", withErr(cs.DiscoveryV1().EndpointSlices(churnNS).Update(ctx, slice, metav1.UpdateOptions{})))
	require.Equal(t, reassembled, r.Stats().Reassembled, "incremental again once the names are regular")
}

// TestIncrementalTies: paths of different Ingresses with the same host and
// path give routers Traefik cannot tell apart; the oldest keeps its router
// and the others are reported, unless their priority, TLS or entry points
// set them apart. Each step is checked against a full render.
func TestIncrementalTies(t *testing.T) {
	steps := newRenderSteps(t, 4)
	ings := steps.ingresses(churnNS)
	prefix := netv1.PathTypePrefix
	slash := netv1.HTTPIngressPath{Path: "/", PathType: &prefix}
	tie := func(name string, created int64, svc int, annotations map[string]string) *netv1.Ingress {
		ing := stepIngress(churnNS, name, "t.example", clustergen.Name(svc), slash)
		ing.CreationTimestamp = metav1.NewTime(time.Unix(created, 0))
		ing.Annotations = annotations
		return ing
	}
	router := func(res *Result, ingress string) *dynamic.Router {
		return res.Configuration.HTTP.Routers[churnNS+"-"+ingress+"-t-example"]
	}
	tieErrors := func(res *Result) map[string]string {
		out := map[string]string{}
		for _, err := range res.Errors {
			if strings.Contains(err.Error(), "routes the same requests") {
				out[err.Name+" "+err.Field] = err.Err.Error()
			}
		}
		return out
	}

	// x2 sends to Service 2, which no other Ingress then uses.
	steps.check("Service 2's own Ingress gone", ings.Delete(steps.ctx, clustergen.Name(2), metav1.DeleteOptions{}))
	res := steps.check("x1", withErr(ings.Create(steps.ctx, tie("x1", 1_000_000_000, 1, nil), metav1.CreateOptions{})))
	require.NotNil(t, router(res, "x1"))
	require.Empty(t, tieErrors(res))

	res = steps.check("x2, newer, the same host and path", withErr(ings.Create(steps.ctx, tie("x2", 2_000_000_000, 2, nil), metav1.CreateOptions{})))
	require.NotNil(t, router(res, "x1"))
	require.Nil(t, router(res, "x2"))
	require.NotContains(t, res.Configuration.HTTP.Services, churnNS+"-"+clustergen.Name(2)+"-http", "no router sends to x2's Service")
	require.Equal(t, map[string]string{"x2 spec.rules[0].http.paths[0]": fmt.Sprintf(
		`Ingress %[1]s/x1, which is older, routes the same requests (rule Host("t.example") && PathPrefix("/"), router %[1]s-x1-t-example): router %[1]s-x2-t-example is left out, since Traefik would send them to one of the two at random`, churnNS)},
		tieErrors(res))

	res = steps.check("x3 over TLS", withErr(ings.Create(steps.ctx, tie("x3", 3_000_000_000, 3, map[string]string{"traefik.ingress.kubernetes.io/router.tls": "true"}), metav1.CreateOptions{})))
	require.NotNil(t, router(res, "x3"), "TLS routers are another router of Traefik's")
	res = steps.check("x4 on an entry point of x1's", withErr(ings.Create(steps.ctx, tie("x4", 4_000_000_000, 3, map[string]string{"traefik.ingress.kubernetes.io/router.entrypoints": "websecure"}), metav1.CreateOptions{})))
	require.Nil(t, router(res, "x4"), "x1 names no entry point: it is on all of them")
	res = steps.check("x5 with a priority", withErr(ings.Create(steps.ctx, tie("x5", 5_000_000_000, 3, map[string]string{"traefik.ingress.kubernetes.io/router.priority": "5"}), metav1.CreateOptions{})))
	require.NotNil(t, router(res, "x5"))
	require.Len(t, tieErrors(res), 2)

	res = steps.check("x1 gone", ings.Delete(steps.ctx, "x1", metav1.DeleteOptions{}))
	require.NotNil(t, router(res, "x2"), "the oldest left keeps its router")
	require.Nil(t, router(res, "x4"))
	require.Contains(t, res.Configuration.HTTP.Services, churnNS+"-"+clustergen.Name(2)+"-http")

	moved := tie("x2", 2_000_000_000, 2, nil)
	moved.Spec.Rules[0].HTTP.Paths[0].Path = "/moved"
	res = steps.check("x2 elsewhere", withErr(ings.Update(steps.ctx, moved, metav1.UpdateOptions{})))
	require.NotNil(t, router(res, "x4"), "nothing ties x4 any more")
	require.Empty(t, tieErrors(res))

	// A change that touches no tied rule stays incremental.
	reassembled := steps.r.Stats().Reassembled
	steps.check("an endpoint elsewhere", withErr(steps.cs.DiscoveryV1().EndpointSlices(churnNS).Update(steps.ctx, clustergen.Slice(0, 0, 0, 3), metav1.UpdateOptions{})))
	require.Equal(t, reassembled, steps.r.Stats().Reassembled)
}

// TestChangeOfSharedServiceRefreshesInPlace checks the shortcut for a
// Service that many Ingresses share: a change of its EndpointSlices, or of
// the Service, that leaves its load balancers with servers rebuilds them
// without translating an Ingress again and leaves the routers untouched; a
// change that empties them translates every user again (their paths now
// fail). All are checked against a full render.
func TestChangeOfSharedServiceRefreshesInPlace(t *testing.T) {
	const services, extra = 3, 20
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(services, 6) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	shared := clustergen.Name(0)
	emptied, emptiedParts := 0, 0 // what the last step differs in, with allowEmptyServices
	for i := range extra {
		ing := clustergen.Service(services+i, 1)[1].(*netv1.Ingress)
		b := &ing.Spec.Rules[0].HTTP.Paths[0].Backend
		b.Service.Name = shared
		switch i {
		case 0: // by port number: another load balancer of the same Service
			b.Service.Port = netv1.ServiceBackendPort{Number: 80}
		case 1:
			ing.Spec.DefaultBackend = &netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: shared, Port: netv1.ServiceBackendPort{Name: "http"}}}
		}
		require.NoError(t, cs.Tracker().Add(ing))
	}
	var events atomic.Int64
	// r renders with the default options; rEmpty with allowEmptyServices,
	// for which a Service without servers changes nothing an Ingress reads.
	changes, changesEmpty := &Changes{}, &Changes{}
	record := func(kind string, old, new any) { changes.Record(kind, old, new); changesEmpty.Record(kind, old, new) }
	client, ctx := startClient(t, cs, ClientOptions{OnChange: record, Notify: func(string, bool) { events.Add(1) }})
	opts, optsEmpty := benchOptions(), benchOptions()
	optsEmpty.AllowEmptyServices = true
	r, rEmpty := NewRenderer(opts), NewRenderer(optsEmpty)
	c := &churn{t: t, cs: cs, events: &events, ctx: ctx}
	c.want = events.Load()
	prev, _ := r.Render(client.Snapshot(), changes)
	rEmpty.Render(client.Snapshot(), changesEmpty)
	require.Contains(t, prev.Configuration.HTTP.Services, DefaultBackendName)

	render := func(what string) *Result {
		t.Helper()
		c.wait()
		got := renderChanged(t, r, client.Snapshot(), changes, opts, what)
		renderChanged(t, rEmpty, client.Snapshot(), changesEmpty, optsEmpty, "allowEmptyServices, "+what)
		require.Equal(t, r.Stats().Refreshed, rEmpty.Stats().Refreshed-emptied, "allowEmptyServices refreshes what the default does, and the emptied Service")
		require.Equal(t, r.Stats().Parts, rEmpty.Stats().Parts+emptiedParts, "allowEmptyServices translates what the default does, but the emptied Service's users")
		return got
	}
	sliceAPI := cs.DiscoveryV1().EndpointSlices(clustergen.Namespace)

	// An endpoint of the shared Service moves: two load balancers (port
	// name and number) and the default backend's get the new server.
	before := r.Stats()
	s, err := sliceAPI.Get(ctx, shared+"-0", metav1.GetOptions{})
	require.NoError(t, err)
	s.Endpoints[0].Addresses = []string{"192.0.2.10"}
	_, err = sliceAPI.Update(ctx, s, metav1.UpdateOptions{})
	c.did(err)
	got := render("an endpoint moved")
	require.Equal(t, before.Parts, r.Stats().Parts, "no Ingress should have been translated again")
	require.Equal(t, before.Refreshed+2, r.Stats().Refreshed, "both load balancers of the Service refreshed")
	require.Equal(t, reflect.ValueOf(prev.Configuration.HTTP.Routers).Pointer(), reflect.ValueOf(got.Configuration.HTTP.Routers).Pointer(),
		"the routers are the previous render's")
	require.Same(t, got.Configuration.HTTP.Services[serviceKey(clustergen.Namespace, shared, "http")], got.Configuration.HTTP.Services[DefaultBackendName])
	require.Contains(t, got.Configuration.HTTP.Services[DefaultBackendName].LoadBalancer.Servers, dynamic.Server{URL: "http://192.0.2.10:8080"})

	// An annotation of the shared Service changes its load balancers, not
	// what an Ingress reads of them.
	before = r.Stats()
	svc, err := cs.CoreV1().Services(clustergen.Namespace).Get(ctx, shared, metav1.GetOptions{})
	require.NoError(t, err)
	svc.Annotations = map[string]string{"traefik.ingress.kubernetes.io/service.passhostheader": "false"}
	_, err = cs.CoreV1().Services(clustergen.Namespace).Update(ctx, svc, metav1.UpdateOptions{})
	c.did(err)
	prev = got
	got = render("the Service was annotated")
	require.Equal(t, before.Parts, r.Stats().Parts, "no Ingress should have been translated again")
	require.Equal(t, before.Refreshed+2, r.Stats().Refreshed)
	require.Equal(t, reflect.ValueOf(prev.Configuration.HTTP.Routers).Pointer(), reflect.ValueOf(got.Configuration.HTTP.Routers).Pointer())
	require.False(t, *got.Configuration.HTTP.Services[DefaultBackendName].LoadBalancer.PassHostHeader)

	// Every slice of the shared Service goes: no servers, so every user is
	// translated again, and their paths fail.
	before = r.Stats()
	list, err := sliceAPI.List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + shared})
	require.NoError(t, err)
	require.NotEmpty(t, list.Items)
	for _, s := range list.Items {
		c.did(sliceAPI.Delete(ctx, s.Name, metav1.DeleteOptions{}))
	}
	emptied, emptiedParts = 2, 1+extra
	got = render("the slices were deleted")
	require.Equal(t, before.Refreshed, r.Stats().Refreshed)
	require.Equal(t, before.Parts+1+extra, r.Stats().Parts, "every user translated again")
	require.NotContains(t, got.Configuration.HTTP.Services, DefaultBackendName)
	require.NotEmpty(t, got.Errors)
}

// TestNodeChangeRefreshesNodePortLoadBalancers checks that a Node change
// rebuilds a node-port load balancer (service.nodeportlb) without
// translating the Ingresses that share it, and that losing every Node
// (no load balancer can be built) translates them again.
func TestNodeChangeRefreshesNodePortLoadBalancers(t *testing.T) {
	const users = 5
	cs := fake.NewClientset()
	objs := clustergen.Cluster(1, 4)
	var svc *corev1.Service
	for _, o := range objs {
		if s, ok := o.(*corev1.Service); ok {
			svc = s
		}
	}
	require.NotNil(t, svc)
	svc.Spec.Type = corev1.ServiceTypeNodePort
	svc.Spec.Ports[0].NodePort = 30080
	svc.Annotations = map[string]string{"traefik.ingress.kubernetes.io/service.nodeportlb": "true"}
	for _, o := range objs {
		require.NoError(t, cs.Tracker().Add(o))
	}
	for i := 1; i < users; i++ {
		ing := clustergen.Service(i, 1)[1].(*netv1.Ingress)
		ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = svc.Name
		require.NoError(t, cs.Tracker().Add(ing))
	}
	require.NoError(t, cs.Tracker().Add(testNode("node-1", "zone-a", "192.0.2.1")))
	var events atomic.Int64
	changes := &Changes{}
	client, ctx := startClient(t, cs, ClientOptions{OnChange: changes.Record, Notify: func(string, bool) { events.Add(1) }, WatchNodes: true})
	opts := benchOptions()
	r := NewRenderer(opts)
	c := &churn{t: t, cs: cs, events: &events, ctx: ctx}
	c.want = events.Load()
	first, _ := r.Render(client.Snapshot(), changes)
	name := serviceKey(svc.Namespace, svc.Name, "http")
	require.Equal(t, []dynamic.Server{{URL: "http://192.0.2.1:30080"}}, first.Configuration.HTTP.Services[name].LoadBalancer.Servers)

	render := func(what string) *Result {
		t.Helper()
		c.wait()
		return renderChanged(t, r, client.Snapshot(), changes, opts, what)
	}
	before := r.Stats()
	_, err := cs.CoreV1().Nodes().Create(ctx, testNode("node-2", "zone-b", "192.0.2.2"), metav1.CreateOptions{})
	c.did(err)
	got := render("a Node was added")
	require.Equal(t, before.Parts, r.Stats().Parts, "no Ingress should have been translated again")
	require.Equal(t, before.Refreshed+1, r.Stats().Refreshed)
	require.Len(t, got.Configuration.HTTP.Services[name].LoadBalancer.Servers, 2)
	require.Equal(t, reflect.ValueOf(first.Configuration.HTTP.Routers).Pointer(), reflect.ValueOf(got.Configuration.HTTP.Routers).Pointer())

	before = r.Stats()
	c.did(cs.CoreV1().Nodes().Delete(ctx, "node-1", metav1.DeleteOptions{}))
	c.did(cs.CoreV1().Nodes().Delete(ctx, "node-2", metav1.DeleteOptions{}))
	got = render("every Node was deleted")
	require.Equal(t, before.Parts+users, r.Stats().Parts, "every user translated again")
	require.NotContains(t, got.Configuration.HTTP.Services, name)
	require.NotEmpty(t, got.Errors)
}

// renderChanged renders the changes, checks the parts and the result
// against a full render, and that the configuration changed.
func renderChanged(t *testing.T, r *Renderer, snap Snapshot, changes *Changes, opts *Provider, what string) *Result {
	t.Helper()
	got, changed := r.Render(snap, changes)
	checkParts(t, r, what)
	require.True(t, equalResults(t, referenceRender(t, snap, opts), got), "after %s", what)
	require.True(t, changed, "after %s", what)
	return got
}
