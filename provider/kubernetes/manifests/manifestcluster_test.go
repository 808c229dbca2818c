package manifests

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// serviceEvents records what a Service informer of the cluster is told,
// through the change filter the provider uses.
type serviceEvents struct {
	mu     sync.Mutex
	events []string // "add web", "update web", "delete web"
}

func (e *serviceEvents) record(what string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, what)
}

func (e *serviceEvents) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	got := e.events
	e.events = nil
	return got
}

// watchServices starts a Service informer on the cluster, waits for its
// first list and returns what it is told from then on.
func watchServices(t *testing.T, c *Cluster) *serviceEvents {
	t.Helper()
	factory := informers.NewSharedInformerFactory(c.Clientset(), 0)
	inf := factory.Core().V1().Services().Informer()
	events := &serviceEvents{}
	name := func(obj any) string {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		return obj.(*corev1.Service).Name
	}
	_, err := inf.AddEventHandler(k8s.Keep{}.EventHandler("Service", nil, func(_ string, old, new any) {
		switch {
		case old == nil:
			events.record("add " + name(new))
		case new == nil:
			events.record("delete " + name(old))
		default:
			events.record("update " + name(new))
		}
	}))
	require.NoError(t, err)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); factory.Shutdown() })
	factory.Start(stop)
	require.True(t, cache.WaitForCacheSync(stop, inf.HasSynced))
	return events
}

// waitEvents waits until n events were told, and returns them.
func waitEvents(t *testing.T, events *serviceEvents, n int) []string {
	t.Helper()
	var got []string
	deadline := time.Now().Add(20 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		got = append(got, events.take()...)
		time.Sleep(5 * time.Millisecond)
	}
	return got
}

func svcWithPort(name string, port int) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  resourceVersion: \"7\"\nspec:\n  ports:\n  - port: %d\n", name, port)
}

func TestManifestClusterApplyTellsOnlyWhatDiffers(t *testing.T) {
	c := NewCluster()
	first := decodeForCluster(t, "a.yaml", svcWithPort("kept", 80)+"---\n"+svcWithPort("edited", 80)+"---\n"+svcWithPort("removed", 80))
	res, problems := c.Apply(first)
	require.Empty(t, problemLines(problems))
	assert.Equal(t, ApplyResult{Added: 3}, res)
	events := watchServices(t, c)
	initial := waitEvents(t, events, 3)
	assert.ElementsMatch(t, []string{"add kept", "add edited", "add removed"}, initial, "the informer's first list")

	// The same objects decoded again: nothing to tell.
	res, problems = c.Apply(decodeForCluster(t, "a.yaml", svcWithPort("kept", 80)+"---\n"+svcWithPort("edited", 80)+"---\n"+svcWithPort("removed", 80)))
	require.Empty(t, problemLines(problems))
	assert.False(t, res.Changed())

	// An edit that keeps the manifest's resourceVersion still reaches the
	// informer as an update, not as a resync the filter drops.
	res, problems = c.Apply(decodeForCluster(t, "a.yaml", svcWithPort("kept", 80)+"---\n"+svcWithPort("edited", 81)+"---\n"+svcWithPort("new", 80)))
	require.Empty(t, problemLines(problems))
	assert.Equal(t, ApplyResult{Added: 1, Updated: 1, Deleted: 1}, res)
	got := waitEvents(t, events, 3)
	assert.ElementsMatch(t, []string{"update edited", "add new", "delete removed"}, got)

	// A marker change after them: once it is seen, nothing else was told.
	res, _ = c.Apply(decodeForCluster(t, "a.yaml", svcWithPort("kept", 82)+"---\n"+svcWithPort("edited", 81)+"---\n"+svcWithPort("new", 80)))
	assert.Equal(t, ApplyResult{Updated: 1}, res)
	assert.Equal(t, []string{"update kept"}, waitEvents(t, events, 1))
}

func TestManifestClusterDuplicateTakesOverWhenTheFirstGoes(t *testing.T) {
	c := NewCluster()
	a := decodeForCluster(t, "a.yaml", svcWithPort("web", 80))
	b := decodeForCluster(t, "b.yaml", svcWithPort("web", 90))
	_, problems := c.Apply(append(append([]Object{}, a...), b...))
	assert.Equal(t, []string{`error: b.yaml: document 1: Service default/web is defined again (first in a.yaml: document 1); this copy is skipped`}, problemLines(problems))
	events := watchServices(t, c)
	assert.Equal(t, []string{"add web"}, waitEvents(t, events, 1))

	// a.yaml is gone: the copy of b.yaml is now the one.
	res, problems := c.Apply(b)
	assert.Empty(t, problems)
	assert.Equal(t, ApplyResult{Updated: 1}, res)
	assert.Equal(t, []string{"update web"}, waitEvents(t, events, 1))
	svc, err := c.Clientset().CoreV1().Services("default").Get(t.Context(), "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(90), svc.Spec.Ports[0].Port)
}

// More changes at once than the fake clientset's watchers hold: Apply
// waits for the informer instead of overflowing them (which panics).
func TestManifestClusterApplyManyAtOnce(t *testing.T) {
	c := NewCluster()
	events := watchServices(t, c)
	const n = 2000
	var docs []string
	for i := range n {
		docs = append(docs, svcWithPort(fmt.Sprintf("svc-%d", i), 80))
	}
	res, problems := c.Apply(decodeForCluster(t, "many.yaml", strings.Join(docs, "---\n")))
	require.Empty(t, problemLines(problems))
	assert.Equal(t, ApplyResult{Added: n}, res)
	assert.Len(t, waitEvents(t, events, n), n)

	res, problems = c.Apply(nil)
	require.Empty(t, problemLines(problems))
	assert.Equal(t, ApplyResult{Deleted: n}, res)
	assert.Len(t, waitEvents(t, events, n), n)
}
