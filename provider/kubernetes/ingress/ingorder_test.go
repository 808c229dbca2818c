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
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
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
	o := newIngressOrder()
	a := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "a"}}
	b := &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "b"}}
	b2 := b.DeepCopy()
	all := func(*netv1.Ingress) bool { return true }
	o.update(nil, b)
	o.update(nil, a)
	require.Equal(t, []*netv1.Ingress{a, b}, o.list(all))
	o.update(b, b2)
	require.Same(t, b2, o.list(all)[1], "an update replaces the object")
	o.update(cache.DeletedFinalStateUnknown{Key: "shop/a", Obj: a}, nil)
	require.Equal(t, []*netv1.Ingress{b2}, o.list(all))
	o.update(b2, nil)
	require.Empty(t, o.list(all))
}
