package ingress

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayfake "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/fake"

	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// TestGatewayIncrementalMatchesFull drives random changes through the
// Gateway provider's informers (EndpointSlices most, Services and the
// routes themselves) and checks after each one that the
// render equals a full one of the same caches, byte for byte, errors and
// the status outcome included, and that it says "changed" exactly when
// the configuration changed. The routes use what follows a load balancer
// in place (weighted services, timeouts' servers transports, backendRef
// filters, mirrors, gRPC's h2c), so a slice change that refreshes the
// load balancers must give what a full render gives.
func TestGatewayIncrementalMatchesFull(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runGatewayIncremental(t, seed) })
	}
}

func runGatewayIncremental(t *testing.T, seed uint64) {
	const services = 12
	crt, key := testobjects.SelfSignedPEM(t)
	renewed, renewedKey := testobjects.SelfSignedPEM(t)
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(services, 6) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	require.NoError(t, cs.Tracker().Add(testobjects.TLSSecret(churnNS, churnCertificate, crt, key)))
	for _, o := range testobjects.Backend(grantedNS, "elsewhere", "10.0.9.1") {
		require.NoError(t, cs.Tracker().Add(o.(k8sruntime.Object)))
	}
	cert := &certificateChurn{pairs: [2][2][]byte{{crt, key}, {renewed, renewedKey}}}
	gw := newGatewayFake(t, gatewayChurnObjects(services)...)
	var events atomic.Int64
	changes := &Changes{}
	opts := &newGatewayProvider(t).Provider
	client, ctx := startClient(t, cs, ClientOptions{OnChange: changes.Record, Notify: func(string, bool) { events.Add(1) },
		Gateway: gw, Provider: opts})
	r := NewRenderer(opts)
	c := &churn{t: t, rnd: rand.New(rand.NewPCG(seed, 11)), cs: cs, events: &events, ctx: ctx, client: client,
		crt: crt, key: key, nsvc: services, created: time.Unix(1_700_000_000, 0)}
	c.want = events.Load()
	prev, _ := r.Render(client.Snapshot(), changes)
	require.NotEmpty(t, prev.Configuration.HTTP.Routers)
	routeSteps, certSteps, objectSteps, checked := 0, 0, 0, 0
	for step := range 300 {
		var what string
		// While an HTTPRoute has the hostname the GRPCRoute may have, a
		// change that reaches the routes of that hostname renders in
		// full: the two kinds contest it, or two HTTPRoutes have one rule
		// (who keeps it is settled over all routers). So does a broken
		// certificate. Other changes must not.
		mayBeFull := sharedHostTaken(c, gw)
		switch n := c.rnd.IntN(10); {
		case n < 7:
			what = c.endpointStep(c.rnd.IntN(services))
		case n < 8:
			what = c.serviceStep(c.rnd.IntN(services))
		case n < 9 || c.rnd.IntN(3) == 0:
			what = gatewayRouteStep(c, gw, services)
			routeSteps++
		case c.rnd.IntN(2) == 0:
			what = gatewayObjectStep(c, gw, changes)
			mayBeFull = true
			objectSteps++
		default:
			var invalid bool
			what, invalid = cert.step(c)
			mayBeFull = mayBeFull || invalid
			certSteps++
		}
		c.wait()
		mayBeFull = mayBeFull || sharedHostTaken(c, gw)
		fulls := r.Stats().Full
		got, changed := r.Render(client.Snapshot(), changes)
		checkParts(t, r, what)
		if !mayBeFull {
			checked++
			if r.Stats().Full != fulls {
				t.Fatalf("step %d (%s): rendered in full", step, what)
			}
		}
		want, _ := NewRenderer(opts).Render(client.Snapshot(), nil)
		if !equalResults(t, want, got) {
			t.Fatalf("step %d (%s): the render differs from a full one", step, what)
		}
		if !reflect.DeepEqual(outcomeOf(want), outcomeOf(got)) {
			t.Fatalf("step %d (%s): the status outcome differs from a full render's", step, what)
		}
		checkChangedSays(t, step, what, prev, got, changed)
		prev = got
	}
	st := r.Stats()
	t.Logf("renders: %+v; %d steps checked for a render in full", st, checked)
	require.Greater(t, st.Incremental, 100, "most slice changes should be taken in without a full render")
	require.Positive(t, st.Refreshed)
	require.Positive(t, routeSteps)
	require.Positive(t, certSteps)
	require.Positive(t, objectSteps)
	// The full renders after a change of a ReferenceGrant, a Namespace or
	// nothing take the routes' parts again; those after a listener of
	// the Gateway comes or goes translate its routes.
	require.Greater(t, st.Reused, 10*objectSteps/2, "full renders should take most routes' parts again")
	require.Greater(t, checked, 100, "most steps must be checked for a render in full")
}

// churnCertificate is the Secret of the HTTPS listener of
// gatewayChurnObjects.
const churnCertificate = "edge-cert"

// certificateChurn changes the certificate of the HTTPS listener of
// gatewayChurnObjects: renewed (one key pair of pairs for the other),
// broken or repaired; or a Secret no Gateway names.
type certificateChurn struct {
	pairs  [2][2][]byte
	now    int
	broken bool
}

// step changes the certificate; invalid says whether it was broken before
// the change or after it, which changes the listener's status and renders
// in full; a renewal does not.
func (cc *certificateChurn) step(c *churn) (what string, invalid bool) {
	secrets := c.cs.CoreV1().Secrets(churnNS)
	if c.rnd.IntN(5) == 0 { // a Secret no Gateway names
		s := testobjects.TLSSecret(churnNS, "unnamed", cc.pairs[c.rnd.IntN(2)][0], cc.pairs[0][1])
		if _, err := secrets.Get(c.ctx, s.Name, metav1.GetOptions{}); err != nil {
			c.did(withErr(secrets.Create(c.ctx, s, metav1.CreateOptions{})))
		} else {
			c.did(withErr(secrets.Update(c.ctx, s, metav1.UpdateOptions{})))
		}
		return "unnamed secret changed", false
	}
	s, err := secrets.Get(c.ctx, churnCertificate, metav1.GetOptions{})
	require.NoError(c.t, err)
	invalid = cc.broken
	if cc.broken = c.rnd.IntN(4) == 0; cc.broken {
		s.Data = map[string][]byte{corev1.TLSCertKey: []byte("garbage"), corev1.TLSPrivateKeyKey: cc.pairs[cc.now][1]}
		what = "certificate broken"
	} else {
		cc.now = 1 - cc.now
		s.Data = map[string][]byte{corev1.TLSCertKey: cc.pairs[cc.now][0], corev1.TLSPrivateKeyKey: cc.pairs[cc.now][1]}
		what = "certificate renewed"
	}
	c.did(withErr(secrets.Update(c.ctx, s, metav1.UpdateOptions{})))
	return what, invalid || cc.broken
}

// gatewayChurnObjects are a GatewayClass of ours, a Gateway with an HTTP
// listener in the generated cluster's namespace, and for each of its
// services Services an HTTPRoute of its own host; one in five sends to
// two Services by weight, one in four has timeouts, one in three runs a
// header filter on its backendRef, one mirrors to the next Service; a
// GRPCRoute sends to the first.
func gatewayChurnObjects(services int) []k8sruntime.Object {
	objs := []k8sruntime.Object{
		&gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "sliceway"},
			Spec: gatewayv1.GatewayClassSpec{ControllerName: DefaultGatewayControllerName}},
		&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: churnNS, Name: "edge"},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: "sliceway",
				Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType},
					{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, TLS: &gatewayv1.ListenerTLSConfig{
						CertificateRefs: []gatewayv1.SecretObjectReference{{Name: churnCertificate}}}},
					// Routes of a Namespace labelled tier=0 only
					// (gatewayObjectStep changes the label).
					{Name: "tenants", Port: 80, Protocol: gatewayv1.HTTPProtocolType, Hostname: new(gatewayv1.Hostname("*.tenants.example.com")),
						AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: new(gatewayv1.NamespacesFromSelector),
							Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "0"}}}}}}}},
	}
	for i := range services {
		objs = append(objs, churnRoute(i, services))
	}
	port := gatewayv1.PortNumber(80)
	// A route of every host on the listener "http" alone: a listener of a
	// narrower hostname on its port (gatewayObjectStep) leaves its
	// attachment as it is and takes that hostname from it (isolation).
	svc := func(i int) gatewayv1.BackendObjectReference {
		return gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(clustergen.Name(i)), Port: &port}
	}
	objs = append(objs,
		// Every host, on the listener "http" alone: a listener of a
		// narrower hostname on its port (gatewayObjectStep) leaves its
		// attachment as it is and takes that hostname from it (isolation).
		extraChurnRoute("catch-all", services+2, "http", "", svc(1)),
		extraChurnRoute("tenant", services+3, "", "a.tenants.example.com", svc(2)),
		extraChurnRoute("crossing", services+1, "", "crossing.example.com", svc(0),
			gatewayv1.BackendObjectReference{Namespace: new(gatewayv1.Namespace(grantedNS)), Name: "elsewhere", Port: &port}))
	objs = append(objs, &gatewayv1.GRPCRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: churnNS, Name: "greeter", CreationTimestamp: clustergen.Created(services)},
		Spec: gatewayv1.GRPCRouteSpec{
			// Not on "http", whose every host the route "catch-all" has.
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge", SectionName: new(gatewayv1.SectionName("https"))}}},
			Hostnames:       []gatewayv1.Hostname{shared},
			Rules: []gatewayv1.GRPCRouteRule{{BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: gatewayv1.BackendRef{
				BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(clustergen.Name(0)), Port: &port}}}}}},
		},
	})
	return objs
}

// shared is the hostname the GRPCRoute of gatewayChurnObjects may have,
// which HTTPRoutes take now and then.
const shared = "grpc0.example.com"

// sharedHostTaken says whether an HTTPRoute has the hostname shared.
func sharedHostTaken(c *churn, gw *gatewayfake.Clientset) bool {
	list, err := gw.GatewayV1().HTTPRoutes(churnNS).List(c.ctx, metav1.ListOptions{})
	require.NoError(c.t, err)
	return slices.ContainsFunc(list.Items, func(r gatewayv1.HTTPRoute) bool { return slices.Contains(r.Spec.Hostnames, shared) })
}

// churnRoute is the HTTPRoute of service i of gatewayChurnObjects.
func churnRoute(i, services int) *gatewayv1.HTTPRoute {
	port := gatewayv1.PortNumber(80)
	ref := func(j int) gatewayv1.BackendObjectReference {
		return gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(clustergen.Name(j % services)), Port: &port}
	}
	rule := gatewayv1.HTTPRouteRule{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: ref(i)}}}}
	if i%5 == 1 {
		rule.BackendRefs[0].Weight = new(int32(1))
		rule.BackendRefs = append(rule.BackendRefs, gatewayv1.HTTPBackendRef{BackendRef: gatewayv1.BackendRef{BackendObjectReference: ref(i + 1), Weight: new(int32(3))}})
	}
	if i%4 == 2 {
		rule.Timeouts = &gatewayv1.HTTPRouteTimeouts{Request: new(gatewayv1.Duration("5s"))}
	}
	if i%3 == 0 {
		rule.BackendRefs[0].Filters = []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier,
			RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "X-Backend", Value: clustergen.Name(i)}}}}}
	}
	if i == 3 {
		rule.Filters = []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestMirror,
			RequestMirror: &gatewayv1.HTTPRequestMirrorFilter{BackendRef: ref(i + 1)}}}
	}
	return &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: churnNS, Name: clustergen.Name(i), CreationTimestamp: clustergen.Created(i)},
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge"}}},
			Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(clustergen.Name(i) + ".example.com")},
			Rules:           []gatewayv1.HTTPRouteRule{rule},
		},
	}
}

// gatewayRouteStep changes one route of gatewayChurnObjects: an
// HTTPRoute goes, comes back, or its backend's weight, its hostname (now
// and then to the one the GRPCRoute may have, until the next route
// step), its path match (which moves its routers among the others'
// priorities) or the listener its parentRef names changes; or the
// GRPCRoute's hostname changes.
func gatewayRouteStep(c *churn, gw *gatewayfake.Clientset, services int) string {
	routes := gw.GatewayV1().HTTPRoutes(churnNS)
	list, err := routes.List(c.ctx, metav1.ListOptions{})
	require.NoError(c.t, err)
	for _, r := range list.Items {
		if slices.Contains(r.Spec.Hostnames, shared) { // for one step only
			r.Spec.Hostnames = []gatewayv1.Hostname{gatewayv1.Hostname(r.Name + ".example.com")}
			c.did(withErr(routes.Update(c.ctx, &r, metav1.UpdateOptions{})))
			return "route back from the shared hostname " + r.Name
		}
	}
	if c.rnd.IntN(8) == 0 {
		grpcs := gw.GatewayV1().GRPCRoutes(churnNS)
		route, err := grpcs.Get(c.ctx, "greeter", metav1.GetOptions{})
		require.NoError(c.t, err)
		host := gatewayv1.Hostname(fmt.Sprintf("grpc%d.example.com", c.rnd.IntN(2)))
		route.Spec.Hostnames = []gatewayv1.Hostname{host}
		c.did(withErr(grpcs.Update(c.ctx, route, metav1.UpdateOptions{})))
		return "grpc route on " + string(host)
	}
	i := c.rnd.IntN(services)
	name := clustergen.Name(i)
	route, err := routes.Get(c.ctx, name, metav1.GetOptions{})
	if err != nil {
		c.did(withErr(routes.Create(c.ctx, churnRoute(i, services), metav1.CreateOptions{})))
		return "route created " + name
	}
	rule := &route.Spec.Rules[0]
	switch c.rnd.IntN(5) {
	case 0:
		c.did(routes.Delete(c.ctx, name, metav1.DeleteOptions{}))
		return "route deleted " + name
	case 1:
		rule.BackendRefs[0].Weight = new(int32(c.rnd.IntN(3)))
	case 2:
		host := fmt.Sprintf("%s-%d.example.com", name, c.rnd.IntN(2))
		if c.rnd.IntN(4) == 0 {
			host = shared
		}
		route.Spec.Hostnames = []gatewayv1.Hostname{gatewayv1.Hostname(host)}
	case 3:
		rule.Matches = nil
		if n := c.rnd.IntN(4); n > 0 {
			rule.Matches = []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{
				Type: new(gatewayv1.PathMatchPathPrefix), Value: new(strings.Repeat("/a", n))}}}
		}
	default:
		ref := &route.Spec.ParentRefs[0]
		if ref.SectionName == nil {
			ref.SectionName = new(gatewayv1.SectionName("missing")) // refused: NoMatchingParent
		} else {
			ref.SectionName = nil
		}
	}
	c.did(withErr(routes.Update(c.ctx, route, metav1.UpdateOptions{})))
	return "route updated " + name
}

// extraChurnRoute is an HTTPRoute of gatewayChurnObjects besides the
// routes of the Services: attached to the Gateway's listener section (all
// of them for ""), for host ("" for every host), with one rule that
// sends to refs, equally.
func extraChurnRoute(name string, created int, section, host string, refs ...gatewayv1.BackendObjectReference) *gatewayv1.HTTPRoute {
	parent := gatewayv1.ParentReference{Name: "edge"}
	if section != "" {
		parent.SectionName = new(gatewayv1.SectionName(section))
	}
	route := &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: churnNS, Name: name, CreationTimestamp: clustergen.Created(created)},
		Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Rules: []gatewayv1.HTTPRouteRule{{}}},
	}
	if host != "" {
		route.Spec.Hostnames = []gatewayv1.Hostname{gatewayv1.Hostname(host)}
	}
	for _, ref := range refs {
		route.Spec.Rules[0].BackendRefs = append(route.Spec.Rules[0].BackendRefs, gatewayv1.HTTPBackendRef{BackendRef: gatewayv1.BackendRef{BackendObjectReference: ref}})
	}
	return route
}

// grantedNS is the namespace the route "crossing" of gatewayChurnObjects
// names a Service in, which a ReferenceGrant there allows now and then.
const grantedNS = "granted"

// gatewayObjectStep changes what every route is attached or checked
// through, which renders in full: a listener of the Gateway comes or
// goes, the ReferenceGrant that lets the route "crossing" name a Service
// in grantedNS comes or goes, the label of the routes' Namespace that the
// listener "tenants" selects changes, or nothing does and the next render
// is a full one all the same.
func gatewayObjectStep(c *churn, gw *gatewayfake.Clientset, changes *Changes) string {
	switch c.rnd.IntN(4) {
	case 0:
		gateways := gw.GatewayV1().Gateways(churnNS)
		g, err := gateways.Get(c.ctx, "edge", metav1.GetOptions{})
		require.NoError(c.t, err)
		what := "listener alt removed"
		alt := func(l gatewayv1.Listener) bool { return l.Name == "alt" }
		if !slices.ContainsFunc(g.Spec.Listeners, alt) {
			g.Spec.Listeners = append(g.Spec.Listeners, gatewayv1.Listener{Name: "alt", Port: 80, Protocol: gatewayv1.HTTPProtocolType,
				Hostname: new(gatewayv1.Hostname("alt.example.com"))})
			what = "listener alt added"
		} else {
			g.Spec.Listeners = slices.DeleteFunc(g.Spec.Listeners, alt)
		}
		c.did(withErr(gateways.Update(c.ctx, g, metav1.UpdateOptions{})))
		return what
	case 1:
		grants := gw.GatewayV1().ReferenceGrants(grantedNS)
		if err := grants.Delete(c.ctx, "routes", metav1.DeleteOptions{}); err == nil {
			c.did(nil)
			return "reference grant deleted"
		}
		c.did(withErr(grants.Create(c.ctx, &gatewayv1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: grantedNS, Name: "routes"},
			Spec: gatewayv1.ReferenceGrantSpec{
				From: []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Namespace: churnNS}},
				To:   []gatewayv1.ReferenceGrantTo{{Kind: "Service"}},
			}}, metav1.CreateOptions{})))
		return "reference grant created"
	case 2:
		namespaces := c.cs.CoreV1().Namespaces()
		ns, err := namespaces.Get(c.ctx, churnNS, metav1.GetOptions{})
		if err != nil {
			c.did(withErr(namespaces.Create(c.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: churnNS,
				Labels: map[string]string{"tier": "0"}}}, metav1.CreateOptions{})))
			return "namespace created"
		}
		tier := fmt.Sprint(c.rnd.IntN(2)) // the listener "tenants" takes the routes of tier 0
		ns.Labels = map[string]string{"tier": tier}
		c.did(withErr(namespaces.Update(c.ctx, ns, metav1.UpdateOptions{})))
		return "namespace in tier " + tier
	default:
		changes.All()
		return "nothing changed, rendered in full"
	}
}
