package ingress

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/sliceway/sliceway/internal/clustergen"
)

// renderSteps renders after each change of a test, incrementally, and
// checks the result against a full render of the same caches.
type renderSteps struct {
	t       *testing.T
	cs      *fake.Clientset
	ctx     context.Context
	client  *Client
	changes *Changes
	events  *atomic.Int64
	opts    *Provider
	r       *Renderer
	prev    *Result
	want    int64
}

// newRenderSteps serves the generated cluster of services Services, and
// the objects of Service 9 in namespace default (its Ingress left out).
func newRenderSteps(t *testing.T, services int) *renderSteps {
	cs := fake.NewClientset()
	for _, o := range clustergen.Cluster(services, 4) {
		require.NoError(t, cs.Tracker().Add(o))
	}
	for _, o := range clustergen.Service(9, 4) {
		m := o.(metav1.Object)
		if m.GetName() == clustergen.Name(9) && o.GetObjectKind().GroupVersionKind().Kind == "Ingress" {
			continue
		}
		m.SetNamespace("default")
		require.NoError(t, cs.Tracker().Add(o))
	}
	s := &renderSteps{t: t, cs: cs, changes: &Changes{}, events: &atomic.Int64{}, opts: benchOptions()}
	s.client, s.ctx = startClient(t, cs, ClientOptions{OnChange: s.changes.Record, Notify: func(string, bool) { s.events.Add(1) }})
	s.r = NewRenderer(s.opts)
	s.prev, _ = s.r.Render(s.client.Snapshot(), s.changes)
	s.want = s.events.Load()
	return s
}

func (s *renderSteps) ingresses(ns string) interface {
	Create(context.Context, *netv1.Ingress, metav1.CreateOptions) (*netv1.Ingress, error)
	Update(context.Context, *netv1.Ingress, metav1.UpdateOptions) (*netv1.Ingress, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
} {
	return s.cs.NetworkingV1().Ingresses(ns)
}

// check waits for the event of one change (err is the change's error),
// renders, and compares with a full render.
func (s *renderSteps) check(what string, err error) *Result {
	t := s.t
	t.Helper()
	require.NoError(t, err, what)
	s.want++
	deadline := time.Now().Add(10 * time.Second)
	for s.events.Load() < s.want {
		require.True(t, time.Now().Before(deadline), "%s: no event", what)
		time.Sleep(time.Millisecond)
	}
	got, changed := s.r.Render(s.client.Snapshot(), s.changes)
	if !equalResults(t, referenceRender(t, s.client.Snapshot(), s.opts), got) {
		t.Fatalf("%s: the incremental render differs from a full one", what)
	}
	require.Equal(t, !reflect.DeepEqual(s.prev.Configuration, got.Configuration), changed, what)
	s.prev = got
	return got
}

// stepIngress is an Ingress of one rule (host may be empty) whose paths
// all send to Service svc's port http.
func stepIngress(ns, name, host, svc string, paths ...netv1.HTTPIngressPath) *netv1.Ingress {
	for i := range paths {
		paths[i].Backend = netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: svc, Port: netv1.ServiceBackendPort{Name: "http"}}}
	}
	return &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: host, IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: paths}}}}}}
}
