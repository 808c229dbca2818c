package ingress

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/clustergen"
)

// TestIncrementalNameCollisions covers the router names whose outcome
// depends on the order groups are named in: a path whose key is the default
// router's name, and an Ingress whose key equals the hashed name another
// Ingress's conflicting paths get. Renders assemble in full while they
// exist, and incrementally again once they are gone; every render equals a
// full translation.
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
