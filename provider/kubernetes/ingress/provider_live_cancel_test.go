package ingress

import (
	"errors"
	"slices"
	"testing"
	"time"

	ptypes "github.com/traefik/paerser/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestProvideReturnsOnCancel(t *testing.T) {
	forbidNodes := func(cs *fake.Clientset) {
		cs.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("no RBAC rule"))
		})
	}
	forbidSlices := func(cs *fake.Clientset) {
		cs.PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, "", errors.New("no RBAC rule"))
		})
	}
	for _, tc := range []struct {
		name  string
		edit  func(map[string]k8sruntime.Object)
		setup func(cs *fake.Clientset)
		// until brings Provide where it must be cancelled.
		until func(t *testing.T, lp *liveProvider)
	}{
		{
			name: "nobody reads the first configuration",
			until: func(t *testing.T, lp *liveProvider) {
				liveWaitFor(t, "a render", func() bool { return lp.obs.rendered.Load() >= 1 })
			},
		},
		{
			name: "nobody reads a new configuration",
			until: func(t *testing.T, lp *liveProvider) {
				lp.next()
				lp.waitInitialEvents(liveCluster())
				mark := lp.obs.logLen()
				liveMutateSlice(t, lp.cs, "web-1", liveSetAddress("10.0.0.2"))
				// A render after the change's event sees the change, so it
				// has a new configuration to send, which nobody reads.
				liveWaitFor(t, "a render of the change", func() bool {
					log := lp.obs.logSince(mark)
					i := slices.Index(log, "EndpointSlice changed")
					return i >= 0 && slices.Contains(log[i:], "rendered")
				})
			},
		},
		{
			name: "idle after a configuration was read",
			until: func(t *testing.T, lp *liveProvider) {
				lp.next()
			},
		},
		{
			name:  "the caches never sync",
			setup: forbidSlices,
			until: func(t *testing.T, lp *liveProvider) {
				liveWaitFor(t, "a list", func() bool {
					for _, a := range lp.cs.Actions() {
						if a.GetVerb() == "list" && a.GetResource().Resource == "endpointslices" {
							return true
						}
					}
					return false
				})
			},
		},
		{
			name:  "Nodes never sync",
			edit:  liveWithNodePorts,
			setup: forbidNodes,
			until: func(t *testing.T, lp *liveProvider) {
				liveWaitFor(t, "a list of nodes", func() bool {
					for _, a := range lp.cs.Actions() {
						if a.GetVerb() == "list" && a.GetResource().Resource == "nodes" {
							return true
						}
					}
					return false
				})
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := liveCluster()
			if tc.edit != nil {
				tc.edit(objs)
			}
			cs := newLiveFakeCluster(objs)
			if tc.setup != nil {
				tc.setup(cs)
			}
			lp := startLive(t, cs, func(p *Provider) { p.SyncTimeout = ptypes.Duration(time.Minute) })
			tc.until(t, lp)
			// The cleanup of startLive checks that Provide returns nil within
			// a few seconds and leaves no goroutine behind; do it now.
			lp.stop()
			select {
			case <-lp.out:
				t.Error("a configuration was sent after cancel")
			default:
			}
		})
	}
}
