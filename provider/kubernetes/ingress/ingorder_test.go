package ingress

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/config/dynamic"
)

// checkIngressOrder checks that the client's snapshot lists the Ingresses
// of its stores (the very objects), in key order.
func checkIngressOrder(t *testing.T, c *Client) {
	t.Helper()
	var want []*netv1.Ingress
	for _, ns := range c.spaces {
		for _, o := range ns.ingressInformer.GetStore().List() {
			want = append(want, o.(*netv1.Ingress))
		}
	}
	byKey := func(a, b *netv1.Ingress) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	}
	slices.SortFunc(want, byKey)
	got := listerSnapshot{c}.Ingresses()
	require.Len(t, got, len(want), "Ingresses in the snapshot")
	for i := range want {
		require.Same(t, want[i], got[i], "Ingress %d: %s/%s", i, want[i].Namespace, want[i].Name)
	}
	for i, oi := range (listerSnapshot{c}).orderedIngresses() {
		require.Same(t, want[i], oi.ing)
		checkOrderedNames(t, oi, c.order.build)
	}
}

// checkOrderedNames checks the names kept with an Ingress against those a
// translation writes, and that each router the order built is the one a
// translation builds (with build's options), for the paths that have one.
func checkOrderedNames(t *testing.T, oi *orderedIngress, build *pathBuild) {
	t.Helper()
	ing := oi.ing
	require.Equal(t, ing.Namespace+"/"+ing.Name, oi.key)
	var keys, ids []string
	var routers []*dynamic.Router
	ra, raErr := parseRouterAnnotations(ing.Annotations)
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP != nil {
			for _, path := range rule.HTTP.Paths {
				keys = append(keys, routerKey(ing.Namespace, ing.Name, rule.Host, path.Path))
				id, port := "", ""
				if sb := path.Backend.Service; sb != nil {
					id, port = entryID(ing.Namespace, sb)
				}
				ids = append(ids, id)
				var rt *dynamic.Router
				if build != nil && raErr == nil && id != "" && path.Backend.Resource == nil && checkHost(rule.Host) == nil && checkPath(path, ra.PathMatcher) == nil {
					rt = pathRouter(ra, ing, rule.Host, path, serviceKey(ing.Namespace, path.Backend.Service.Name, port), port, build.strictPrefix)
				}
				routers = append(routers, rt)
			}
		}
	}
	var gotKeys, gotIDs []string
	var gotRouters []*dynamic.Router
	for _, op := range oi.paths {
		gotKeys, gotIDs, gotRouters = append(gotKeys, op.routerKey), append(gotIDs, op.entryID), append(gotRouters, op.router)
	}
	require.Equal(t, keys, gotKeys, "the router keys of %s", oi.key)
	require.Equal(t, ids, gotIDs, "the entry ids of %s", oi.key)
	require.Equal(t, routers, gotRouters, "the routers of %s", oi.key)
}

// TestIngressOrder: the client's snapshot lists the Ingresses of the
// watched namespaces in key order, through creations, updates and
// deletions, without sorting them. (That a full render through it equals
// one that sorts, TestParallelFullRender and TestIndexChoosesServers check:
// their reference snapshot does not say it is ordered.)
func TestIngressOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	cs := fake.NewClientset()
	spaces := []string{"shop", "blog", "api"}
	name := func() string { return fmt.Sprintf("ing-%d", rng.IntN(200)) }
	for range 150 {
		ns := spaces[rng.IntN(len(spaces))]
		_, _ = cs.NetworkingV1().Ingresses(ns).Create(context.Background(), &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name()}}, metav1.CreateOptions{})
	}
	client, ctx := startClient(t, cs, ClientOptions{Namespaces: []string{"shop", "blog"}})
	checkIngressOrder(t, client)
	for step := range 300 {
		ns := spaces[rng.IntN(len(spaces))]
		ings := cs.NetworkingV1().Ingresses(ns)
		n := name()
		var err error
		switch rng.IntN(3) {
		case 0:
			_, err = ings.Create(ctx, &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n}}, metav1.CreateOptions{})
		case 1:
			_, err = ings.Update(ctx, &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n, Labels: map[string]string{"step": fmt.Sprint(step)}}}, metav1.UpdateOptions{})
		default:
			err = ings.Delete(ctx, n, metav1.DeleteOptions{})
		}
		if err != nil {
			continue // already there, or not there
		}
		if ns == "api" {
			continue // not watched
		}
		require.Eventually(t, func() bool {
			o, ok, _ := client.spaces[ns].ingressInformer.GetStore().GetByKey(ns + "/" + n)
			cur, _ := ings.Get(ctx, n, metav1.GetOptions{})
			return ok == (cur != nil && cur.Name != "") && (!ok || o.(*netv1.Ingress).ResourceVersion == cur.ResourceVersion)
		}, 10*time.Second, time.Millisecond)
		// The handler runs after the store changed.
		require.Eventually(t, func() bool { return ingressOrderMatches(client) }, 10*time.Second, time.Millisecond)
	}
	checkIngressOrder(t, client)
}

func ingressOrderMatches(c *Client) bool {
	n := 0
	for _, ns := range c.spaces {
		n += len(ns.ingressInformer.GetStore().List())
	}
	got := listerSnapshot{c}.Ingresses()
	if len(got) != n {
		return false
	}
	for _, ing := range got {
		o, ok, _ := c.spaces[ing.Namespace].ingressInformer.GetStore().GetByKey(ing.Namespace + "/" + ing.Name)
		if !ok || o != ing {
			return false
		}
	}
	return slices.IsSortedFunc(got, func(a, b *netv1.Ingress) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
}

// A delete that the informer learned of late comes as a tombstone.
func TestIngressOrderTombstone(t *testing.T) {
	o := newIngressOrder(nil)
	a := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "a"}}
	b := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "b"}}
	b2 := b.DeepCopy()
	all := func() []*netv1.Ingress {
		var out []*netv1.Ingress
		for _, oi := range o.list(func(*netv1.Ingress) bool { return true }) {
			out = append(out, oi.ing)
		}
		return out
	}
	o.update(nil, b)
	o.update(nil, a)
	require.Equal(t, []*netv1.Ingress{a, b}, all())
	o.update(b, b2)
	require.Same(t, b2, all()[1], "an update replaces the object")
	require.Equal(t, "shop/b", o.list(func(*netv1.Ingress) bool { return true })[1].key)
	o.update(cache.DeletedFinalStateUnknown{Key: "shop/a", Obj: a}, nil)
	require.Equal(t, []*netv1.Ingress{b2}, all())
	o.update(b2, nil)
	require.Empty(t, all())
}

// The names kept with an Ingress are those of its paths, rule by rule,
// rules without paths included; a render takes them by place. With the
// options of the renders, the order builds the router of each path that
// has one whatever the Services say, with those options.
func TestOrderedIngressNames(t *testing.T) {
	prefix := netv1.PathTypePrefix
	path := func(p string, port netv1.ServiceBackendPort) netv1.HTTPIngressPath {
		return netv1.HTTPIngressPath{Path: p, PathType: &prefix, Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "web", Port: port}}}
	}
	http, n80 := netv1.ServiceBackendPort{Name: "http"}, netv1.ServiceBackendPort{Number: 80}
	resource := netv1.HTTPIngressPath{Path: "/bucket", PathType: &prefix, Backend: netv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}}}
	ing := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{
		{Host: "a.example.com", IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{path("/", n80), path("/cart", http), resource}}}},
		{Host: "no-paths.example.com"},
		{Host: "b.example.com", IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{path("/api", n80)}}}},
		{Host: "*.\xffexample.com", IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{path("/", http)}}}},
	}}}
	for _, build := range []*pathBuild{nil, {}, {strictPrefix: true}} {
		oi := newOrderedIngress(ing, build)
		checkOrderedNames(t, oi, build)
		require.Equal(t, routerKey("shop", "web", "b.example.com", "/api"), oi.path(3, 0).routerKey)
		require.Equal(t, "shop/web/#80", oi.path(0, 0).entryID)
		require.Equal(t, "shop/web/http", oi.path(0, 1).entryID)
		require.Empty(t, oi.path(0, 2).entryID, "a resource backend")
		require.Nil(t, oi.path(0, 2).router)
		require.Nil(t, oi.path(4, 0).router, "an invalid host")
		require.Nil(t, oi.path(5, 0), "no path")
		if build == nil {
			require.Nil(t, oi.path(0, 0).router)
			continue
		}
		rt := oi.path(3, 0).router
		require.NotNil(t, rt)
		require.Equal(t, serviceKey("shop", "web", "80"), rt.Service)
		require.Equal(t, build.strictPrefix, rt.Priority != 0, "strictPrefixMatching gives routers a priority")
	}
	var none *orderedIngress
	require.Nil(t, none.path(0, 0))
	require.Empty(t, newOrderedIngress(&netv1.Ingress{}, nil).paths)

	// Annotations that do not parse: no router, the names all the same.
	bad := ing.DeepCopy()
	bad.Annotations = map[string]string{AnnotationPrefix + "router.priority": "high"}
	oi := newOrderedIngress(bad, &pathBuild{})
	checkOrderedNames(t, oi, &pathBuild{})
	for _, op := range oi.paths {
		require.Nil(t, op.router)
	}
	require.Len(t, oi.paths, 5)

	// A path that is not the regular expression router.pathmatcher asks for.
	regex := ing.DeepCopy()
	regex.Annotations = map[string]string{AnnotationPrefix + "router.pathmatcher": "PathRegexp"}
	specific := netv1.PathTypeImplementationSpecific
	regex.Spec.Rules[0].HTTP.Paths[0].PathType, regex.Spec.Rules[0].HTTP.Paths[0].Path = &specific, "/(cart"
	regex.Spec.Rules[0].HTTP.Paths[1].PathType, regex.Spec.Rules[0].HTTP.Paths[1].Path = &specific, "/cart/[0-9]+"
	oi = newOrderedIngress(regex, &pathBuild{})
	checkOrderedNames(t, oi, &pathBuild{})
	require.Nil(t, oi.path(0, 0).router, "an invalid path")
	require.Equal(t, `Host("a.example.com") && PathRegexp("/cart/[0-9]+")`, oi.path(0, 1).router.Rule)
}
