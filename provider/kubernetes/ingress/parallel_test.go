package ingress

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/internal/clustergen"
)

// sequentialSnapshot hides ConcurrentReads: renders of it stay on one goroutine.
type sequentialSnapshot struct{ Snapshot }

// atLeastTwoCPUs lets the test run goroutines in parallel, until it ends.
func atLeastTwoCPUs(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		prev := runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
}

// parallelRender renders snap in full on several goroutines, however few
// Ingresses it has, and fails the test if it did not.
func parallelRender(t *testing.T, snap Snapshot, opts *Provider) *Result {
	t.Helper()
	atLeastTwoCPUs(t)
	r := NewRenderer(opts)
	r.e.parallelMin = 1
	res, _ := r.Render(snap, nil)
	if len(res.Ingresses) >= 2 {
		require.Equal(t, 1, r.e.parallelRenders, "the full render should have been parallel")
	}
	// The assembly met the parts in the order they were translated in and
	// named the router groups in the order it met them, and in key order
	// only when names crossed between groups: meeting the parts oldest
	// first (as an incremental render does), or naming the groups in key
	// order, must give the same.
	again := func() *Result {
		return &Result{Configuration: r.e.conf, Errors: r.e.sortErrors(slices.Clone(r.e.collectErrors())), Ingresses: res.Ingresses, NeedsNodes: res.NeedsNodes}
	}
	r.e.assembleAll(r.e.served, nil)
	require.True(t, equalResults(t, res, again()), "meeting the parts oldest first gives another result")
	r.e.assemble(r.e.served, true, nil)
	require.True(t, equalResults(t, res, again()), "naming the groups in key order gives another result")
	return res
}

// TestParallelFullRender checks that a full render on several goroutines
// gives what one goroutine gives, on every fixture (conflicts, default
// backends, TLS, broken objects) and on a generated cluster.
func TestParallelFullRender(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "manifests.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, manifests := range dirs {
		dir := filepath.Dir(manifests)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			opts, cs, _ := loadFixture(t, dir)
			client, _ := startClient(t, cs, ClientOptions{Namespaces: opts.Namespaces, LabelSelector: opts.LabelSelector, WatchNodes: true, Provider: opts})
			// The reference merges the slices itself: sequentialSnapshot
			// hides the client's index, and the servers it chose.
			want := Translate(sequentialSnapshot{client.Snapshot()}, opts)
			got := parallelRender(t, client.Snapshot(), opts)
			require.True(t, equalResults(t, want, got))
		})
	}
	t.Run("generated", func(t *testing.T) {
		cs := fake.NewClientset()
		for _, o := range clustergen.Cluster(700, 6) {
			require.NoError(t, cs.Tracker().Add(o))
		}
		client, _ := startClient(t, cs, ClientOptions{})
		opts := benchOptions()
		want := Translate(sequentialSnapshot{client.Snapshot()}, opts)
		require.Len(t, want.Configuration.HTTP.Routers, 700)
		// The default threshold: 700 Ingresses are enough.
		r := NewRenderer(opts)
		got, _ := r.Render(client.Snapshot(), nil)
		if runtime.GOMAXPROCS(0) > 1 {
			require.Equal(t, 1, r.e.parallelRenders)
		}
		require.True(t, equalResults(t, want, got))
		require.True(t, equalResults(t, want, parallelRender(t, client.Snapshot(), opts)))
	})
}

// panickySnapshot panics when the Service named panicOn is looked up.
type panickySnapshot struct {
	Snapshot
	panicOn string
}

func (panickySnapshot) ConcurrentReads() bool { return true }

func (s panickySnapshot) Service(namespace, name string) *corev1.Service {
	if name == s.panicOn {
		panic("lookup of " + name + " failed")
	}
	return s.Snapshot.Service(namespace, name)
}

// TestTranslationPanicSkipsTheIngress checks that a panic while
// translating one Ingress (a bug) costs that Ingress only, on one
// goroutine or several: it is skipped with an error that says what
// happened and keeps where, and the others are served.
func TestTranslationPanicSkipsTheIngress(t *testing.T) {
	atLeastTwoCPUs(t)
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(300, 2) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	client, _ := startClient(t, cs, ClientOptions{})
	broken := clustergen.Name(150)
	// The broken Ingress's router, which the second render below must
	// serve: so that its absence from the first says something.
	brokenRouter := clustergen.Namespace + "-" + broken + "-" + broken + "-bench-example"
	for _, parallel := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel=%t", parallel), func(t *testing.T) {
			r := NewRenderer(benchOptions())
			if parallel {
				r.e.parallelMin = 1
			}
			res, _ := r.Render(panickySnapshot{Snapshot: client.Snapshot(), panicOn: broken}, nil)
			if parallel {
				require.Equal(t, 1, r.e.parallelRenders)
			}
			require.Len(t, res.Configuration.HTTP.Routers, 299, "every Ingress but the broken one")
			require.Nil(t, res.Configuration.HTTP.Routers[brokenRouter], "no router for the broken Ingress")
			require.Len(t, res.Errors, 1)
			oe := res.Errors[0]
			require.Equal(t, "Ingress "+clustergen.Namespace+"/"+broken+": translation failed: lookup of "+broken+" failed (a bug in sliceway; the Ingress is skipped)", oe.Error())
			var tp *TranslationPanic
			require.ErrorAs(t, oe, &tp)
			require.Contains(t, string(tp.Stack), "translateInto", "where it happened")

			// Once the lookup works, the Ingress is served again (its
			// part kept no routers, and is translated when it changes).
			res, _ = r.Render(client.Snapshot(), nil)
			require.Len(t, res.Configuration.HTTP.Routers, 300)
			require.NotNil(t, res.Configuration.HTTP.Routers[brokenRouter], "the router %s once the Ingress translates", brokenRouter)
			require.Empty(t, res.Errors)
		})
	}
}

// TestSortHalves checks the two-goroutine sort of a full render's
// Ingresses against slices.SortFunc, on lengths that split evenly and not,
// with repeated values.
func TestSortHalves(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 10, 257, 1000} {
		in := make([]int, n)
		for i := range in {
			in[i] = rng.IntN(n/2 + 1)
		}
		got, want := make([]int, n), slices.Clone(in)
		sortHalves(in, cmp.Compare[int], func(i, v int) { got[i] = v })
		slices.Sort(want)
		require.Equal(t, want, got, "n=%d", n)
	}
}

// TestLogObjectErrorWithStack checks that the log line of a translation
// panic carries its stack, and that other problems carry none.
func TestLogObjectErrorWithStack(t *testing.T) {
	var buf bytes.Buffer
	log := zerolog.New(&buf)
	LogObjectError(log, &ObjectError{Kind: "Ingress", Namespace: "ns", Name: "web", Severity: SeverityError,
		Err: &TranslationPanic{Value: "index out of range", Stack: []byte("goroutine 7 [running]:\nmain.f()")}})
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
	require.Equal(t, "goroutine 7 [running]:\nmain.f()", line["stack"])
	require.Equal(t, "web", line["ingress"])
	require.Equal(t, "Ingress ns/web: translation failed: index out of range (a bug in sliceway; the Ingress is skipped)", line["message"])

	buf.Reset()
	LogObjectError(log, &ObjectError{Kind: "Service", Namespace: "ns", Name: "web", Severity: SeverityWarning, Err: errors.New("x")})
	require.NotContains(t, buf.String(), "stack")
}

// TestSortByKey: sortByKey orders Ingresses by namespace, then name, as
// comparing the keys does, for names that share their first 16 bytes or
// more, are prefixes of one another, and namespaces that are prefixes of
// one another.
func TestSortByKey(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{"a", "b", "web", "-", "0", "9", "svc-0000", "x.y", "long-name-of-a-team"}
	for _, parallel := range []bool{false, true} {
		for range 200 {
			var ings []*netv1.Ingress
			seen := map[string]bool{}
			for range r.IntN(600) {
				ns := []string{"a", "a-b", "ab", "default", "team-x"}[r.IntN(5)]
				name := ""
				for range 1 + r.IntN(5) {
					name += parts[r.IntN(len(parts))]
				}
				if seen[ns+"/"+name] {
					continue
				}
				seen[ns+"/"+name] = true
				ings = append(ings, &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
			}
			want := slices.Clone(ings)
			slices.SortFunc(want, func(a, b *netv1.Ingress) int {
				return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
			})
			sortByKey(ings, parallel)
			require.Equal(t, want, ings)
		}
	}
}

// TestSortByAge: sortByAge orders parts given in key order as sorting
// them with compareParts does, with many Ingresses of the same second or
// the same instant (whose keys then decide), with times in whole seconds
// and not, far apart, and already in age order; and it leaves its
// argument as it was.
func TestSortByAge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 300 {
		n := 1 + r.IntN(400)
		parts := make([]*ingressPart, 0, n)
		for i := range n {
			ns := []string{"a", "a-b", "default"}[i*3/max(n, 1)]
			name := fmt.Sprintf("ing-%04d", i)
			p := &ingressPart{key: ns + "/" + name, nsLen: int32(len(ns)), createdSec: 1_700_000_000 + int64(r.IntN(1+round%20))}
			if round%3 == 1 && r.IntN(2) == 0 { // fractions of seconds, which the API server does not give
				p.createdNsec = int32(r.IntN(3)) * 1e8
			}
			if round%7 == 2 && i == n/2 { // times too far apart to be sorted as one number
				p.createdSec = 1_700_000_000 + 1<<40
			}
			parts = append(parts, p)
		}
		slices.SortFunc(parts, func(a, b *ingressPart) int { // key order: the namespaces first ("a" before "a-b")
			return cmp.Or(strings.Compare(a.key[:a.nsLen], b.key[:b.nsLen]), strings.Compare(a.key[a.nsLen+1:], b.key[b.nsLen+1:]))
		})
		if round%4 == 0 {
			// Already in age order: the ages rise with the keys.
			for i, p := range parts {
				p.createdSec, p.createdNsec = 1_700_000_000+int64(i/3), 0
			}
		}
		in := slices.Clone(parts)
		want := slices.SortedFunc(slices.Values(parts), compareParts)
		require.Equal(t, want, sortByAge(parts), "round %d", round)
		require.Equal(t, in, parts, "round %d: the argument changed", round)
	}
}

// TestEntryMap: an entryMap of one shard or many finds, replaces and
// deletes entries by id, lists each once (also while the loop deletes),
// and the zero entryMap is empty.
func TestEntryMap(t *testing.T) {
	var zero entryMap
	require.Nil(t, zero.get("ns/web/http"))
	zero.delete("ns/web/http")
	require.Zero(t, zero.len())
	for _, shards := range []int{1, 64} {
		m := newEntryMap(shards, 100)
		want := map[string]*serviceEntry{}
		for i := range 300 {
			id := fmt.Sprintf("ns/svc-%d/#%d", i/2, 80+i%2)
			en := &serviceEntry{id: id}
			m.set(id, en)
			want[id] = en
		}
		require.Equal(t, len(want), m.len())
		for id, en := range want {
			require.Same(t, en, m.get(id))
		}
		seen := map[string]bool{}
		for id, en := range m.all() {
			require.False(t, seen[id], "%s listed twice", id)
			seen[id] = true
			require.Same(t, want[id], en)
			if strings.HasSuffix(id, "#81") {
				m.delete(id)
				delete(want, id)
			}
		}
		require.Len(t, seen, 300)
		require.Equal(t, len(want), m.len())
		require.Nil(t, m.get("ns/svc-1/#81"))
		require.NotNil(t, m.get("ns/svc-0/#80"))
	}
}

// TestTranslateReusesScratch: Translate hands the maps it filled to the
// next one, which clears and fills them again. A result is not changed by
// later renders, and a render with another's scratch gives what a render
// without gives, from larger clusters to smaller and back.
func TestTranslateReusesScratch(t *testing.T) {
	opts := benchOptions()
	var clients []*Client
	// The same names, with other endpoints: an entry left from another
	// cluster would show.
	for i, n := range []int{300, 40, 300} {
		cs := fake.NewClientset()
		objs := clustergen.Cluster(n, 4+i)
		// And a problem, in each: an Ingress to a Service that is not there.
		broken := objs[len(objs)-1].DeepCopyObject()
		for _, o := range objs {
			if ing, ok := o.(*netv1.Ingress); ok {
				broken = ing.DeepCopy()
				broken.(*netv1.Ingress).Name += "-broken"
				broken.(*netv1.Ingress).Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = "missing"
				break
			}
		}
		for _, o := range append(objs, broken) {
			require.NoError(t, cs.Tracker().Add(o))
		}
		client, _ := startClient(t, cs, ClientOptions{Provider: opts})
		clients = append(clients, client)
	}
	var kept []*Result
	var texts []string
	for round := range 3 {
		for i, c := range clients {
			s := &scratch{}
			if round > 0 {
				// What the render before left, as the pool would give it.
				r := NewRenderer(opts)
				r.Render(clients[(i+1)%len(clients)].Snapshot(), nil)
				s = r.e.scratch()
			}
			r := NewRenderer(opts)
			r.e.adopt(s)
			got, _ := r.Render(c.Snapshot(), nil)
			fresh, _ := NewRenderer(opts).Render(c.Snapshot(), nil)
			require.True(t, equalResults(t, fresh, got), "round %d, cluster %d", round, i)
			once := Translate(c.Snapshot(), opts)
			require.True(t, equalResults(t, fresh, once))
			require.Len(t, once.Errors, 1)
			for _, res := range []*Result{got, once} {
				kept, texts = append(kept, res), append(texts, resultText(t, res))
			}
		}
	}
	for i, res := range kept {
		require.Equal(t, texts[i], resultText(t, res), "result %d changed after later renders", i)
	}
}

// resultText is a result as text: its configuration, errors and Ingresses.
func resultText(t *testing.T, res *Result) string {
	t.Helper()
	text, err := json.Marshal(res.Configuration)
	require.NoError(t, err)
	out := string(text)
	for _, e := range res.Errors {
		out += "\n" + e.Error()
	}
	for _, ing := range res.Ingresses {
		out += "\n" + ing.Namespace + "/" + ing.Name
	}
	return out
}
