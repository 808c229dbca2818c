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
// its default options for the whole host. The merge cannot tell which
// Ingress is older, so on such a host it serves neither provider's TLS
// routers: the host's HTTPS requests fail until one provider has it
// alone, and none reaches a backend without the check it asked for.

// tlsClash is a host whose TLS routers name different options in the
// providers' configurations.
type tlsClash struct {
	host    string
	routers map[string][]string // option ("" is the default) -> routers naming it
}

func (c tlsClash) Error() string {
	var parts []string
	for _, option := range slices.Sorted(maps.Keys(c.routers)) {
		name := option
		if name == "" {
			name = "default"
		}
		parts = append(parts, fmt.Sprintf("TLS option %s by %s", name, strings.Join(c.routers[option], ", ")))
	}
	return fmt.Sprintf("host %q: the providers' TLS routers name different TLS options (%s); Traefik would use its default options for the whole host, so neither provider's TLS routers of the host are served",
		c.host, strings.Join(parts, "; "))
}

// tlsClashes are the hosts of confs whose TLS routers disagree, by host.
func tlsClashes(confs []*dynamic.Configuration) map[string]*tlsClash {
	byHost := map[string]map[string][]string{}
	for _, c := range confs {
		if c == nil || c.HTTP == nil {
			continue
		}
		for name, rt := range c.HTTP.Routers {
			if rt.TLS == nil {
				continue
			}
			option := rt.TLS.Options
			if option == "default" {
				option = ""
			}
			for _, h := range rt.TLSHosts() {
				if byHost[h] == nil {
					byHost[h] = map[string][]string{}
				}
				byHost[h][option] = append(byHost[h][option], routerText(name, rt))
			}
		}
	}
	clashes := map[string]*tlsClash{}
	for h, options := range byHost {
		if len(options) > 1 {
			for _, list := range options {
				slices.Sort(list)
			}
			clashes[h] = &tlsClash{host: h, routers: options}
		}
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

// onClashingHost says whether rt is a TLS router of a host in clashes.
func onClashingHost(rt *dynamic.Router, clashes map[string]*tlsClash) bool {
	if rt.TLS == nil || len(clashes) == 0 {
		return false
	}
	return slices.ContainsFunc(rt.TLSHosts(), func(h string) bool { return clashes[h] != nil })
}
