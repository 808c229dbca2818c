package ingress

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
)

// namedSync is one informer as the sync wait sees it: its resource and
// namespace to name it by, and the last list or watch error, to say why it
// has not synced.
type namedSync struct {
	resource  string
	namespace string
	informer  cache.SharedIndexInformer
	handler   cache.ResourceEventHandlerRegistration // nil without a handler

	mu      sync.Mutex
	lastErr error // the last list or watch error, to say why a sync does not finish
	denial  denialState
}

// synced says whether the informer has listed its resource and its handler
// has been told of every object listed, so that a render after the sync
// does not hear of the initial objects again as changes.
func (s *namedSync) synced() bool {
	return s.informer.HasSynced() && (s.handler == nil || s.handler.HasSynced())
}

// where says where the informer lists, for messages.
func (s *namedSync) where() string {
	switch {
	case s.namespace != "":
		return fmt.Sprintf("in namespace %q", s.namespace)
	case clusterWideResources[s.resource]:
		return "(cluster-wide)"
	default:
		return "in all namespaces"
	}
}

// clusterWideResources are the resources of the client's informers that
// are not namespaced.
var clusterWideResources = map[string]bool{
	"ingressclasses.networking.k8s.io": true,
	"nodes":                            true,
	namespacesResource:                 true,
	gatewayClassesResource:             true,
}

// WaitForSync waits until every informer has listed its resource, or until
// timeout. The error names each resource that did not sync and the last
// error its list or watch got, such as
// `cannot list endpointslices.discovery.k8s.io in namespace "x": forbidden: ...`,
// or, for a resource the API server does not serve (a Gateway API CRD
// not installed), `cannot list httproutes.gateway.networking.k8s.io in
// all namespaces: the API server does not serve it (install the Gateway
// API CRDs ...): notfound: ...`.
// The informers keep retrying after it returns.
func (c *Client) WaitForSync(ctx context.Context, timeout time.Duration) error {
	c.mu.Lock()
	synced := slices.Clone(c.synced)
	c.mu.Unlock()
	return waitSynced(ctx, synced, timeout)
}

func waitSynced(ctx context.Context, synced []*namedSync, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var errs []error
	for _, s := range synced {
		if cache.WaitForCacheSync(ctx.Done(), s.synced) {
			continue
		}
		s.mu.Lock()
		last := s.lastErr
		s.mu.Unlock()
		reason := fmt.Sprintf("not synced after %s", timeout)
		switch {
		case last != nil && isMissingResource("list", last):
			reason = "the API server does not serve it (" + missingRemedy(s.resource) + "): " + describeAPIError(last)
		case last != nil:
			reason = describeAPIError(last)
		}
		errs = append(errs, fmt.Errorf("cannot list %s %s: %s", s.resource, s.where(), reason))
	}
	return errors.Join(errs...)
}
