package engine

import (
	"fmt"
	"slices"

	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// resolve names the routers of one key: the key itself for a lone router,
// else the key and the hash of each rule. Two paths of one key with the
// same rule get the same name: the older one keeps it, the other is
// reported (within one group, so the outcome does not depend on other
// groups). A name taken by another group depends on the order groups are
// named in: a full assembly reports it and marks the state irregular; a
// patch returns false, and the caller assembles in full.
func (a *assembly) resolve(out outputMaps, g *routerGroup) bool {
	// A path whose key is the default backend's router name is renamed
	// like a conflict, so that neither hides the other.
	// A full assembly settles it in key order; a patch cannot.
	reserved := out.router(g.key) != nil
	if g.key == a.names.Router || reserved && !out.settlesOrder() {
		if !a.settle(out) {
			return false
		}
	}
	if len(g.members) == 1 && !reserved {
		return a.addRouter(out, g, g.key, true, g.members[0])
	}
	slices.SortFunc(g.members, translate.CompareRouters)
	for _, pr := range g.members {
		if !a.addRouter(out, g, translate.HashedRouterKey(g.key, pr.Config.Rule), false, pr) {
			return false
		}
	}
	return true
}

// settle is met where the outcome depends on the order groups are named
// in: a full assembly, which names them in key order, settles it (and
// marks the state irregular, so that the next changes are assembled in
// full too); a patch cannot (false).
func (a *assembly) settle(out outputMaps) bool {
	if !out.settlesOrder() {
		return false
	}
	a.irregular = true
	return true
}

// addRouter adds pr's router under name. A name already taken is reported
// instead, or makes a patch give up (false). free says that no router has
// the name (the caller just looked).
func (a *assembly) addRouter(out outputMaps, g *routerGroup, name string, free bool, pr *translate.Router) bool {
	if !free && out.router(name) != nil {
		taken := pr.Part.ObjectError(pr.Path.String(), translate.SeverityError,
			fmt.Errorf("router %s is already defined with the same rule by an older path; this one is skipped", excerpt.Text(name)))
		switch {
		case g.named(name): // by an older path of this group
			a.errGroups[g] = append(a.errGroups[g], taken)
			a.dirty = true
		case !a.settle(out):
			return false
		default:
			a.asmErrs = append(a.asmErrs, taken)
		}
		return true
	}
	rt := pr.Config
	if !out.settlesOrder() && a.rulePlaced[ruleKey(rt)] > 0 {
		// Another router has this rule: who keeps it is settled over all
		// of them, in a full assembly.
		return false
	}
	// An unchanged router keeps its pointer.
	if old := out.previous(name); old != nil && sameRouter(old, rt) {
		rt = old
	}
	svcName := rt.Service
	ref, found := a.svcRefs[svcName]
	switch {
	case !found:
		// Every service in the configuration but the default backend's
		// has an entry in svcRefs.
		if svcName == a.names.Service && out.service(svcName) != nil && !a.settle(out) {
			return false
		}
		ref.service = pr.Service
	case ref.service != pr.Service:
		// Two Service ports whose names normalise to the same service name.
		if !a.settle(out) {
			return false
		}
		ref.service = pr.Service
	}
	ref.count++
	a.svcRefs[svcName] = ref
	out.setRouter(name, rt)
	out.setService(svcName, pr.Service)
	g.placed = append(g.placed, placement{name: name, pr: pr})
	a.rulePlaced[ruleKey(rt)]++
	return true
}

// named says whether a member of g was given name.
func (g *routerGroup) named(name string) bool {
	return slices.ContainsFunc(g.placed, func(pl placement) bool { return pl.name == name })
}

// removeNames takes the routers of a group out of the configuration.
func (a *assembly) removeNames(out outputMaps, g *routerGroup) {
	for _, pl := range g.placed {
		a.unplace(out, pl.name)
	}
	g.placed = g.placedBuf[:0]
	if _, ok := a.errGroups[g]; ok {
		delete(a.errGroups, g)
		a.dirty = true
	}
}

// unplace takes the router name out of the configuration, and its service
// when no other router sends to it.
func (a *assembly) unplace(out outputMaps, name string) {
	rt := out.router(name)
	out.setRouter(name, nil)
	if rt == nil {
		return
	}
	if n := a.rulePlaced[ruleKey(rt)] - 1; n > 0 {
		a.rulePlaced[ruleKey(rt)] = n
	} else {
		delete(a.rulePlaced, ruleKey(rt))
	}
	if ref, found := a.svcRefs[rt.Service]; found {
		if ref.count--; ref.count <= 0 {
			delete(a.svcRefs, rt.Service)
			out.setService(rt.Service, nil)
		} else {
			a.svcRefs[rt.Service] = ref
		}
	}
}
