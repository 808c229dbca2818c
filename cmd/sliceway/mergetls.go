package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
)

// One TLS option per host across providers. Each provider's assembly
// gives a host's TLS routers one option (the oldest Ingress's), but it
// cannot see the other provider's Ingresses: a Traefik-style Ingress
// that adds a TLS router without options to a host whose ingress-nginx
// routers ask for client certificates would make Traefik fall back to
// its default options for the whole host. What must hold: every TLS
// router of a host in the merged configuration names one option. The
// providers say which Ingress chose each host's option
// (dynamic.Message.TLSHostOwners); on a host they disagree on, the
// provider whose Ingress is older keeps its TLS routers and the others'
// are left out, as within one provider. When a provider does not say,
// neither provider's TLS routers of the host are served: its HTTPS
// requests fail until one provider has it alone, and none reaches a
// backend without the check it asked for.

// tlsClash is a host whose TLS routers name different options in the
// providers' configurations.
type tlsClash struct {
	host    string
	options map[string]*clashOption // by option, "" for the default
	// keep is the option whose routers are served, when every provider
	// said who owns the host; else none is.
	keep    string
	settled bool
}

// clashOption is one option of a clashing host, with the routers naming
// it and the oldest Ingress among its providers' owners of the host.
type clashOption struct {
	routers []string
	owner   dynamic.HostOwner
	known   bool // every provider naming it said who owns the host
}

func (c *tlsClash) Error() string {
	var parts []string
	for _, option := range slices.Sorted(maps.Keys(c.options)) {
		if !c.settled || option != c.keep {
			parts = append(parts, fmt.Sprintf("TLS option %s by %s", optionName(option), strings.Join(c.options[option].routers, ", ")))
		}
	}
	if !c.settled {
		return fmt.Sprintf("host %q: the providers' TLS routers name different TLS options (%s); Traefik would use its default options for the whole host, so neither provider's TLS routers of the host are served",
			c.host, strings.Join(parts, "; "))
	}
	o := c.options[c.keep].owner
	return fmt.Sprintf("host %q: Ingress %s/%s, the oldest with a TLS router for the host, gives its TLS routers TLS option %s; the other provider's routers name another (%s), and Traefik would then use its default options for the whole host, so they are left out",
		c.host, o.Namespace, o.Name, optionName(c.keep), strings.Join(parts, "; "))
}

func optionName(option string) string {
	if option == "" {
		return "default"
	}
	return option
}

// routerOption is the TLS option rt names, "" for the default.
func routerOption(rt *dynamic.Router) string {
	if rt.TLS.Options == "default" {
		return ""
	}
	return rt.TLS.Options
}

// tlsClashes are the hosts of msgs whose TLS routers disagree, by host,
// each settled by the owners the messages give.
func tlsClashes(msgs []dynamic.Message) map[string]*tlsClash {
	byHost := map[string]map[string]*clashOption{}
	for _, m := range msgs {
		c := m.Configuration
		if c == nil || c.HTTP == nil {
			continue
		}
		for name, rt := range c.HTTP.Routers {
			if rt.TLS == nil {
				continue
			}
			option := routerOption(rt)
			for _, h := range rt.TLSHosts() {
				if byHost[h] == nil {
					byHost[h] = map[string]*clashOption{}
				}
				o := byHost[h][option]
				if o == nil {
					o = &clashOption{known: true}
					byHost[h][option] = o
				}
				o.routers = append(o.routers, routerText(name, rt))
				owner, ok := m.TLSHostOwners[h]
				switch {
				case !ok:
					o.known = false
				case o.owner == (dynamic.HostOwner{}) || owner.Older(o.owner):
					o.owner = owner
				}
			}
		}
	}
	clashes := map[string]*tlsClash{}
	for h, options := range byHost {
		if len(options) < 2 {
			continue
		}
		c := &tlsClash{host: h, options: options, settled: true}
		var oldest *clashOption
		for option, o := range options {
			slices.Sort(o.routers)
			if !o.known {
				c.settled = false
				continue
			}
			if oldest == nil || o.owner.Older(oldest.owner) {
				oldest, c.keep = o, option
			}
		}
		if !c.settled {
			c.keep = ""
		}
		clashes[h] = c
	}
	return clashes
}

// routerText names a router and the Ingress it comes from.
func routerText(name string, rt *dynamic.Router) string {
	if o := rt.Observability; o != nil && o.Metadata != nil && o.Metadata.Ingress != nil {
		return fmt.Sprintf("router %s (Ingress %s/%s)", name, o.Metadata.Ingress.Namespace, o.Metadata.Ingress.IngressName)
	}
	return "router " + name
}

// leftOut says whether rt is a TLS router that clashes leave out: one of
// a host none of whose TLS routers is served, or naming another option
// than the one kept.
func leftOut(rt *dynamic.Router, clashes map[string]*tlsClash) bool {
	if rt.TLS == nil || len(clashes) == 0 {
		return false
	}
	return slices.ContainsFunc(rt.TLSHosts(), func(h string) bool {
		c := clashes[h]
		return c != nil && (!c.settled || routerOption(rt) != c.keep)
	})
}
