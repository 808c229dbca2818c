package ingress

import (
	"fmt"

	"github.com/sliceway/sliceway/internal/excerpt"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/translate"
)

// One TLS option per host. Traefik chooses the TLS options of a
// connection by its SNI host, from the Host matchers of the TLS routers;
// when two TLS routers of one host name different options it uses its
// default options for the whole host. So one Ingress could switch off
// another's client certificates by adding a path to its host. What must
// hold: every TLS router of a host in the configuration names the same
// option. The oldest router of a host decides (the order of parts, then
// of paths); a router that names another option is left out and its
// path is told which Ingress decided.

// hostTLS is the TLS option of a host's TLS routers.
type hostTLS struct {
	option     string            // "" and "default" are Traefik's default options
	from       *translate.Router // the oldest router that named it
	routers    int               // the TLS routers placed with it
	conflicted bool              // a router that named another was left out
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

// checkTLSHosts settles the options of the hosts of the parts, oldest
// first, for a full assembly: it fills a.tlsHosts, and says which routers
// are left out (a.tlsSkipped, reported in a.tlsErrs).
func (a *assembly) checkTLSHosts(served []*ingressPart) {
	a.tlsHosts, a.tlsSkipped, a.tlsErrs = map[string]*hostTLS{}, nil, nil
	for _, p := range served {
		for i := range p.Routers {
			pr := &p.Routers[i]
			option, ok := tlsOption(pr)
			if !ok {
				continue
			}
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
					t = &hostTLS{option: option, from: pr}
					a.tlsHosts[h] = t
				}
				t.routers++
			}
		}
	}
}

// skipTLSRouter leaves pr out for naming another option than the host's.
func (a *assembly) skipTLSRouter(pr *translate.Router, host *hostTLS, option string) {
	if a.tlsSkipped == nil {
		a.tlsSkipped = map[*translate.Router]struct{}{}
	}
	a.tlsSkipped[pr] = struct{}{}
	ing, older := pr.Part.Ingress, host.from.Part.Ingress
	a.tlsErrs = append(a.tlsErrs, &ObjectError{Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name, Field: pr.Path.String(), Severity: SeverityError,
		Err: fmt.Errorf("Ingress %s/%s, which is older, gives the host's TLS routers TLS option %s; this path's router %s names %s, and Traefik would then use its default options for the whole host (the router is left out)",
			older.Namespace, older.Name, optionText(host.option), excerpt.Text(pr.Key), optionText(option))})
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
// or one that would disagree.
func (a *assembly) patchTLSHosts(olds, news []*ingressPart) bool {
	for _, p := range olds {
		for i := range p.Routers {
			if _, ok := tlsOption(&p.Routers[i]); !ok {
				continue
			}
			for _, h := range p.Routers[i].Config.TLSHosts() {
				t := a.tlsHosts[h]
				if t == nil || t.conflicted {
					return false
				}
				if t.routers--; t.routers <= 0 {
					delete(a.tlsHosts, h)
				}
			}
		}
	}
	for _, p := range news {
		for i := range p.Routers {
			pr := &p.Routers[i]
			option, ok := tlsOption(pr)
			if !ok {
				continue
			}
			for _, h := range pr.Config.TLSHosts() {
				t := a.tlsHosts[h]
				switch {
				case t == nil:
					a.tlsHosts[h] = &hostTLS{option: option, from: pr, routers: 1}
				case t.conflicted || t.option != option:
					return false
				default:
					t.routers++
				}
			}
		}
	}
	return true
}
