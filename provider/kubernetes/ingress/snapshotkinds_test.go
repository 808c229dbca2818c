package ingress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/engine"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// plainSnapshot hides what the client's snapshot gives beyond Snapshot:
// the memos of its handlers (load balancers, plans) and the lookup of one
// Ingress. A render through it builds every load balancer and plan
// itself, from Service, EndpointSlices and the raw slices, as a snapshot
// in memory does.
type plainSnapshot struct{ Snapshot }

// ConfigMap is not a memo: it is what the snapshot holds.
func (s plainSnapshot) ConfigMap(namespace, name string) *corev1.ConfigMap {
	if r, ok := s.Snapshot.(configMapReader); ok {
		return r.ConfigMap(namespace, name)
	}
	return nil
}

// referenceRender renders snap in full through the client's snapshot
// kind and through a plainSnapshot, fails the test unless both give the
// same result, and returns it: the reference an incremental render must
// equal.
func referenceRender(t *testing.T, snap Snapshot, opts *Provider) *Result {
	t.Helper()
	got := Translate(snap, opts)
	plain := Translate(plainSnapshot{snap}, opts)
	require.True(t, equalResults(t, plain, got), "a render through the snapshot's memos differs from one that builds everything")
	return got
}

// TestSnapshotKindsAgree checks that a render through the client's
// snapshot, which takes the load balancers and plans its handlers built,
// gives what a render that builds them all gives, on every fixture
// (conflicts, default backends, TLS, broken objects) and on a generated
// cluster; and that the memos were taken.
func TestSnapshotKindsAgree(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "manifests.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, manifests := range dirs {
		dir := filepath.Dir(manifests)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			opts, cs, _ := loadFixture(t, dir)
			client, _ := startClient(t, cs, ClientOptions{Namespaces: opts.Namespaces, LabelSelector: opts.LabelSelector, WatchNodes: true, Provider: opts})
			referenceRender(t, client.Snapshot(), opts)
		})
	}
	t.Run("generated", func(t *testing.T) {
		cs := fake.NewClientset()
		for _, o := range clustergen.Cluster(700, 6) {
			require.NoError(t, cs.Tracker().Add(o))
		}
		opts := benchOptions()
		client, _ := startClient(t, cs, ClientOptions{Provider: opts})
		res := referenceRender(t, client.Snapshot(), opts)
		require.Len(t, res.Configuration.HTTP.Routers, 700)
		// The memos were taken: the routers and load balancers are those
		// the handlers built.
		snap := client.Snapshot()
		for _, ing := range snap.Ingresses() {
			pl := snap.(engine.PlanReader).Plan(ing)
			require.NotNil(t, pl, "the plan of %s/%s", ing.Namespace, ing.Name)
			routerKey, key, router := pl.Path(0)
			require.Same(t, router, res.Configuration.HTTP.Routers[routerKey])
			o := snap.(engine.ServiceReader).ServiceObjects(key.Service)
			require.NotNil(t, o.Memo)
			require.Same(t, o.Memo.Port(0).Service, res.Configuration.HTTP.Services[key.ServiceName()])
		}
	})
}

// panickySnapshot panics when the Service named panicOn is looked up.
type panickySnapshot struct {
	Snapshot
	panicOn string
}

func (s panickySnapshot) Service(namespace, name string) *corev1.Service {
	if name == s.panicOn {
		panic("lookup of " + name + " failed")
	}
	return s.Snapshot.Service(namespace, name)
}

// TestTranslationPanicSkipsTheIngress checks that a panic while
// translating one Ingress (a bug) costs that Ingress only: it is skipped
// with an error that says what happened and keeps where, and the others
// are served.
func TestTranslationPanicSkipsTheIngress(t *testing.T) {
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(300, 2) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	client, _ := startClient(t, cs, ClientOptions{})
	broken := clustergen.Name(150)
	// The broken Ingress's router, which the second render below must
	// serve: so that its absence from the first says something.
	brokenRouter := clustergen.Namespace + "-" + broken + "-" + broken + "-bench-example"
	r := NewRenderer(benchOptions())
	res, _ := r.Render(panickySnapshot{Snapshot: client.Snapshot(), panicOn: broken}, nil)
	require.Len(t, res.Configuration.HTTP.Routers, 299, "every Ingress but the broken one")
	require.Nil(t, res.Configuration.HTTP.Routers[brokenRouter], "no router for the broken Ingress")
	require.Len(t, res.Errors, 1)
	oe := res.Errors[0]
	require.Equal(t, "Ingress "+clustergen.Namespace+"/"+broken+": translation failed: lookup of "+broken+" failed (a bug in sliceway; the Ingress is skipped)", oe.Error())
	var tp *TranslationPanic
	require.ErrorAs(t, oe, &tp)
	require.Contains(t, string(tp.Stack), "(*IngressEnv).complete", "where it happened")

	// Once the lookup works, the Ingress is served again (its part kept
	// no routers, and is translated when it changes).
	res, _ = r.Render(client.Snapshot(), nil)
	require.Len(t, res.Configuration.HTTP.Routers, 300)
	require.NotNil(t, res.Configuration.HTTP.Routers[brokenRouter], "the router %s once the Ingress translates", brokenRouter)
	require.Empty(t, res.Errors)
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
	require.Equal(t, "translation failed: index out of range (a bug in sliceway; the Ingress is skipped)", line["message"])

	buf.Reset()
	LogObjectError(log, &ObjectError{Kind: "Service", Namespace: "ns", Name: "web", Severity: SeverityWarning, Err: errors.New("x")})
	require.NotContains(t, buf.String(), "stack")
}

// TestTranslateLeavesEarlierResults: a result is not changed by later
// renders, of larger clusters or smaller.
func TestTranslateLeavesEarlierResults(t *testing.T) {
	var results []*Result
	var texts []string
	for _, n := range []int{40, 5, 60} {
		snap := testobjects.NewSnapshot(func() []any {
			var objs []any
			for _, o := range clustergen.Cluster(n, 3) {
				objs = append(objs, o)
			}
			return objs
		}()...)
		res := Translate(snap, benchOptions())
		require.Len(t, res.Configuration.HTTP.Routers, n, fmt.Sprint(n))
		results, texts = append(results, res), append(texts, resultText(t, res))
	}
	for i, res := range results {
		require.Equal(t, texts[i], resultText(t, res))
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
