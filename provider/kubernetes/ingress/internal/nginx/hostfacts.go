package nginx

import (
	"slices"

	netv1 "k8s.io/api/networking/v1"
)

// hostFacts are what the Ingresses of one host say together, as
// ingress-nginx merges them into one server: whether its paths are
// regular expressions, whether it has TLS, which canaries its paths have.
type hostFacts struct {
	// regex: an Ingress of the host has use-regex, or a rewrite-target,
	// so every path of the host is a case-insensitive regular expression
	// anchored at the start ("~*" locations), longest first.
	regex bool
	// tls: an Ingress of the host lists it in spec.tls, so the host is
	// served on TLS connections too, and plain ones are redirected unless
	// ssl-redirect is false.
	tls bool
	// clientCert: the oldest Ingress of the host that names an
	// auth-tls-secret, whose client certificate check is the host's, as
	// ingress-nginx makes it its server's (nil: none).
	clientCert *certSource
	// canaries are the canary Ingresses of the host by path (canary.go).
	canaries canaryPaths
}

// hostFacts reads the facts of host from the Ingresses of the host.
func (t *translation) hostFacts(host string) hostFacts {
	var f hostFacts
	ings := []*netv1.Ingress{t.ing}
	if t.env.Hosts != nil {
		ings = t.env.Hosts(host)
	}
	for _, ing := range ings {
		if ing == nil || !hasRuleFor(ing, host) {
			continue // one that reads host as an alias or a www name
		}
		cfg, problems := t.cfg, []Problem(nil)
		if ing != t.ing {
			cfg, problems = t.opts.ParseAnnotations(ing.Annotations)
		}
		if !cfg.Canary.Enabled && cfg.Paths.regexMode(ing, host) {
			f.regex = true
		}
		if !cfg.Canary.Enabled && f.clientCert == nil && cfg.Access.ClientCert.secret != "" {
			f.clientCert = &certSource{ing: ing, cfg: cfg.Access.ClientCert}
		}
		if cfg.Canary.Enabled && ing != t.ing {
			f.canaries.add(host, ing, cfg, problems)
		}
		for _, entry := range ing.Spec.TLS {
			if slices.Contains(entry.Hosts, host) {
				f.tls = true
			}
		}
	}
	return f
}
