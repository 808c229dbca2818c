package nginx

import (
	"fmt"
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Who decides for a host. ingress-nginx merges every Ingress of a host
// into one server, whatever their namespaces, so one namespace's
// annotations change how another namespace's paths are served. Here a
// host name belongs to the namespace of the oldest served Ingress that
// claims it (a rule for it, or an alias or www name of one of its rules;
// canaries claim nothing): its owner. What must hold: an Ingress never
// changes the routers of another namespace's paths. So
//   - what a host's paths share in ingress-nginx (regex mode, app-root,
//     from-to-www, the ssl redirect that spec.tls brings, which names are
//     taken by a rule and so not aliases) is read from the Ingresses of
//     the path's own namespace;
//   - what Traefik can only have once per host, the TLS option (client
//     certificates), is the owner's: every TLS router of the host, of any
//     namespace, names it, and another namespace cannot ask for its own
//     (its paths on the host are closed, and say why);
//   - the owner's spec.tls serves the host on TLS for every namespace's
//     paths of it (their TLS routers take the owner's option);
//   - an alias or www name owned by another namespace is not served;
//   - with the exclusiveHosts option, another namespace's rules for the
//     host are not served at all.
// Another namespace can still add paths of its own on a shared host, as
// in ingress-nginx: a longer path of its own takes the requests it
// matches from a shorter path of the owner's (docs/security.md).

// hostFacts are what the Ingresses of one host say together for the
// paths of the Ingress being translated.
type hostFacts struct {
	// owner is the oldest served Ingress that claims the host: its
	// namespace owns the host (nil without a host index, where the
	// Ingress being translated is the only one).
	owner *netv1.Ingress
	// regex: an Ingress of this namespace has use-regex, or a
	// rewrite-target, on the host, so every path of the namespace on the
	// host is a case-insensitive regular expression anchored at the start
	// ("~*" locations), longest first.
	regex bool
	// tls: an Ingress of this namespace or of the owner's lists the host
	// in spec.tls, so the path is served on TLS connections too, and plain
	// ones are redirected unless ssl-redirect is false.
	tls bool
	// clientCert: the oldest Ingress of the owner's namespace that names
	// an auth-tls-secret for the host, whose client certificate check is
	// the host's (nil: none).
	clientCert *certSource
	// canaries are the canary Ingresses of this namespace on the host by
	// path (canary.go).
	canaries canaryPaths
	// passthrough: an Ingress of the owner's namespace asks for
	// ssl-passthrough on the host, and the options allow it: TLS
	// connections for the host go to the backend of its "/" path without
	// Traefik ending their TLS (passthrough.go), so the host has no TLS
	// routers.
	passthrough bool
}

// ownedElsewhere says whether the host belongs to another namespace
// than ing's.
func (f *hostFacts) ownedElsewhere(ing *netv1.Ingress) bool {
	return f.owner != nil && f.owner.Namespace != ing.Namespace
}

// hostFacts reads the facts of host from the Ingresses of the host.
func (t *translation) hostFacts(host string) hostFacts {
	f := hostFacts{owner: t.hostOwner(host)}
	ings := []*netv1.Ingress{t.ing}
	if t.env.Hosts != nil {
		ings = t.env.Hosts(host)
	}
	for _, ing := range ings {
		if ing == nil || !hasRuleFor(ing, host) {
			continue // one that reads host as an alias or a www name
		}
		own := ing.Namespace == t.ing.Namespace
		byOwner := f.owner == nil || ing.Namespace == f.owner.Namespace
		if !own && !byOwner {
			continue
		}
		cfg, problems := t.annotationsOf(ing)
		if own && !cfg.Canary.Enabled && cfg.Paths.regexMode(ing, host) {
			f.regex = true
		}
		if byOwner && !cfg.Canary.Enabled && cfg.Paths.SSLPassthrough && t.opts.SSLPassthrough && !wildcardOrNone(host) {
			f.passthrough = true
		}
		if byOwner && !cfg.Canary.Enabled && f.clientCert == nil && cfg.Access.ClientCert.secret != "" {
			f.clientCert = &certSource{ing: ing, cfg: cfg.Access.ClientCert}
		}
		if own && cfg.Canary.Enabled && ing != t.ing {
			f.canaries.add(host, ing, cfg, problems, t.env.PlanOptions.MaxOutput)
		}
		for _, entry := range ing.Spec.TLS {
			if slices.Contains(entry.Hosts, host) {
				f.tls = true
			}
		}
	}
	return f
}

// hostOwner is the oldest served Ingress that claims host (a rule, an
// alias or a www name), canaries left out; nil without a host index.
func (t *translation) hostOwner(host string) *netv1.Ingress {
	if t.env.Hosts == nil {
		return nil
	}
	// The index lists an Ingress under every name it claims (Hosts).
	for _, ing := range t.env.Hosts(host) {
		if ing != nil && !isCanary(ing) {
			return ing
		}
	}
	return nil
}

// ownsHost says whether host, a name the Ingress serves besides its
// rules' hosts (an alias, a www name), belongs to its namespace.
func (t *translation) ownsHost(host string) bool {
	owner := t.hostOwner(host)
	return owner == nil || owner.Namespace == t.ing.Namespace
}

// annotationsOf is what the annotations of ing, an Ingress of a host
// of the one being translated, say.
func (t *translation) annotationsOf(ing *netv1.Ingress) (*Config, []Problem) {
	if ing == t.ing {
		return t.cfg, nil
	}
	return t.opts.ParseAnnotations(ing.Annotations)
}

// isCanary says whether ing is a canary Ingress.
func isCanary(ing *netv1.Ingress) bool {
	v := ing.Annotations[AnnotationPrefix+"canary"]
	if v == "" {
		return false
	}
	canary, err := parseBool(v)
	return err == nil && canary
}

// claimProblems reports the aliases and www names of the Ingress that
// another namespace owns: they are not served (aliases, wwwRouters).
func (t *translation) claimProblems() {
	report := func(annotation, what, name string) {
		if o := t.hostOwner(name); o != nil && o.Namespace != t.ing.Namespace {
			t.annotationProblem(annotation, translate.SeverityError, fmt.Errorf(
				"%s %q belongs to namespace %s (its oldest Ingress is %s/%s) (it is not served)", what, name, o.Namespace, o.Namespace, o.Name))
		}
	}
	for _, alias := range t.cfg.Paths.ServerAliases {
		report("server-alias", "alias", alias)
	}
	if t.cfg.Paths.FromToWWW {
		var done []string
		for _, rule := range t.ing.Spec.Rules {
			if www := wwwCounterpart(rule.Host); rule.HTTP != nil && www != "" && !slices.Contains(done, www) {
				done = append(done, www)
				report("from-to-www-redirect", "www name", www)
			}
		}
	}
}
