package match

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// HostRank is how specific the hostname a request matched is, as the
// Gateway API ranks hostnames: an exact hostname before any wildcard, a
// longer wildcard before a shorter one, and a wildcard before no hostname
// at all (any host).
//
// The length of an exact hostname is not kept: two exact hostnames that
// match one request are that request's host, so their lengths never
// decide anything, and all the exact hostnames of a match can share one
// router. Two wildcards that match one request are suffixes of it, and
// the longer is the more specific.
type HostRank struct {
	// Exact is set for a hostname without a wildcard.
	Exact bool
	// Wildcard is the number of characters of a wildcard hostname
	// ("*.example.com" has 13); 0 for an exact hostname or any host.
	Wildcard int
}

// RankHostname ranks a hostname (a route's, or a listener's for
// Order.Listener); "" is any host.
func RankHostname(hostname string) HostRank {
	switch {
	case strings.HasPrefix(hostname, "*."):
		return HostRank{Wildcard: len(hostname)}
	case hostname != "":
		return HostRank{Exact: true}
	}
	return HostRank{}
}

// compareHostRanks is negative when a is the more specific.
func compareHostRanks(a, b HostRank) int {
	if a.Exact != b.Exact {
		if a.Exact {
			return -1
		}
		return 1
	}
	return cmp.Compare(b.Wildcard, a.Wildcard)
}

// hostGroup is hostnames of one rank, which one router matches.
type hostGroup struct {
	rank      HostRank
	hostnames []string // lower-cased, in the order given; nil for any host
	term      term     // empty for any host
}

// validHostname is the API's pattern for a Hostname: a DNS name in lower
// case, perhaps under a wildcard label.
var validHostname = regexp.MustCompile(`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// maxHostname is the API's limit on a hostname's length.
const maxHostname = 253

// hostGroups splits hostnames into the groups that each become a router:
// one for all the exact hostnames, one for each length of wildcard; the
// exact group first, then the longest wildcards. No hostnames is one
// group that matches any host. Duplicates (in any case) are dropped.
func hostGroups(hostnames []string) ([]hostGroup, error) {
	if len(hostnames) == 0 {
		return []hostGroup{{}}, nil
	}
	byRank := map[HostRank]*hostGroup{}
	seen := map[string]bool{}
	for _, h := range hostnames {
		lower := strings.ToLower(h)
		if len(lower) > maxHostname || !validHostname.MatchString(lower) {
			return nil, &HostnameError{Hostname: h}
		}
		if seen[lower] {
			continue
		}
		seen[lower] = true
		rank := RankHostname(lower)
		g := byRank[rank]
		if g == nil {
			g = &hostGroup{rank: rank}
			byRank[rank] = g
		}
		g.hostnames = append(g.hostnames, lower)
	}
	groups := make([]hostGroup, 0, len(byRank))
	for _, g := range byRank {
		terms := make([]term, len(g.hostnames))
		for i, h := range g.hostnames {
			terms[i] = hostTerm(h)
		}
		g.term = anyOf(terms...)
		groups = append(groups, *g)
	}
	slices.SortFunc(groups, func(a, b hostGroup) int { return compareHostRanks(a.rank, b.rank) })
	return groups, nil
}

// hostTerm matches one hostname. An exact hostname is Host, which
// ignores case, the port and a trailing dot. A wildcard matches one or
// more labels before its suffix, as the specification's suffix match
// does ("*.example.com" matches "a.example.com" and "a.b.example.com",
// not "example.com"), unlike an Ingress wildcard (exactly one label);
// its HostRegexp allows a trailing dot too, as Host does. Traefik
// lower-cases the request's host before either.
func hostTerm(hostname string) term {
	if suffix, ok := strings.CutPrefix(hostname, "*."); ok {
		return call("HostRegexp", `^(?:[^.]+\.)+`+regexp.QuoteMeta(suffix)+`\.?$`)
	}
	return call("Host", hostname)
}

// Isolated is r with the requests for hostnames of more specific
// listeners taken out (listener isolation: a request is matched against
// the routes of the most specific listener its host matches, and only
// those). moreSpecific are those listeners' hostnames; the ones no host
// of r can be are left out of the rule.
func Isolated(r Rule, moreSpecific []string) Rule {
	var negated []term
	for _, h := range moreSpecific {
		if r.Hostnames != nil && !slices.ContainsFunc(r.Hostnames, func(own string) bool { return hostsOverlap(own, h) }) {
			continue
		}
		negated = append(negated, term{text: "!" + hostTerm(h).text})
	}
	if len(negated) == 0 {
		return r
	}
	r.Rule = allOf(append([]term{{text: r.Rule, or: strings.Contains(r.Rule, "||")}}, negated...)...)
	return r
}

// hostsOverlap says whether some host matches both hostnames, each
// exact or a wildcard of one or more labels.
func hostsOverlap(a, b string) bool {
	return a == b || wildcardCovers(a, b) || wildcardCovers(b, a)
}

// wildcardCovers says whether wildcard w ("*.example.com") matches every
// host hostname h matches: an exact host or a narrower wildcard under it.
func wildcardCovers(w, h string) bool {
	suffix, ok := strings.CutPrefix(w, "*.")
	return ok && h != w && strings.HasSuffix(h, "."+suffix)
}

// MoreSpecific says whether a listener of hostname narrower (nil: any)
// takes requests that a listener of hostname wider would take too: wider
// matches any host, or is a wildcard covering narrower.
func MoreSpecific(narrower, wider *string) bool {
	switch {
	case narrower == nil:
		return false
	case wider == nil:
		return true
	}
	return wildcardCovers(*wider, *narrower)
}
