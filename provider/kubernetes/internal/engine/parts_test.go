package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// TestAddAndRemovePartsInBatches checks renderState's add and remove, which
// change served and the users of Services and Secrets in one pass
// however many parts come or go, against a model rebuilt from scratch: in
// random batches of one to many parts, some sharing one Service (so that
// both ways of removing users run), the served list stays sorted by
// compareParts and every key lists exactly the parts that use it.
func TestAddAndRemovePartsInBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	e := newRenderState(0)
	port := func(svc, name string) translate.PortKey {
		return translate.PortKey{Service: translate.Key{Namespace: "ns", Name: svc}, Port: netv1.ServiceBackendPort{Name: name}}
	}
	entries := make([]*serviceEntry, 12)
	for i := range entries {
		entries[i] = &serviceEntry{key: port(fmt.Sprintf("svc-%d", i), "http")}
	}
	var env translate.IngressEnv
	shared := &serviceEntry{key: port("shared", "http")}
	newPart := func(n int) *Part {
		p := &Part{}
		// A part of an Ingress without rules: the part its creation time
		// and key give, whose entries and Secrets the test chooses.
		env.Translate(&p.Part, testobjects.NewIngress("ns", fmt.Sprintf("ing-%04d", n), testobjects.WithCreated(int64(rng.IntN(50)))), nil)
		p.entries = append(p.entries, entries[rng.IntN(len(entries))])
		if rng.IntN(2) == 0 {
			p.entries = append(p.entries, shared)
		}
		if rng.IntN(4) == 0 {
			// Two ports of one Service: the same key twice.
			p.entries = append(p.entries, &serviceEntry{key: translate.PortKey{Service: p.entries[0].key.Service, Port: netv1.ServiceBackendPort{Name: "https"}}})
		}
		if rng.IntN(3) == 0 {
			p.Secrets = []translate.Key{{Namespace: "ns", Name: fmt.Sprintf("tls-%d", rng.IntN(3))}}
		}
		return p
	}
	check := func(step int) {
		t.Helper()
		want := slices.Collect(func(yield func(*Part) bool) {
			for _, p := range e.parts {
				if !yield(p) {
					return
				}
			}
		})
		slices.SortFunc(want, compareParts)
		require.Equal(t, want, e.served, "step %d: e.served", step)
		users := func(keys func(*Part) []translate.Key) map[translate.Key][]*Part {
			m := map[translate.Key][]*Part{}
			for _, p := range want {
				for _, k := range keys(p) {
					if !slices.Contains(m[k], p) {
						m[k] = append(m[k], p)
					}
				}
			}
			return m
		}
		sortedUsers := func(m map[translate.Key][]*Part) map[translate.Key][]*Part {
			out := map[translate.Key][]*Part{}
			for k, list := range m {
				out[k] = slices.SortedFunc(slices.Values(list), compareParts)
			}
			return out
		}
		svcKeys := func(p *Part) (out []translate.Key) {
			for _, en := range p.entries {
				out = append(out, en.key.Service)
			}
			return out
		}
		secKeys := func(p *Part) []translate.Key { return p.Secrets }
		require.Equal(t, sortedUsers(users(svcKeys)), sortedUsers(e.svcUsers), "step %d: users of Services", step)
		require.Equal(t, sortedUsers(users(secKeys)), sortedUsers(e.secUsers), "step %d: users of Secrets", step)
	}
	next := 0
	for step := range 300 {
		var olds []*Part
		for _, p := range e.parts {
			if len(olds) < 1+rng.IntN(40) && rng.IntN(3) == 0 {
				olds = append(olds, p)
			}
		}
		e.remove(olds)
		var news []*Part
		for range rng.IntN(40) {
			news = append(news, newPart(next))
			next++
		}
		e.add(news)
		check(step)
	}
	require.Greater(t, len(e.svcUsers[translate.Key{Namespace: "ns", Name: "shared"}]), 4, "the shared Service has many users")
}
