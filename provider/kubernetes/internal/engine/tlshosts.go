package engine

import (
	"fmt"
	"iter"
	"maps"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// One TLS option per host. Traefik chooses the TLS options of a
// connection by its SNI host, from the Host matchers of the TLS routers;
// when two TLS routers of one host name different options it uses its
// default options for the whole host. So one Ingress could switch off
// another's client certificates by adding a path to its host. What must
// hold: every TLS router of a host in the configuration names the same
// option. The oldest router of a host decides (the order of parts, then
// of paths); a router that names another option is left out and its
// path is told which Ingress decided. The Ingress that decided each
// host is handed to the merge of two providers' configurations
// (a.tlsOwners, dynamic.Message.TLSHostOwners), which settles a host the
// providers disagree on the same way.

// hostTLS is the TLS option of a host's TLS routers.
type hostTLS struct {
	option     string            // "" and "default" are Traefik's default options
	owner      dynamic.HostOwner // the Ingress of the oldest router that named it
	routers    int               // the TLS routers placed with it
	conflicted bool              // a router that named another was left out
}

// sameOwner says whether a and b are one Ingress (an Ingress deleted and
// made again under its name is another).
func sameOwner(a, b dynamic.HostOwner) bool {
	return a.Namespace == b.Namespace && a.Name == b.Name && a.Created.Equal(b.Created)
}

// ownerOf is the object of pr (an Ingress, a route), as a host's owner.
func ownerOf(pr *translate.Router) dynamic.HostOwner {
	p := pr.Part
	return dynamic.HostOwner{Namespace: p.Key.Namespace, Name: p.Key.Name, Created: p.Created()}
}

// tlsOption is the option a TLS router names, "" for the default.
func tlsOption(pr *translate.Router) (string, bool) {
	tls := pr.Config.TLS
	if tls == nil {
		return "", false
	}
	if tls.Options == "default" {
		return "", true
	}
	return tls.Options, true
}

// tlsRouters are the TLS routers of parts, each with the option it names.
func tlsRouters(parts []*Part) iter.Seq2[*translate.Router, string] {
	return func(yield func(*translate.Router, string) bool) {
		for _, p := range parts {
			for i := range p.Routers {
				pr := &p.Routers[i]
				if option, ok := tlsOption(pr); ok && !yield(pr, option) {
					return
				}
			}
		}
	}
}

// checkTLSHosts settles the options of the hosts of the parts, oldest
// first, for a full assembly: it fills a.tlsHosts and a.tlsOwners, and
// says which routers are left out (a.tlsSkipped, reported in a.tlsErrs).
func (a *assembly) checkTLSHosts(served []*Part) {
	a.tlsHosts, a.tlsSkipped, a.tlsErrs = map[string]*hostTLS{}, nil, nil
	a.tlsOwners = map[string]dynamic.HostOwner{}
	for pr, option := range tlsRouters(served) {
		hosts := pr.Config.TLSHosts()
		var clash *hostTLS
		for _, h := range hosts {
			if t := a.tlsHosts[h]; t != nil && t.option != option {
				clash, t.conflicted = t, true
			}
		}
		if clash != nil {
			a.skipTLSRouter(pr, clash, option)
			continue
		}
		for _, h := range hosts {
			t := a.tlsHosts[h]
			if t == nil {
				t = &hostTLS{option: option, owner: ownerOf(pr)}
				a.tlsHosts[h] = t
				a.tlsOwners[h] = t.owner
			}
			t.routers++
		}
	}
}

// skipTLSRouter leaves pr out for naming another option than the host's.
func (a *assembly) skipTLSRouter(pr *translate.Router, host *hostTLS, option string) {
	if a.tlsSkipped == nil {
		a.tlsSkipped = map[*translate.Router]struct{}{}
	}
	a.tlsSkipped[pr] = struct{}{}
	older := host.owner
	a.tlsErrs = append(a.tlsErrs, pr.Part.ObjectError(pr.Path.String(), translate.SeverityError,
		fmt.Errorf("%s %s/%s, which is older, gives the host's TLS routers TLS option %s; this path's router %s names %s, and Traefik would then use its default options for the whole host (the router is left out)",
			pr.Part.Kind, older.Namespace, older.Name, optionText(host.option), excerpt.Text(pr.Key), optionText(option))))
	a.dirty = true
}

func optionText(option string) string {
	if option == "" {
		return "default"
	}
	return excerpt.Text(option)
}

// patchTLSHosts counts the TLS routers of the parts that change (olds
// leave, news come), false when a full assembly must decide: a router of
// a host whose routers disagree (a router left out is on such a host),
// one that would disagree, or a host whose owner leaves while other
// Ingresses' routers stay (the next oldest is known to a full assembly).
// An owner's Ingress that is translated again keeps its hosts.
func (a *assembly) patchTLSHosts(olds, news []*Part) bool {
	var ownerLeft map[*hostTLS]struct{}
	owners := map[string]*hostTLS{} // hosts whose owner entry changes; nil: removed
	for pr := range tlsRouters(olds) {
		for _, h := range pr.Config.TLSHosts() {
			t := a.tlsHosts[h]
			if t == nil || t.conflicted {
				return false
			}
			if sameOwner(t.owner, ownerOf(pr)) {
				if ownerLeft == nil {
					ownerLeft = map[*hostTLS]struct{}{}
				}
				ownerLeft[t] = struct{}{}
			}
			if t.routers--; t.routers <= 0 {
				delete(a.tlsHosts, h)
				owners[h] = nil
			}
		}
	}
	for pr, option := range tlsRouters(news) {
		for _, h := range pr.Config.TLSHosts() {
			t := a.tlsHosts[h]
			switch {
			case t == nil:
				t = &hostTLS{option: option, owner: ownerOf(pr), routers: 1}
				a.tlsHosts[h] = t
				owners[h] = t
			case t.conflicted || t.option != option:
				return false
			default:
				t.routers++
				o := ownerOf(pr)
				if sameOwner(o, t.owner) {
					delete(ownerLeft, t)
				} else if o.Older(t.owner) {
					t.owner = o
					owners[h] = t
				}
			}
		}
	}
	for t := range ownerLeft {
		if t.routers > 0 {
			return false
		}
	}
	if len(owners) > 0 {
		// A new map: the one handed out with the last configuration
		// is read by the merge.
		a.tlsOwners = maps.Clone(a.tlsOwners)
		for h, t := range owners {
			if t == nil {
				delete(a.tlsOwners, h)
			} else {
				a.tlsOwners[h] = t.owner
			}
		}
	}
	return true
}
