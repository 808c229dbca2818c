package ingress

import (
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

func TestTranslateDoesNotMutateInput(t *testing.T) {
	snap := richSnapshot(t)
	before := snap.DeepCopy()
	opts := &Provider{StrictPrefixMatching: true, NativeLBByDefault: false, AllowEmptyServices: true}
	opts.SetDefaults()
	optsBefore := mustJSON(t, opts) // the options a user sets; the provider's own caches may change

	res := translateOnce(t, snap, opts)
	require.NotEmpty(t, res.Configuration.HTTP.Routers)

	assert.True(t, reflect.DeepEqual(before, snap), "Translate changed its snapshot")
	// Field by field, for a readable diff when it fails.
	assert.Equal(t, before.IngressList, snap.IngressList)
	assert.Equal(t, before.ClassList, snap.ClassList)
	assert.Equal(t, before.ServiceByKey, snap.ServiceByKey)
	assert.Equal(t, before.SlicesByKey, snap.SlicesByKey)
	assert.Equal(t, before.SecretByKey, snap.SecretByKey)
	assert.Equal(t, before.NodeList, snap.NodeList)
	assert.Equal(t, optsBefore, mustJSON(t, opts), "Translate changed its options")

	// Changing the output must not reach back into the snapshot either.
	for _, rt := range res.Configuration.HTTP.Routers {
		for i := range rt.EntryPoints {
			rt.EntryPoints[i] = "changed"
		}
		if rt.TLS != nil {
			for i := range rt.TLS.Domains {
				rt.TLS.Domains[i].Main = "changed"
			}
		}
	}
	for _, svc := range res.Configuration.HTTP.Services {
		if svc.LoadBalancer.Sticky != nil && svc.LoadBalancer.Sticky.Cookie != nil {
			svc.LoadBalancer.Sticky.Cookie.Name = "changed"
		}
		svc.LoadBalancer.ServersTransport = "changed"
		for i := range svc.LoadBalancer.Servers {
			svc.LoadBalancer.Servers[i].URL = "changed"
		}
	}
	assert.True(t, reflect.DeepEqual(before, snap), "changing the output changed the snapshot")
	again := translateOnce(t, snap, opts)
	assert.NotContains(t, mustJSON(t, again.Configuration), "changed", "changing one output changed the next one")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestTranslateIsDeterministic(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strictPrefixMatching=%t", strict), func(t *testing.T) {
			opts := &Provider{StrictPrefixMatching: strict}
			opts.SetDefaults()
			snap := richSnapshot(t)
			first := translateOnce(t, snap, opts)
			wantConf := mustJSON(t, first.Configuration)
			wantErrs := errorStrings(first.Errors)
			require.NotEmpty(t, wantErrs)

			again := translateOnce(t, snap, opts)
			assert.Equal(t, wantConf, mustJSON(t, again.Configuration), "same snapshot, different output")
			assert.Equal(t, wantErrs, errorStrings(again.Errors))

			rng := mrand.New(mrand.NewPCG(1, 2))
			for i := range 30 {
				shuffled := snap.DeepCopy()
				rng.Shuffle(len(shuffled.IngressList), func(a, b int) {
					shuffled.IngressList[a], shuffled.IngressList[b] = shuffled.IngressList[b], shuffled.IngressList[a]
				})
				rng.Shuffle(len(shuffled.ClassList), func(a, b int) {
					shuffled.ClassList[a], shuffled.ClassList[b] = shuffled.ClassList[b], shuffled.ClassList[a]
				})
				rng.Shuffle(len(shuffled.NodeList), func(a, b int) {
					shuffled.NodeList[a], shuffled.NodeList[b] = shuffled.NodeList[b], shuffled.NodeList[a]
				})
				for _, list := range shuffled.SlicesByKey {
					rng.Shuffle(len(list), func(a, b int) { list[a], list[b] = list[b], list[a] })
				}
				res := translateOnce(t, shuffled, opts)
				require.Equal(t, wantConf, mustJSON(t, res.Configuration), "shuffle %d", i)
				require.Equal(t, wantErrs, errorStrings(res.Errors), "shuffle %d", i)
			}
		})
	}
}

// TestTranslateSameCreationTime checks that Ingresses created in the same
// second are ordered by namespace and name, whatever the listing order:
// the older-looking one keeps the default backend and the contested router.
func TestTranslateSameCreationTime(t *testing.T) {
	objs := testobjects.Backend("ns", "a", "10.0.0.1")
	objs = append(objs, testobjects.Backend("ns", "b", "10.0.0.2")...)
	objs = append(objs,
		testobjects.NewIngress("ns", "x", testobjects.WithCreated(10), testobjects.WithDefaultBackend("b", 80)),
		testobjects.NewIngress("ns", "w", testobjects.WithCreated(10), testobjects.WithDefaultBackend("a", 80)),
	)
	snap := testobjects.NewSnapshot(objs...)
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		s := snap.DeepCopy()
		s.IngressList = []*netv1.Ingress{s.IngressList[order[0]], s.IngressList[order[1]]}
		res := translateOnce(t, s, nil)
		require.Contains(t, res.Configuration.HTTP.Routers, DefaultRouterName)
		md := res.Configuration.HTTP.Routers[DefaultRouterName].Observability.Metadata.Ingress
		assert.Equal(t, "w", md.IngressName)
		assert.Equal(t, "http://10.0.0.1:8080", res.Configuration.HTTP.Services[DefaultBackendName].LoadBalancer.Servers[0].URL)
		require.Len(t, res.Errors, 1)
		assert.Equal(t, "x", res.Errors[0].Name)
		assert.Equal(t, "spec.defaultBackend", res.Errors[0].Field)
	}
}
