package ingress

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

// nginxLive is an ingress-nginx provider's Renderer over real informers
// on a fake clientset: what the live tests of the dialect drive, an API
// write at a time (c.did), each render checked against a full one.
type nginxLive struct {
	cs      *fake.Clientset
	ctx     context.Context
	client  *Client
	opts    *Provider
	changes *Changes
	r       *Renderer
	c       *churn
	first   *Result // the first render
}

// startNGINXLive serves objs and renders them once with an
// NGINXProvider's defaults, as configure changes them (nil: none).
func startNGINXLive(t *testing.T, objs []any, configure func(*NGINXProvider)) *nginxLive {
	t.Helper()
	cs := fake.NewClientset()
	for _, o := range objs {
		require.NoError(t, cs.Tracker().Add(o.(runtime.Object)))
	}
	np := &NGINXProvider{}
	np.SetDefaults()
	if configure != nil {
		configure(np)
	}
	require.NoError(t, np.Init())
	l := &nginxLive{cs: cs, opts: &np.Provider, changes: &Changes{}}
	var events atomic.Int64
	l.client, l.ctx = startClient(t, cs, ClientOptions{OnChange: l.changes.Record, Notify: func(string, bool) { events.Add(1) }, Provider: l.opts})
	l.c = &churn{t: t, cs: cs, events: &events, ctx: l.ctx, client: l.client}
	l.c.want = events.Load()
	l.r = NewRenderer(l.opts)
	l.first, _ = l.r.Render(l.client.Snapshot(), l.changes)
	return l
}

// render waits for the informers to have every write so far, renders,
// and checks the render against a full one (renderChanged).
func (l *nginxLive) render(t *testing.T, what string) *Result {
	t.Helper()
	l.c.wait()
	return renderChanged(t, l.r, l.client.Snapshot(), l.changes, l.opts, what)
}
