package match

import "cmp"

// Precedence is what the Gateway API ranks a match by, for the requests
// one router matches, from what the match alone says. Between the
// routers of one listener, the router whose Precedence goes first
// (Compare) must be tried first. It is a comparable value: equal
// precedences are a tie, which the route's age, its name and the
// position of the match in the route settle (Order).
//
// An HTTPRoute's match is ranked by, in order: its hostname (HostRank),
// an Exact path over a RegularExpression over a PathPrefix, the longer
// path, a method, more header matches, more query parameter matches. A
// GRPCRoute's by: its hostname, the longer service, the longer method,
// more header matches. The fields of the other kind are zero, so one
// Compare ranks both; the two kinds never share a hostname on one
// listener (the specification has the later route refused), so how an
// HTTPRoute's match ranks against a GRPCRoute's only keeps the order
// total.
type Precedence struct {
	// Host ranks the hostname the router matches.
	Host HostRank
	// Path is the kind of the path match (NoPath for a GRPCRoute).
	Path PathKind
	// PathLength is the number of characters of the path: of the value
	// as Traefik routes on it, without a PathPrefix's trailing slash, or
	// of the regular expression as written.
	PathLength int
	// Method is set when the match has a method.
	Method bool
	// GRPCService and GRPCMethod are the numbers of characters of a
	// GRPCRoute's service and method (0 when any).
	GRPCService, GRPCMethod int
	// Headers and QueryParams are the numbers of header and query
	// parameter matches, those the specification ignores (a repeated
	// name) left out.
	Headers, QueryParams int
}

// Compare is negative when a takes precedence over b, positive when b
// does, and 0 when they tie: slices.SortFunc(ps, Compare) lists the
// routers from the one Traefik must try first.
func Compare(a, b Precedence) int {
	if c := compareHostRanks(a.Host, b.Host); c != 0 {
		return c
	}
	// Greater goes first, hence b before a.
	if c := cmp.Compare(b.Path, a.Path); c != 0 {
		return c
	}
	if c := cmp.Compare(b.PathLength, a.PathLength); c != 0 {
		return c
	}
	if a.Method != b.Method {
		if a.Method {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(b.GRPCService, a.GRPCService); c != 0 {
		return c
	}
	if c := cmp.Compare(b.GRPCMethod, a.GRPCMethod); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Headers, a.Headers); c != 0 {
		return c
	}
	return cmp.Compare(b.QueryParams, a.QueryParams)
}
