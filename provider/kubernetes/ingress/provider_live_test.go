package ingress

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ptypes "github.com/traefik/paerser/types"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/sliceway/sliceway/config/dynamic"
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
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, DNSNames: []string{cn},
		NotBefore: liveEpoch.Add(-time.Hour), NotAfter: liveEpoch.Add(100 * 365 * 24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		panic(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		panic(err)
	}
	p, _ := liveCerts.LoadOrStore(cn, pair{
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	})
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

// newLiveFakeCluster serves the objects through a fake clientset that, like an
// API server, gives each created or updated object a new resourceVersion
// (the fake tracker alone keeps whatever the client sent).
func newLiveFakeCluster(objs map[string]k8sruntime.Object) *fake.Clientset {
	list := make([]k8sruntime.Object, 0, len(objs))
	for _, key := range slices.Sorted(maps.Keys(objs)) {
		list = append(list, objs[key])
	}
	cs := fake.NewClientset(list...)
	var rv atomic.Int64
	rv.Store(100)
	cs.PrependReactor("*", "*", func(action k8stesting.Action) (bool, k8sruntime.Object, error) {
		if pa, ok := action.(k8stesting.PatchAction); ok {
			// Apply the patch here, as the API server does, so that it
			// bumps the resourceVersion too.
			obj, err := cs.Tracker().Get(pa.GetResource(), pa.GetNamespace(), pa.GetName())
			if err != nil {
				return true, nil, err
			}
			original, err := json.Marshal(obj)
			if err != nil {
				return true, nil, err
			}
			patched, err := liveMergePatch(original, pa.GetPatch())
			if err != nil {
				return true, nil, err
			}
			// A fresh object: decoding into a copy would keep fields of the
			// old list elements that the patch replaced.
			updated := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(k8sruntime.Object)
			if err := json.Unmarshal(patched, updated); err != nil {
				return true, nil, err
			}
			m, err := meta.Accessor(updated)
			if err != nil {
				return true, nil, err
			}
			m.SetResourceVersion(strconv.FormatInt(rv.Add(1), 10))
			return true, updated, cs.Tracker().Update(pa.GetResource(), updated, pa.GetNamespace())
		}
		if v := action.GetVerb(); v != "create" && v != "update" {
			return false, nil, nil
		}
		if a, ok := action.(interface{ GetObject() k8sruntime.Object }); ok {
			if m, err := meta.Accessor(a.GetObject()); err == nil {
				m.SetResourceVersion(strconv.FormatInt(rv.Add(1), 10))
			}
		}
		return false, nil, nil
	})
	return cs
}

// liveMergePatch applies a JSON merge patch (RFC 7386), as the API server
// does for types.MergePatchType: objects merge, everything else (lists
// included) is replaced, null deletes.
func liveMergePatch(original, patch []byte) ([]byte, error) {
	var doc, p any
	if err := json.Unmarshal(original, &doc); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	var merge func(target, patch any) any
	merge = func(target, patch any) any {
		pm, ok := patch.(map[string]any)
		if !ok {
			return patch
		}
		tm, ok := target.(map[string]any)
		if !ok {
			tm = map[string]any{}
		}
		for k, v := range pm {
			if v == nil {
				delete(tm, k)
				continue
			}
			tm[k] = merge(tm[k], v)
		}
		return tm
	}
	return json.Marshal(merge(doc, p))
}

// liveRecorder is the Observer of these tests: it counts events by kind and
// result, renders and sends, and keeps them in order.
type liveRecorder struct {
	rendered atomic.Int64
	sent     atomic.Int64

	mu       sync.Mutex
	log      []string // "Kind changed", "Kind filtered", "rendered", "sent"
	changed  map[string]int
	filtered map[string]int
	kinds    map[string]int // renders by kind (RenderKindObserver)
	work     [2]int         // Ingresses translated, load balancers refreshed (RenderWorkObserver)
	onRender func()         // called once, from the next Rendered
}

func newLiveRecorder() *liveRecorder {
	return &liveRecorder{changed: map[string]int{}, filtered: map[string]int{}, kinds: map[string]int{}}
}

func (r *liveRecorder) RenderedKind(kind string) {
	r.mu.Lock()
	r.kinds[kind]++
	r.mu.Unlock()
}

func (r *liveRecorder) RenderedWork(translated, refreshed int) {
	r.mu.Lock()
	r.work[0] += translated
	r.work[1] += refreshed
	r.mu.Unlock()
}

func (r *liveRecorder) renderWork() [2]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.work
}

func (r *liveRecorder) renderKinds() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.kinds)
}

func (r *liveRecorder) Event(kind string, changed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if changed {
		r.changed[kind]++
		r.log = append(r.log, kind+" changed")
	} else {
		r.filtered[kind]++
		r.log = append(r.log, kind+" filtered")
	}
}

func (r *liveRecorder) Rendered(time.Time, time.Duration, int) {
	r.mu.Lock()
	r.log = append(r.log, "rendered")
	hook := r.onRender
	r.onRender = nil
	r.mu.Unlock()
	r.rendered.Add(1)
	if hook != nil {
		hook()
	}
}

func (r *liveRecorder) Sent() {
	r.mu.Lock()
	r.log = append(r.log, "sent")
	r.mu.Unlock()
	r.sent.Add(1)
}

func (r *liveRecorder) counts(kind string) (changed, filtered int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed[kind], r.filtered[kind]
}

func (r *liveRecorder) logLen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log)
}

func (r *liveRecorder) logSince(i int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log[i:])
}

// liveWaitFor polls cond until it holds, or fails the test after liveWait.
func liveWaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", liveWait, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// liveProvider is a Provide running in a goroutine.
type liveProvider struct {
	t      *testing.T
	cs     *fake.Clientset
	p      *Provider
	obs    *liveRecorder
	out    chan dynamic.Message
	cancel context.CancelFunc
	done   chan struct{} // closed when Provide returned
	err    error         // what it returned

	stopOnce sync.Once
}

// startLive runs Provide on cs with the default options, a short sync
// timeout and no throttling, changed by configure. Stopping it and checking
// that no goroutine is left behind are registered as cleanups.
func startLive(t *testing.T, cs *fake.Clientset, configure func(*Provider)) *liveProvider {
	t.Helper()
	before := liveGoroutines()
	p := &Provider{}
	p.SetDefaults()
	p.SyncTimeout = ptypes.Duration(5 * time.Second)
	if configure != nil {
		configure(p)
	}
	p.SetClientset(cs)
	obs := newLiveRecorder()
	p.SetObserver(obs)
	require.NoError(t, p.Init())
	ctx, cancel := context.WithCancel(context.Background())
	lp := &liveProvider{t: t, cs: cs, p: p, obs: obs, out: make(chan dynamic.Message), cancel: cancel, done: make(chan struct{})}
	go func() {
		lp.err = p.Provide(ctx, lp.out)
		close(lp.done)
	}()
	t.Cleanup(func() {
		lp.stop()
		liveCheckNoGoroutineLeft(t, before)
	})
	return lp
}

// stop cancels Provide and checks that it returns nil within a few seconds,
// without anybody reading out.
func (lp *liveProvider) stop() {
	lp.t.Helper()
	lp.stopOnce.Do(func() {
		lp.cancel()
		select {
		case <-lp.done:
			assert.NoError(lp.t, lp.err, "Provide returns nil on cancel")
		case <-time.After(5 * time.Second):
			lp.t.Error("Provide did not return within 5s of its context being cancelled")
		}
	})
}

// next returns the next configuration, failing the test when none comes.
func (lp *liveProvider) next() *dynamic.Configuration {
	lp.t.Helper()
	select {
	case msg := <-lp.out:
		assert.Equal(lp.t, ProviderName, msg.ProviderName)
		require.NotNil(lp.t, msg.Configuration)
		return msg.Configuration
	case <-lp.done:
		lp.t.Fatalf("Provide returned early: %v", lp.err)
	case <-time.After(liveWait):
		lp.t.Fatalf("no configuration within %s", liveWait)
	}
	return nil
}

// nextUntil reads configurations until one satisfies cond; it returns it
// and how many were read.
func (lp *liveProvider) nextUntil(what string, cond func(*dynamic.Configuration) bool) (*dynamic.Configuration, int) {
	lp.t.Helper()
	deadline := time.After(liveWait)
	for n := 1; ; n++ {
		select {
		case msg := <-lp.out:
			if cond(msg.Configuration) {
				return msg.Configuration, n
			}
		case <-lp.done:
			lp.t.Fatalf("Provide returned early: %v", lp.err)
		case <-deadline:
			lp.t.Fatalf("no configuration with %s within %s (%d read)", what, liveWait, n-1)
		}
	}
}

// waitInitialEvents waits until the add events of the objects the cluster
// started with have reached the observer: from then on, every event the
// observer sees comes from a change made by the test.
func (lp *liveProvider) waitInitialEvents(objs map[string]k8sruntime.Object) {
	lp.t.Helper()
	want := map[string]int{}
	for key := range objs {
		kind, _, _ := strings.Cut(key, "/")
		want[kind]++
	}
	if _, ok := objs["Service/np"]; !ok {
		// Nodes are watched only when a node-port Service is served.
		delete(want, "Node")
	}
	for kind, n := range want {
		liveWaitFor(lp.t, fmt.Sprintf("%d add events of kind %s", n, kind), func() bool {
			c, _ := lp.obs.counts(kind)
			return c >= n
		})
	}
}

// liveMutate gets an object, changes it and updates it, as a controller does.
func liveMutate[T k8sruntime.Object](t *testing.T, get func(context.Context, string, metav1.GetOptions) (T, error),
	update func(context.Context, T, metav1.UpdateOptions) (T, error), name string, change func(T),
) {
	t.Helper()
	obj, err := get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	change(obj)
	_, err = update(context.Background(), obj, metav1.UpdateOptions{})
	require.NoError(t, err)
}

func liveMutateSlice(t *testing.T, cs *fake.Clientset, name string, change func(*discoveryv1.EndpointSlice)) {
	t.Helper()
	c := cs.DiscoveryV1().EndpointSlices(liveNS)
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateService(t *testing.T, cs *fake.Clientset, name string, change func(*corev1.Service)) {
	t.Helper()
	c := cs.CoreV1().Services(liveNS)
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateIngress(t *testing.T, cs *fake.Clientset, name string, change func(*netv1.Ingress)) {
	t.Helper()
	c := cs.NetworkingV1().Ingresses(liveNS)
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateClass(t *testing.T, cs *fake.Clientset, name string, change func(*netv1.IngressClass)) {
	t.Helper()
	c := cs.NetworkingV1().IngressClasses()
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateSecret(t *testing.T, cs *fake.Clientset, name string, change func(*corev1.Secret)) {
	t.Helper()
	c := cs.CoreV1().Secrets(liveNS)
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveMutateNode(t *testing.T, cs *fake.Clientset, name string, change func(*corev1.Node)) {
	t.Helper()
	c := cs.CoreV1().Nodes()
	liveMutate(t, c.Get, c.Update, name, change)
}

func liveSetAddress(addr string) func(*discoveryv1.EndpointSlice) {
	return func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Addresses = []string{addr} }
}

// liveServerURLs are the server URLs of a service of the configuration, or nil
// when it has no such service.
func liveServerURLs(conf *dynamic.Configuration, key string) []string {
	svc, ok := conf.HTTP.Services[key]
	if !ok || svc.LoadBalancer == nil {
		return nil
	}
	var urls []string
	for _, s := range svc.LoadBalancer.Servers {
		urls = append(urls, s.URL)
	}
	return urls
}

// liveRuleFor returns the rule of the router of a host, or "".
func liveRuleFor(conf *dynamic.Configuration, host string) string {
	for _, r := range conf.HTTP.Routers {
		if strings.Contains(r.Rule, `Host("`+host+`")`) {
			return r.Rule
		}
	}
	return ""
}

func liveCertFiles(conf *dynamic.Configuration) []string {
	if conf.TLS == nil {
		return nil
	}
	var out []string
	for _, c := range conf.TLS.Certificates {
		out = append(out, c.CertFile)
	}
	return out
}

// liveJSON is the configuration as generic JSON values, to compare two
// configurations or to edit a copy of one.
func liveJSON(t *testing.T, conf *dynamic.Configuration) map[string]any {
	t.Helper()
	data, err := json.Marshal(conf)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(data, &v))
	return v
}

func TestProvideEveryKindReachesTheOutput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		edit      func(map[string]k8sruntime.Object) // the cluster Provide starts on
		configure func(*Provider)
		change    func(t *testing.T, cs *fake.Clientset)
		check     func(t *testing.T, before, after *dynamic.Configuration)
		// when set, the Ingresses translated and the load balancers
		// refreshed by the renders of the change (RenderWorkObserver)
		work *[2]int
	}{
		{
			name: "Ingress added",
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.NetworkingV1().Ingresses(liveNS).Create(ctx, liveIngress("api", "sliceway", "api.example", "web", livePortHTTP, 2), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Empty(t, liveRuleFor(before, "api.example"))
				assert.Equal(t, `Host("api.example") && PathPrefix("/")`, liveRuleFor(after, "api.example"))
				assert.NotEmpty(t, liveRuleFor(after, "web.example"))
			},
		},
		{
			name: "Ingress updated",
			work: &[2]int{1, 0},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateIngress(t, cs, "web", func(i *netv1.Ingress) { i.Spec.Rules[0].Host = "www.example" })
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "web.example"))
				assert.Empty(t, liveRuleFor(after, "web.example"))
				assert.Equal(t, `Host("www.example") && PathPrefix("/")`, liveRuleFor(after, "www.example"))
			},
		},
		{
			name: "Ingress deleted",
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.NetworkingV1().Ingresses(liveNS).Delete(ctx, "web", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Len(t, before.HTTP.Routers, 1)
				assert.Empty(t, after.HTTP.Routers)
				assert.Empty(t, after.HTTP.Services)
				assert.Nil(t, after.TLS)
			},
		},
		{
			name: "Ingress labels no longer match the labelSelector",
			edit: func(objs map[string]k8sruntime.Object) {
				objs["Ingress/web"].(*netv1.Ingress).Labels = map[string]string{"team": "shop"}
			},
			configure: func(p *Provider) { p.LabelSelector = "team=shop" },
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateIngress(t, cs, "web", func(i *netv1.Ingress) { i.Labels["team"] = "blog" })
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "web.example"))
				assert.Empty(t, after.HTTP.Routers)
			},
		},
		{
			name: "IngressClass added",
			edit: func(objs map[string]k8sruntime.Object) {
				objs["Ingress/late"] = liveIngress("late", "late", "late.example", "web", livePortHTTP, 1)
			},
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.NetworkingV1().IngressClasses().Create(ctx, liveClass("late", ControllerName, false), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Empty(t, liveRuleFor(before, "late.example"), "its class does not exist yet")
				assert.NotEmpty(t, liveRuleFor(after, "late.example"))
			},
		},
		{
			name: "IngressClass is-default-class annotation",
			edit: func(objs map[string]k8sruntime.Object) {
				// An Ingress without a class is ours only while the
				// cluster's default class is ours.
				objs["IngressClass/nginx"] = liveClass("nginx", "k8s.io/ingress-nginx", false)
				objs["Ingress/noclass"] = liveIngress("noclass", "", "noclass.example", "web", livePortHTTP, 1)
			},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateClass(t, cs, "sliceway", func(c *netv1.IngressClass) { delete(c.Annotations, AnnotationDefaultClass) })
				liveMutateClass(t, cs, "nginx", func(c *netv1.IngressClass) {
					c.Annotations = map[string]string{AnnotationDefaultClass: "true"}
				})
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "noclass.example"))
				// Without any default class, an Ingress without a class
				// is still ours: the first update changes nothing, and
				// the next configuration is that of the second.
				assert.Empty(t, liveRuleFor(after, "noclass.example"), "the default class is nginx's")
				assert.NotEmpty(t, liveRuleFor(after, "web.example"))
			},
		},
		{
			name: "IngressClass updated",
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateClass(t, cs, "sliceway", func(c *netv1.IngressClass) { c.Spec.Controller = "k8s.io/ingress-nginx" })
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "web.example"))
				assert.Empty(t, after.HTTP.Routers, "the class is no longer ours")
			},
		},
		{
			name: "IngressClass deleted",
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.NetworkingV1().IngressClasses().Delete(ctx, "sliceway", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotEmpty(t, liveRuleFor(before, "web.example"))
				assert.Empty(t, after.HTTP.Routers)
			},
		},
		{
			name: "Service added",
			edit: func(objs map[string]k8sruntime.Object) {
				objs["Ingress/api"] = liveIngress("api", "sliceway", "api.example", "api", livePortHTTP, 1)
				objs["EndpointSlice/api-1"] = liveSlice("api-1", "api", "10.0.1.1")
			},
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.CoreV1().Services(liveNS).Create(ctx, liveService("api"), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Nil(t, liveServerURLs(before, "shop-api-http"))
				assert.Equal(t, []string{"http://10.0.1.1:8080"}, liveServerURLs(after, "shop-api-http"))
				assert.NotEmpty(t, liveRuleFor(after, "api.example"))
			},
		},
		{
			name: "Service updated",
			work: &[2]int{0, 1},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateService(t, cs, "web", func(s *corev1.Service) {
					s.Annotations = map[string]string{AnnotationPrefix + "service.serversscheme": "https"}
				})
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(before, liveWebKey))
				assert.Equal(t, []string{"https://10.0.0.1:8080"}, liveServerURLs(after, liveWebKey))
			},
		},
		{
			name: "Service deleted",
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.CoreV1().Services(liveNS).Delete(ctx, "web", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotNil(t, liveServerURLs(before, liveWebKey))
				assert.NotContains(t, after.HTTP.Services, liveWebKey)
				assert.Empty(t, after.HTTP.Routers)
			},
		},
		{
			name: "EndpointSlice added",
			work: &[2]int{0, 1},
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.DiscoveryV1().EndpointSlices(liveNS).Create(ctx, liveSlice("web-2", "web", "10.0.0.2"), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(before, liveWebKey))
				assert.Equal(t, []string{"http://10.0.0.1:8080", "http://10.0.0.2:8080"}, liveServerURLs(after, liveWebKey))
			},
		},
		{
			name: "EndpointSlice updated",
			work: &[2]int{0, 1},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.3"))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(before, liveWebKey))
				assert.Equal(t, []string{"http://10.0.0.3:8080"}, liveServerURLs(after, liveWebKey))
			},
		},
		{
			name: "EndpointSlice deleted",
			work: &[2]int{1, 0},
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.DiscoveryV1().EndpointSlices(liveNS).Delete(ctx, "web-1", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotNil(t, liveServerURLs(before, liveWebKey))
				assert.NotContains(t, after.HTTP.Services, liveWebKey, "a service without servers is dropped")
				assert.Empty(t, after.HTTP.Routers)
			},
		},
		{
			name: "Secret added",
			edit: func(objs map[string]k8sruntime.Object) { delete(objs, "Secret/web-tls") },
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.CoreV1().Secrets(liveNS).Create(ctx, liveSecret("web-tls", "web.example"), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Nil(t, before.TLS)
				assert.Equal(t, []string{liveCertString("web.example")}, liveCertFiles(after))
			},
		},
		{
			name: "Secret updated",
			work: &[2]int{1, 0},
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateSecret(t, cs, "web-tls", func(s *corev1.Secret) {
					s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey] = liveCert("www.example")
				})
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{liveCertString("web.example")}, liveCertFiles(before))
				assert.Equal(t, []string{liveCertString("www.example")}, liveCertFiles(after))
			},
		},
		{
			name: "Secret deleted",
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.CoreV1().Secrets(liveNS).Delete(ctx, "web-tls", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Len(t, liveCertFiles(before), 1)
				assert.Nil(t, after.TLS)
				assert.NotEmpty(t, liveRuleFor(after, "web.example"), "the routes are kept without the certificate")
			},
		},
		{
			name: "Node added",
			edit: liveWithNodePorts,
			change: func(t *testing.T, cs *fake.Clientset) {
				_, err := cs.CoreV1().Nodes().Create(ctx, liveNode("n2", "192.168.0.2"), metav1.CreateOptions{})
				require.NoError(t, err)
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://192.168.0.1:30080"}, liveServerURLs(before, "shop-np-80"))
				assert.Equal(t, []string{"http://192.168.0.1:30080", "http://192.168.0.2:30080"}, liveServerURLs(after, "shop-np-80"))
			},
		},
		{
			name: "Node updated",
			work: &[2]int{0, 1},
			edit: liveWithNodePorts,
			change: func(t *testing.T, cs *fake.Clientset) {
				liveMutateNode(t, cs, "n1", func(n *corev1.Node) { n.Status.Addresses[0].Address = "192.168.0.11" })
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.Equal(t, []string{"http://192.168.0.1:30080"}, liveServerURLs(before, "shop-np-80"))
				assert.Equal(t, []string{"http://192.168.0.11:30080"}, liveServerURLs(after, "shop-np-80"))
			},
		},
		{
			name: "Node deleted",
			edit: liveWithNodePorts,
			change: func(t *testing.T, cs *fake.Clientset) {
				require.NoError(t, cs.CoreV1().Nodes().Delete(ctx, "n1", metav1.DeleteOptions{}))
			},
			check: func(t *testing.T, before, after *dynamic.Configuration) {
				assert.NotNil(t, liveServerURLs(before, "shop-np-80"))
				assert.NotContains(t, after.HTTP.Services, "shop-np-80", "no node is left")
				assert.Empty(t, liveRuleFor(after, "np.example"))
				assert.NotEmpty(t, liveRuleFor(after, "web.example"))
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := liveCluster()
			if tc.edit != nil {
				tc.edit(objs)
			}
			cs := newLiveFakeCluster(objs)
			lp := startLive(t, cs, tc.configure)
			before := lp.next()
			lp.waitInitialEvents(objs)
			kinds, work := lp.obs.renderKinds(), lp.obs.renderWork()
			tc.change(t, cs)
			after := lp.next()
			tc.check(t, before, after)
			if tc.work != nil {
				now := lp.obs.renderWork()
				assert.Equal(t, *tc.work, [2]int{now[0] - work[0], now[1] - work[1]},
					"Ingresses translated and load balancers refreshed by the change")
			}
			// Every kind of change renders incrementally: no full render
			// after the first configuration (which may take two, when it
			// finds that Nodes are needed).
			assert.Equal(t, kinds["full"], lp.obs.renderKinds()["full"], "full renders after the change")
			assert.Positive(t, lp.obs.renderKinds()["incremental"], "incremental renders")
		})
	}
}

func TestProvideFirstConfigurationAfterSync(t *testing.T) {
	objs := liveCluster()
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, nil)
	conf := lp.next()
	// Everything the cluster holds is in the first configuration: it is
	// sent after the caches are synced, not while they fill.
	assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(conf, liveWebKey))
	assert.Equal(t, `Host("web.example") && PathPrefix("/")`, liveRuleFor(conf, "web.example"))
	assert.Len(t, liveCertFiles(conf), 1)
	// Sent is called once the reader has the configuration.
	liveWaitFor(t, "Sent", func() bool { return lp.obs.sent.Load() >= 1 })
	assert.EqualValues(t, 1, lp.obs.sent.Load())

	// Every initial object is an add event that counts.
	lp.waitInitialEvents(objs)
	for _, kind := range []string{"Ingress", "IngressClass", "Service", "EndpointSlice", "Secret"} {
		changed, filtered := lp.obs.counts(kind)
		assert.Equal(t, 1, changed, kind)
		assert.Zero(t, filtered, kind)
	}
}

func TestProvideWatchesNodesOnlyWhenNeeded(t *testing.T) {
	ctx := context.Background()
	objs := liveCluster()
	objs["Node/n1"] = liveNode("n1", "192.168.0.1")
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, nil)
	lp.next()

	listsNodes := func() bool {
		for _, a := range cs.Actions() {
			if a.GetResource().Resource == "nodes" && (a.GetVerb() == "list" || a.GetVerb() == "watch") {
				return true
			}
		}
		return false
	}
	assert.False(t, listsNodes(), "no Service needs Nodes: they are not watched")

	// A node-port Service makes the provider watch Nodes.
	_, err := cs.CoreV1().Services(liveNS).Create(ctx, liveNodePortService("np"), metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.NetworkingV1().Ingresses(liveNS).Create(ctx, liveIngress("np", "sliceway", "np.example", "np", livePort80, 1), metav1.CreateOptions{})
	require.NoError(t, err)
	conf, _ := lp.nextUntil("node-port servers", func(c *dynamic.Configuration) bool {
		return liveServerURLs(c, "shop-np-80") != nil
	})
	assert.Equal(t, []string{"http://192.168.0.1:30080"}, liveServerURLs(conf, "shop-np-80"))
	assert.True(t, listsNodes())
}

func TestProvideIgnoresUpdatesThatCannotChangeTheOutput(t *testing.T) {
	objs := liveCluster()
	liveWithNodePorts(objs)
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, nil)
	before := lp.next()
	require.Equal(t, []string{"http://192.168.0.1:30080"}, liveServerURLs(before, "shop-np-80"), "Nodes are watched")
	lp.waitInitialEvents(objs)
	liveWaitFor(t, "Sent", func() bool { return lp.obs.sent.Load() >= 1 })
	mark := lp.obs.logLen()

	for _, u := range []struct {
		name, kind string
		update     func(t *testing.T)
	}{
		{"slice annotations and an unrelated label", "EndpointSlice", func(t *testing.T) {
			liveMutateSlice(t, cs, "web-1", func(s *discoveryv1.EndpointSlice) {
				s.Annotations = map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": time.Now().Format(time.RFC3339)}
				s.Labels["pod-template-hash"] = "abc"
			})
		}},
		{"slice resourceVersion only", "EndpointSlice", func(t *testing.T) {
			liveMutateSlice(t, cs, "web-1", func(*discoveryv1.EndpointSlice) {})
		}},
		{"Service annotation of another tool", "Service", func(t *testing.T) {
			liveMutateService(t, cs, "web", func(s *corev1.Service) {
				s.Annotations = map[string]string{"prometheus.io/scrape": "true"}
			})
		}},
		{"Service last-applied annotation", "Service", func(t *testing.T) {
			liveMutateService(t, cs, "web", func(s *corev1.Service) {
				s.Annotations[corev1.LastAppliedConfigAnnotation] = `{"kind":"Service"}`
			})
		}},
		{"Secret label", "Secret", func(t *testing.T) {
			liveMutateSecret(t, cs, "web-tls", func(s *corev1.Secret) { s.Labels = map[string]string{"team": "a"} })
		}},
		{"Secret data nobody reads (dropped by the transform)", "Secret", func(t *testing.T) {
			liveMutateSecret(t, cs, "web-tls", func(s *corev1.Secret) { s.Data["ca.crt"] = []byte("a CA") })
		}},
		{"Ingress annotation of another tool", "Ingress", func(t *testing.T) {
			liveMutateIngress(t, cs, "web", func(i *netv1.Ingress) {
				i.Annotations = map[string]string{"cert-manager.io/cluster-issuer": "letsencrypt"}
			})
		}},
		{"Ingress generation and managedFields", "Ingress", func(t *testing.T) {
			liveMutateIngress(t, cs, "web", func(i *netv1.Ingress) {
				i.Generation++
				i.ManagedFields = append(i.ManagedFields, metav1.ManagedFieldsEntry{Manager: "someone", Operation: metav1.ManagedFieldsOperationUpdate})
			})
		}},
		{"IngressClass label", "IngressClass", func(t *testing.T) {
			liveMutateClass(t, cs, "sliceway", func(c *netv1.IngressClass) { c.Labels = map[string]string{"team": "a"} })
		}},
		{"Node heartbeat, images and allocatable", "Node", func(t *testing.T) {
			liveMutateNode(t, cs, "n1", func(n *corev1.Node) {
				n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(liveEpoch.Add(time.Minute))
				n.Status.Images = []corev1.ContainerImage{{Names: []string{"nginx:1"}}}
				n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
			})
		}},
	} {
		changed, filtered := lp.obs.counts(u.kind)
		u.update(t)
		liveWaitFor(t, u.name+" to reach the observer", func() bool {
			c, f := lp.obs.counts(u.kind)
			return c+f > changed+filtered
		})
		c, f := lp.obs.counts(u.kind)
		assert.Equal(t, []int{changed, filtered + 1}, []int{c, f}, "%s: filtered, not changed", u.name)
	}
	for _, e := range lp.obs.logSince(mark) {
		assert.True(t, strings.HasSuffix(e, " filtered") || e == "rendered", "only filtered events: got %q", e)
	}

	// A real change: the next configuration differs from the first one by
	// this change alone, so nothing was sent in between.
	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.5"))
	after := lp.next()
	want := liveJSON(t, before)
	want["http"].(map[string]any)["services"].(map[string]any)[liveWebKey].(map[string]any)["loadBalancer"].(map[string]any)["servers"] =
		[]any{map[string]any{"url": "http://10.0.0.5:8080"}}
	assert.Equal(t, want, liveJSON(t, after))
	liveWaitFor(t, "Sent", func() bool { return lp.obs.sent.Load() >= 2 })
	assert.EqualValues(t, 2, lp.obs.sent.Load())

	// Filtered updates cause no render: before the real change's event,
	// the only renders are those of the initial adds (one under way and one
	// pending at most, when an add arrived during the first render).
	log := lp.obs.logSince(mark)
	real := slices.Index(log, "EndpointSlice changed")
	require.GreaterOrEqual(t, real, 0, "%v", log)
	renders := 0
	for _, e := range log[:real] {
		if e == "rendered" {
			renders++
		}
	}
	assert.LessOrEqual(t, renders, 2, "renders while only ignored updates arrived: %v", log)
}

func TestProvideCoalescesABurst(t *testing.T) {
	const throttle = 500 * time.Millisecond
	objs := liveCluster()
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, func(p *Provider) { p.ThrottleDuration = ptypes.Duration(throttle) })
	lp.next()
	lp.waitInitialEvents(objs)

	const updates = 50
	start := time.Now()
	for i := 1; i <= updates; i++ {
		liveMutateSlice(t, cs, "web-1", liveSetAddress(fmt.Sprintf("10.1.0.%d", i)))
	}
	elapsed := time.Since(start)
	final := fmt.Sprintf("http://10.1.0.%d:8080", updates)
	last, n := lp.nextUntil("the last update", func(c *dynamic.Configuration) bool {
		return slices.Equal(liveServerURLs(c, liveWebKey), []string{final})
	})
	// One render may start at the first event of the burst; after it, the
	// renders are at least a throttle apart, and the last one sees the
	// final state: two configurations for a burst shorter than the throttle.
	bound := 2 + int(elapsed/throttle)
	t.Logf("%d updates in %s gave %d configurations (bound %d)", updates, elapsed, n, bound)
	assert.LessOrEqual(t, n, bound)
	assert.Less(t, n, updates/10, "a burst is coalesced")

	// The last configuration is what a fresh translation of the cluster gives.
	client, err := NewClient(cs, ClientOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client.Start(ctx)
	require.NoError(t, client.WaitForSync(ctx, 5*time.Second))
	fresh := Translate(client.Snapshot(), lp.p)
	assert.Equal(t, fresh.Configuration, last)

	// Nothing else was queued behind it: the next configuration is the
	// next change.
	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.2.0.1"))
	assert.Equal(t, []string{"http://10.2.0.1:8080"}, liveServerURLs(lp.next(), liveWebKey))
}

func TestProvideRendersAChangeMadeDuringARender(t *testing.T) {
	objs := liveCluster()
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, nil)
	lp.next()
	lp.waitInitialEvents(objs)

	// The next render, after it has read the caches and before it sends,
	// sees the slice change once more, and waits until the change has been
	// through the event handler.
	lp.obs.mu.Lock()
	lp.obs.onRender = func() {
		changed, _ := lp.obs.counts("EndpointSlice")
		c := cs.DiscoveryV1().EndpointSlices(liveNS)
		s, err := c.Get(context.Background(), "web-1", metav1.GetOptions{})
		if !assert.NoError(t, err) {
			return
		}
		s.Endpoints[0].Addresses = []string{"10.0.0.99"}
		if _, err := c.Update(context.Background(), s, metav1.UpdateOptions{}); !assert.NoError(t, err) {
			return
		}
		deadline := time.Now().Add(liveWait)
		for {
			if c, _ := lp.obs.counts("EndpointSlice"); c > changed {
				return
			}
			if time.Now().After(deadline) {
				t.Error("the change made during a render never reached the event handler")
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	lp.obs.mu.Unlock()

	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.7"))
	conf, _ := lp.nextUntil("the change made during the render", func(c *dynamic.Configuration) bool {
		return slices.Contains(liveServerURLs(c, liveWebKey), "http://10.0.0.99:8080")
	})
	assert.Equal(t, []string{"http://10.0.0.99:8080"}, liveServerURLs(conf, liveWebKey))
}

func TestProvideReturnsOnCancel(t *testing.T) {
	forbidNodes := func(cs *fake.Clientset) {
		cs.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("no RBAC rule"))
		})
	}
	forbidSlices := func(cs *fake.Clientset) {
		cs.PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, "", errors.New("no RBAC rule"))
		})
	}
	for _, tc := range []struct {
		name  string
		edit  func(map[string]k8sruntime.Object)
		setup func(cs *fake.Clientset)
		// until brings Provide where it must be cancelled.
		until func(t *testing.T, lp *liveProvider)
	}{
		{
			name: "nobody reads the first configuration",
			until: func(t *testing.T, lp *liveProvider) {
				liveWaitFor(t, "a render", func() bool { return lp.obs.rendered.Load() >= 1 })
			},
		},
		{
			name: "nobody reads a new configuration",
			until: func(t *testing.T, lp *liveProvider) {
				lp.next()
				lp.waitInitialEvents(liveCluster())
				mark := lp.obs.logLen()
				liveMutateSlice(t, lp.cs, "web-1", liveSetAddress("10.0.0.2"))
				// A render after the change's event sees the change, so it
				// has a new configuration to send, which nobody reads.
				liveWaitFor(t, "a render of the change", func() bool {
					log := lp.obs.logSince(mark)
					i := slices.Index(log, "EndpointSlice changed")
					return i >= 0 && slices.Contains(log[i:], "rendered")
				})
			},
		},
		{
			name: "idle after a configuration was read",
			until: func(t *testing.T, lp *liveProvider) {
				lp.next()
			},
		},
		{
			name:  "the caches never sync",
			setup: forbidSlices,
			until: func(t *testing.T, lp *liveProvider) {
				liveWaitFor(t, "a list", func() bool {
					for _, a := range lp.cs.Actions() {
						if a.GetVerb() == "list" && a.GetResource().Resource == "endpointslices" {
							return true
						}
					}
					return false
				})
			},
		},
		{
			name:  "Nodes never sync",
			edit:  liveWithNodePorts,
			setup: forbidNodes,
			until: func(t *testing.T, lp *liveProvider) {
				liveWaitFor(t, "a list of nodes", func() bool {
					for _, a := range lp.cs.Actions() {
						if a.GetVerb() == "list" && a.GetResource().Resource == "nodes" {
							return true
						}
					}
					return false
				})
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := liveCluster()
			if tc.edit != nil {
				tc.edit(objs)
			}
			cs := newLiveFakeCluster(objs)
			if tc.setup != nil {
				tc.setup(cs)
			}
			lp := startLive(t, cs, func(p *Provider) { p.SyncTimeout = ptypes.Duration(time.Minute) })
			tc.until(t, lp)
			// The cleanup of startLive checks that Provide returns nil within
			// a few seconds and leaves no goroutine behind; do it now.
			lp.stop()
			select {
			case <-lp.out:
				t.Error("a configuration was sent after cancel")
			default:
			}
		})
	}
}

// liveStatusWrites counts the status writes (patches of the status
// subresource) of each Ingress.
type liveStatusWrites struct {
	mu     sync.Mutex
	byName map[string]int
}

func liveRecordStatusWrites(cs *fake.Clientset) *liveStatusWrites {
	w := &liveStatusWrites{byName: map[string]int{}}
	cs.PrependReactor("*", "ingresses", func(action k8stesting.Action) (bool, k8sruntime.Object, error) {
		if action.GetSubresource() != "status" {
			return false, nil, nil
		}
		name := ""
		switch a := action.(type) {
		case k8stesting.PatchAction:
			name = a.GetName()
		case k8stesting.UpdateAction:
			name = a.GetObject().(*netv1.Ingress).Name
		default:
			return false, nil, nil
		}
		w.mu.Lock()
		w.byName[name]++
		w.mu.Unlock()
		return false, nil, nil
	})
	return w
}

func (w *liveStatusWrites) count(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.byName[name]
}

func (w *liveStatusWrites) all() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.byName)
}

func liveIngressStatus(t *testing.T, cs *fake.Clientset, name string) []netv1.IngressLoadBalancerIngress {
	t.Helper()
	ing, err := cs.NetworkingV1().Ingresses(liveNS).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return ing.Status.LoadBalancer.Ingress
}

func liveWaitForStatus(t *testing.T, cs *fake.Clientset, name string, want []netv1.IngressLoadBalancerIngress) {
	t.Helper()
	liveWaitFor(t, "the status of Ingress "+name, func() bool {
		return assert.ObjectsAreEqual(want, liveIngressStatus(t, cs, name))
	})
}

// liveWithOtherClass adds an Ingress of another controller's class; it sorts
// before web, so a status wrongly written to it would be written first.
func liveWithOtherClass(objs map[string]k8sruntime.Object) {
	objs["IngressClass/nginx"] = liveClass("nginx", "k8s.io/ingress-nginx", false)
	objs["Ingress/a-other"] = liveIngress("a-other", "nginx", "other.example", "web", livePortHTTP, 0)
}

func TestProvideWritesIngressStatusOnce(t *testing.T) {
	ctx := context.Background()
	objs := liveCluster()
	liveWithOtherClass(objs)
	cs := newLiveFakeCluster(objs)
	writes := liveRecordStatusWrites(cs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "1.2.3.4"}
		p.LeaderElection = &LeaderElection{Disabled: true}
	})
	lp.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})

	// Changes that render again, and the status write itself coming back
	// through the informer, do not write the status again.
	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.2"))
	lp.next()
	liveMutateSlice(t, cs, "web-1", liveSetAddress("10.0.0.3"))
	lp.next()

	// A newer served Ingress gets its status in a pass that looks at web
	// first: once it is written, every pass that could rewrite web is over.
	_, err := cs.NetworkingV1().Ingresses(liveNS).Create(ctx, liveIngress("zz-second", "sliceway", "second.example", "web", livePortHTTP, 5), metav1.CreateOptions{})
	require.NoError(t, err)
	lp.next()
	liveWaitForStatus(t, cs, "zz-second", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})

	assert.Equal(t, map[string]int{"web": 1, "zz-second": 1}, writes.all())
	assert.Empty(t, liveIngressStatus(t, cs, "a-other"), "an Ingress of another class gets no status")
}

// TestProvideStatusWriteKeepsTheIngressMetadata: the informer cache holds
// Ingresses trimmed by k8s.Transform (no last-applied-configuration
// annotation, no managedFields). The status subresource of Ingresses takes
// metadata from the request (its strategy resets only the spec), so a status
// update built from the cached copy must not remove what the cache dropped.
func TestProvideStatusWriteKeepsTheIngressMetadata(t *testing.T) {
	objs := liveCluster()
	web := objs["Ingress/web"].(*netv1.Ingress)
	lastApplied := `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web","namespace":"shop"}}`
	web.Annotations = map[string]string{
		corev1.LastAppliedConfigAnnotation: lastApplied,
		"example.com/owner":                "team-a",
	}
	cs := newLiveFakeCluster(objs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "1.2.3.4"}
		p.LeaderElection = &LeaderElection{Disabled: true}
	})
	lp.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})
	ing, err := cs.NetworkingV1().Ingresses(liveNS).Get(context.Background(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		corev1.LastAppliedConfigAnnotation: lastApplied,
		"example.com/owner":                "team-a",
	}, ing.Annotations)
	assert.Equal(t, web.Spec, ing.Spec)
}

func TestProvideCopiesThePublishedServiceStatus(t *testing.T) {
	ctx := context.Background()
	objs := liveCluster()
	liveWithOtherClass(objs)
	lb := liveService("lb")
	lb.Spec.Type = corev1.ServiceTypeLoadBalancer
	lb.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}
	objs["Service/lb"] = lb
	cs := newLiveFakeCluster(objs)
	writes := liveRecordStatusWrites(cs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{PublishedService: liveNS + "/lb"}
		p.LeaderElection = &LeaderElection{Disabled: true}
	})
	lp.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{Hostname: "lb.example.com"}})

	// A new address of the published Service is copied again.
	svc, err := cs.CoreV1().Services(liveNS).Get(ctx, "lb", metav1.GetOptions{})
	require.NoError(t, err)
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}}
	_, err = cs.CoreV1().Services(liveNS).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
	require.NoError(t, err)
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "203.0.113.7"}})

	assert.Equal(t, map[string]int{"web": 2}, writes.all())
	assert.Empty(t, liveIngressStatus(t, cs, "a-other"), "an Ingress of another class gets no status")
}

func liveLeaderElection() *LeaderElection {
	le := &LeaderElection{}
	le.SetDefaults()
	le.LeaseNamespace = "default"
	le.LeaseDuration = ptypes.Duration(time.Second)
	le.RenewDeadline = ptypes.Duration(500 * time.Millisecond)
	le.RetryPeriod = ptypes.Duration(100 * time.Millisecond)
	return le
}

func TestProvideWritesStatusAsTheElectedLeader(t *testing.T) {
	ctx := context.Background()
	cs := newLiveFakeCluster(liveCluster())
	writes := liveRecordStatusWrites(cs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "1.2.3.4"}
		p.LeaderElection = liveLeaderElection()
	})
	lp.next()
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})
	lease, err := cs.CoordinationV1().Leases("default").Get(ctx, "sliceway", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, lease.Spec.HolderIdentity)
	assert.NotEmpty(t, *lease.Spec.HolderIdentity)
	assert.Equal(t, 1, writes.count("web"))
}

func TestProvideWritesNoStatusWhileAnotherReplicaLeads(t *testing.T) {
	ctx := context.Background()
	cs := newLiveFakeCluster(liveCluster())
	now := metav1.NewMicroTime(time.Now())
	_, err := cs.CoordinationV1().Leases("default").Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "sliceway", Namespace: "default"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: new("another-replica"), LeaseDurationSeconds: new(int32(3600)),
			AcquireTime: &now, RenewTime: &now,
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	writes := liveRecordStatusWrites(cs)
	lp := startLive(t, cs, func(p *Provider) {
		p.IngressEndpoint = &EndpointIngress{IP: "1.2.3.4"}
		p.LeaderElection = liveLeaderElection()
	})
	lp.next()
	// Several retry periods: the lease is held, nothing is written.
	liveWaitFor(t, "lease attempts", func() bool {
		n := 0
		for _, a := range cs.Actions() {
			if a.GetResource().Resource == "leases" && a.GetVerb() == "get" {
				n++
			}
		}
		return n >= 5
	})
	assert.Empty(t, writes.all(), "only the leader writes status")
	assert.Empty(t, liveIngressStatus(t, cs, "web"))

	// The other replica goes away: this one leads and writes.
	require.NoError(t, cs.CoordinationV1().Leases("default").Delete(ctx, "sliceway", metav1.DeleteOptions{}))
	liveWaitForStatus(t, cs, "web", []netv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}})
}

// liveLogBuffer is a buffer the provider logs to while the test reads it.
type liveLogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *liveLogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// errorLogs are the error fields of the log lines with this message.
func (b *liveLogBuffer) errorLogs(t *testing.T, message string) []string {
	b.mu.Lock()
	data := slices.Clone(b.buf.Bytes())
	b.mu.Unlock()
	var out []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var entry map[string]any
		require.NoError(t, json.Unmarshal(line, &entry), string(line))
		if entry["message"] == message {
			e, _ := entry["error"].(string)
			out = append(out, e)
		}
	}
	return out
}

func TestProvideReportsAndOutlivesASyncFailure(t *testing.T) {
	const notSynced = "the informer caches are not synced; still trying"
	for _, tc := range []struct {
		name       string
		namespaces []string
		want       string
	}{
		{"all namespaces", nil, "cannot list endpointslices.discovery.k8s.io in all namespaces: forbidden"},
		{"one namespace", []string{liveNS}, `cannot list endpointslices.discovery.k8s.io in namespace "shop": forbidden`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := newLiveFakeCluster(liveCluster())
			var failing atomic.Bool
			failing.Store(true)
			cs.PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
				if failing.Load() {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, "",
						errors.New(`User "system:serviceaccount:x:sliceway" cannot list resource "endpointslices"`))
				}
				return false, nil, nil
			})
			var logs liveLogBuffer
			lp := startLive(t, cs, func(p *Provider) {
				p.SyncTimeout = ptypes.Duration(300 * time.Millisecond)
				p.Namespaces = tc.namespaces
				p.SetLogger(zerolog.New(&logs))
			})
			liveWaitFor(t, "the sync failure to be logged", func() bool { return len(logs.errorLogs(t, notSynced)) > 0 })
			errs := logs.errorLogs(t, notSynced)
			assert.Contains(t, errs[0], tc.want)
			for _, resource := range []string{"services", "secrets", "ingresses", "ingressclasses"} {
				assert.NotContains(t, errs[0], "cannot list "+resource, "only what does not sync is named")
			}
			select {
			case <-lp.done:
				t.Fatalf("Provide returned: %v", lp.err)
			case <-lp.out:
				t.Fatal("a configuration was sent before the caches synced")
			default:
			}

			// The permission is granted: the provider, still trying, syncs
			// and sends the configuration.
			failing.Store(false)
			conf := lp.next()
			assert.Equal(t, []string{"http://10.0.0.1:8080"}, liveServerURLs(conf, liveWebKey))
		})
	}
}

// liveGoroutines returns the stacks of the running goroutines by id.
func liveGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		id, ok := strings.CutPrefix(header, "goroutine ")
		if !ok {
			continue
		}
		id, _, _ = strings.Cut(id, " ")
		out[id] = g
	}
	return out
}

// liveCheckNoGoroutineLeft fails when goroutines of client-go or of sliceway
// that were not running before outlive Provide by more than a few seconds.
func liveCheckNoGoroutineLeft(t *testing.T, before map[string]string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var leaked []string
		for id, stack := range liveGoroutines() {
			if _, old := before[id]; old {
				continue
			}
			if strings.Contains(stack, "k8s.io/") || strings.Contains(stack, "github.com/sliceway/") {
				leaked = append(leaked, stack)
			}
		}
		if len(leaked) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines outlive Provide:\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
