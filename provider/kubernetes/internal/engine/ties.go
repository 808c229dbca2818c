package engine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// rulePlacement is a router of the configuration and the path it came from.
type rulePlacement struct {
	g    *routerGroup
	name string
	pr   *translate.Router
}

// settleTies keeps, among routers of different keys that have one rule,
// the router of the oldest path (the order of translate.CompareRouters), and leaves
// out each younger one that Traefik could not tell from a kept one: the
// same priority, both TLS or neither, an entry point in common (none named
// is all of them). Traefik tries routers of one priority in the order of
// a Go map, so such a pair would route at random, and differently from
// one reload (or one replica) to the next. The paths left out are
// reported.
func (a *assembly) settleTies(out outputMaps) {
	byRule := make(map[string][]rulePlacement, len(a.tied))
	for _, g := range a.groups {
		for _, pl := range g.placed {
			if rt := out.router(pl.name); rt != nil {
				if _, ok := a.tied[ruleKey(rt)]; ok {
					byRule[ruleKey(rt)] = append(byRule[ruleKey(rt)], rulePlacement{g: g, name: pl.name, pr: pl.pr})
				}
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(byRule)) {
		list := byRule[key]
		rule := list[0].pr.Config.Rule
		slices.SortFunc(list, func(a, b rulePlacement) int { return translate.CompareRouters(a.pr, b.pr) })
		var kept []rulePlacement
		for _, c := range list {
			i := slices.IndexFunc(kept, func(k rulePlacement) bool { return sameRequests(out.router(k.name), out.router(c.name)) })
			if i < 0 {
				kept = append(kept, c)
				continue
			}
			winner := kept[i]
			a.unplace(out, c.name)
			c.g.placed = slices.DeleteFunc(c.g.placed, func(pl placement) bool { return pl.name == c.name })
			older := winner.pr.Part
			a.tieErrs = append(a.tieErrs, c.pr.Part.ObjectError(c.pr.Path.String(), translate.SeverityError,
				fmt.Errorf("%s %s, which is older, routes the same requests (rule %s, router %s): router %s is left out, since Traefik would send them to one of the two at random",
					older.Kind, older.Key, excerpt.Text(rule), excerpt.Text(winner.name), excerpt.Text(c.name))))
		}
	}
	a.dirty = true
}

// ruleKey is the key of a router's rule among those that could tie: a
// TLS router and a plain one never do (Traefik serves them on different
// connections), so that a dialect's pair of them for one path is no tie.
func ruleKey(rt *dynamic.Router) string {
	if rt.TLS != nil {
		return rt.Rule + "\x00tls"
	}
	return rt.Rule
}

// sameRequests says whether Traefik could not tell two routers with one
// rule apart: the same priority (0 is the length of the rule), both TLS or
// neither, and an entry point in common (none named is all of them).
func sameRequests(a, b *dynamic.Router) bool {
	if a.Priority != b.Priority || (a.TLS == nil) != (b.TLS == nil) {
		return false
	}
	if len(a.EntryPoints) == 0 || len(b.EntryPoints) == 0 {
		return true
	}
	return slices.ContainsFunc(a.EntryPoints, func(ep string) bool { return slices.Contains(b.EntryPoints, ep) })
}
