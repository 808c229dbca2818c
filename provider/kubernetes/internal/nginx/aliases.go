package nginx

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// server-alias: more names for the hosts of the Ingress's rules, served
// like them. Differences with ingress-nginx: the aliases serve the paths
// of the Ingress that names them, where ingress-nginx gives them its
// whole server (the paths of every Ingress of the host; name the alias
// on each Ingress of the host to have that); an alias is a host name
// (a wildcard *.example.com matches one more label), never one of
// nginx's regular expressions (~^www\d+\.example\.com$).

// hostName is a DNS name, or a wildcard one.
var hostName = regexp.MustCompile(`^(\*\.)?[a-z0-9_]([-a-z0-9_.]*[a-z0-9_])?$`)

func parseAliases(v string) ([]string, error) {
	var out []string
	for _, alias := range parseList(v) {
		alias = strings.ToLower(alias)
		if strings.HasPrefix(alias, "~") {
			return nil, fmt.Errorf("alias %s is an nginx regular expression: only host names are supported", alias)
		}
		if !hostName.MatchString(alias) {
			return nil, fmt.Errorf("alias %q is not a host name", alias)
		}
		if err := translate.CheckHost(alias); err != nil {
			return nil, err
		}
		if !slices.Contains(out, alias) {
			out = append(out, alias)
		}
	}
	slices.Sort(out)
	if len(out) == 0 && strings.TrimSpace(v) != "" {
		return nil, errors.New("names no host")
	}
	return out, nil
}

// redirectHosts adds to hosts, the hosts of ing's rules, the other host
// names its part reads: its aliases and the www counterparts of its
// hosts when it redirects from/to www. Its part drops an alias, or a www
// redirect, when another Ingress has a rule for that name, so it must be
// translated again when one comes or goes.
func redirectHosts(ing *netv1.Ingress, hosts []string) []string {
	add := func(h string) {
		if h != "" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	ruleHosts := len(hosts)
	// Read for every Ingress the host index adds: an absent annotation
	// costs no parse.
	if v := ing.Annotations[AnnotationPrefix+"from-to-www-redirect"]; v != "" {
		if www, err := parseBool(v); err == nil && www {
			for _, h := range hosts[:ruleHosts] {
				add(wwwCounterpart(h))
			}
		}
	}
	alias := ing.Annotations[AnnotationPrefix+"server-alias"]
	if alias == "" || ruleHosts == 0 {
		return hosts
	}
	if aliases, err := parseAliases(alias); err == nil {
		for _, a := range aliases {
			add(a)
		}
	}
	return hosts
}

// hostIngresses are the served Ingresses of this Ingress's namespace
// with a rule for host, oldest first, canaries left out: the Ingresses of
// nginx's server of host, as far as they decide for this namespace's
// paths (hostfacts.go). Without a host index, this Ingress alone.
func (t *translation) hostIngresses(host string) []*netv1.Ingress {
	if t.env.Hosts == nil {
		if hasRuleFor(t.ing, host) {
			return []*netv1.Ingress{t.ing}
		}
		return nil
	}
	var out []*netv1.Ingress
	for _, ing := range t.env.Hosts(host) {
		if ing == nil || ing.Namespace != t.ing.Namespace || !hasRuleFor(ing, host) || isCanary(ing) {
			continue
		}
		out = append(out, ing)
	}
	return out
}

// hasRuleFor says whether ing has an HTTP rule for host.
func hasRuleFor(ing *netv1.Ingress, host string) bool {
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP != nil && rule.Host == host {
			return true
		}
	}
	return false
}

// aliases are the server-alias names the path is served on too: not the
// host itself, nor a host of a rule of this namespace's served Ingresses
// (ingress-nginx ignores such an alias: the host's own server wins), nor
// a name another namespace owns (hostfacts.go; told once per Ingress, by
// aliasProblems).
func (pc *pathContext) aliases() []string {
	var out []string
	for _, a := range pc.cfg.Paths.ServerAliases {
		if a != pc.host && len(pc.hostIngresses(a)) == 0 && !hasRuleFor(pc.ing, a) && pc.ownsHost(a) {
			out = append(out, a)
		}
	}
	return out
}

// extraRouters adds the routers of the path besides those of its host
// (base, the route of the host): the same routers on each alias, and the
// www redirect of the host. The host's TLS option (client certificates)
// holds for its aliases too, as nginx's server block holds both.
func (pc *pathContext) extraRouters(base route) {
	pc.aliasRouters(base)
	pc.wwwRouters(base.to)
}

// aliasRouters adds the routers of base on each alias.
func (pc *pathContext) aliasRouters(base route) {
	for _, alias := range pc.aliases() {
		r := pc.hostRoute(alias, base.to)
		r.plainMws, r.tlsMws = slices.Clone(base.plainMws), slices.Clone(base.tlsMws)
		pc.routerPair(r)
	}
}
