package match

// Rule is the rule of one Traefik router for a match, with the
// precedence that router must be given.
type Rule struct {
	// Rule is the router's rule, in Traefik v3's default syntax.
	Rule string
	// Hostnames are the hostnames the rule matches, lower-cased; nil
	// when it matches any host.
	Hostnames []string
	// Precedence is how the match ranks for the requests the rule
	// matches; the caller turns it into a priority (Order, Priorities).
	Precedence Precedence
}

// rules are the Rules of a match on hostnames: one for each group of
// hostnames of one rank (an exact hostname and a wildcard rank apart,
// and a request must be ranked by the hostname it matched), each the
// group's host matcher and the match's terms.
func rules(hostnames []string, terms []term, p Precedence) ([]Rule, error) {
	groups, err := hostGroups(hostnames)
	if err != nil {
		return nil, err
	}
	out := make([]Rule, len(groups))
	for i, g := range groups {
		p.Host = g.rank
		out[i] = Rule{
			Rule:       allOf(append([]term{g.term}, terms...)...),
			Hostnames:  g.hostnames,
			Precedence: p,
		}
	}
	return out, nil
}
