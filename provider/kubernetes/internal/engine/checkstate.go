package engine

import (
	"fmt"
	"slices"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// CheckState checks what the next renders build on, beyond their output,
// and says what does not hold: every served part is the state's part of
// its key and holds the entries in use now (none a render replaced), each
// entry counts its users, and every router and default-backend candidate
// of a part sends to the load balancer of one of the part's entries (or
// to a service of its own). A part left holding an old load balancer
// would put it back into the configuration at the next assembly that
// meets the part's routers. Tests call it after each render.
func (r *Renderer) CheckState() error {
	st := r.st
	users := map[*serviceEntry]int{}
	for _, p := range st.served {
		if st.parts[p.ObjectKey()] != p {
			return fmt.Errorf("the served part of %s is not the state's", p.Key)
		}
		for _, en := range p.entries {
			if st.entries[en.key] != en {
				return fmt.Errorf("%s uses an entry of %v that was replaced", p.Key, en.key)
			}
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
			if ns.Base != nil && !hasService(ns.Base) {
				return fmt.Errorf("the service %s of %s derives from a load balancer none of its entries has", ns.Name, p.Key)
			}
		}
		for _, pr := range p.Routers {
			if !hasService(pr.Service) && !ownService(pr.Service) {
				return fmt.Errorf("a router of %s (%s) sends to a load balancer none of its entries has", p.Key, pr.Config.Rule)
			}
		}
		if c := p.Default; c != nil && c.Service != nil && !hasService(c.Service) {
			return fmt.Errorf("the default backend of %s is a load balancer none of its entries has", p.Key)
		}
	}
	for id, en := range st.entries {
		if users[en] != int(en.users) {
			return fmt.Errorf("the entry of %v counts %d users; %d parts use it", id, en.users, users[en])
		}
	}
	return nil
}
