package ingress

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// checkParts checks what the next renders build on, beyond their output:
// every part holds the entries in use now (none a render replaced), each
// entry counts its users, and every router and default-backend candidate
// of a part sends to the load balancer of one of the part's entries. A
// part left holding an old load balancer would put it back into the
// configuration at the next assembly that meets the part's routers.
func checkParts(t *testing.T, r *Renderer, what string) {
	t.Helper()
	st := r.st
	users := map[*serviceEntry]int{}
	for _, p := range st.served {
		require.Same(t, p, st.parts[p.ObjectKey()], "after %s: the served part of %s", what, p.Key)
		for _, en := range p.entries {
			require.Same(t, en, st.entries[en.key], "after %s: %s uses an entry of %v that was replaced", what, p.Key, en.key)
			users[en]++
		}
		hasService := func(svc *dynamic.Service) bool {
			return slices.ContainsFunc(p.entries, func(en *serviceEntry) bool { return en.lb.Service == svc })
		}
		// A service of the part's own (a dialect's weighted or derived
		// one) counts too; one derived from a load balancer must derive
		// from a current one.
		ownService := func(svc *dynamic.Service) bool {
			return slices.ContainsFunc(p.Services, func(ns translate.NamedService) bool { return ns.Service == svc })
		}
		for _, ns := range p.Services {
			require.True(t, ns.Base == nil || hasService(ns.Base), "after %s: the service %s of %s derives from a load balancer none of its entries has", what, ns.Name, p.Key)
		}
		for _, pr := range p.Routers {
			require.True(t, hasService(pr.Service) || ownService(pr.Service), "after %s: a router of %s (%s) sends to a load balancer none of its entries has", what, p.Key, pr.Config.Rule)
		}
		if c := p.Default; c != nil && c.Service != nil {
			require.True(t, hasService(c.Service), "after %s: the default backend of %s is a load balancer none of its entries has", what, p.Key)
		}
	}
	for id, en := range st.entries {
		require.Equal(t, users[en], int(en.users), "after %s: the users of %s", what, id)
	}
}
