package ingress

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
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
	port := func(svc, name string) portKey {
		return portKey{svc: objectKey{"ns", svc}, port: netv1.ServiceBackendPort{Name: name}}
	}
	entries := make([]*serviceEntry, 12)
	for i := range entries {
		entries[i] = &serviceEntry{key: port(fmt.Sprintf("svc-%d", i), "http")}
	}
	shared := &serviceEntry{key: port("shared", "http")}
	newPart := func(n int) *ingressPart {
		p := &ingressPart{key: objectKey{"ns", fmt.Sprintf("ing-%04d", n)}, createdSec: int64(rng.IntN(50))}
		p.entries = append(p.entries, entries[rng.IntN(len(entries))])
		if rng.IntN(2) == 0 {
			p.entries = append(p.entries, shared)
		}
		if rng.IntN(4) == 0 {
			// Two ports of one Service: the same key twice.
			p.entries = append(p.entries, &serviceEntry{key: portKey{svc: p.entries[0].key.svc, port: netv1.ServiceBackendPort{Name: "https"}}})
		}
		if rng.IntN(3) == 0 {
			p.secrets = []objectKey{{"ns", fmt.Sprintf("tls-%d", rng.IntN(3))}}
		}
		return p
	}
	check := func(step int) {
		t.Helper()
		want := slices.Collect(func(yield func(*ingressPart) bool) {
			for _, p := range e.parts {
				if !yield(p) {
					return
				}
			}
		})
		slices.SortFunc(want, compareParts)
		require.Equal(t, want, e.served, "step %d: e.served", step)
		users := func(keys func(*ingressPart) []objectKey) map[objectKey][]*ingressPart {
			m := map[objectKey][]*ingressPart{}
			for _, p := range want {
				for _, k := range keys(p) {
					if !slices.Contains(m[k], p) {
						m[k] = append(m[k], p)
					}
				}
			}
			return m
		}
		sortedUsers := func(m map[objectKey][]*ingressPart) map[objectKey][]*ingressPart {
			out := map[objectKey][]*ingressPart{}
			for k, list := range m {
				out[k] = slices.SortedFunc(slices.Values(list), compareParts)
			}
			return out
		}
		svcKeys := func(p *ingressPart) (out []objectKey) {
			for _, en := range p.entries {
				out = append(out, en.key.svc)
			}
			return out
		}
		secKeys := func(p *ingressPart) []objectKey { return p.secrets }
		require.Equal(t, sortedUsers(users(svcKeys)), sortedUsers(e.svcUsers), "step %d: users of Services", step)
		require.Equal(t, sortedUsers(users(secKeys)), sortedUsers(e.secUsers), "step %d: users of Secrets", step)
	}
	next := 0
	for step := range 300 {
		var olds []*ingressPart
		for _, p := range e.parts {
			if len(olds) < 1+rng.IntN(40) && rng.IntN(3) == 0 {
				olds = append(olds, p)
			}
		}
		e.remove(olds)
		var news []*ingressPart
		for range rng.IntN(40) {
			news = append(news, newPart(next))
			next++
		}
		e.add(news)
		check(step)
	}
	require.Greater(t, len(e.svcUsers[objectKey{"ns", "shared"}]), 4, "the shared Service has many users")
}
