package match

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// MaxPriority is the highest priority Priorities hands out. Traefik
// refuses a router whose priority is above math.MaxInt-1000 (it keeps
// those for its own routers), and its int is 32 bits wide on the 32-bit
// platforms it is built for: this bound holds on all of them.
const MaxPriority = math.MaxInt32 - 1000

// Order is where one router stands among the routers that share its
// Traefik entry point: the precedence of its match, then what the
// specification settles ties with, which only the caller knows.
type Order struct {
	// Listener ranks the hostname of the listener the router serves
	// (RankHostname; "" for a listener without one). Listeners of
	// different hostnames can share a port, hence an entry point; a
	// request goes to the most specific listener that matches it, so
	// its routers go first. Leave it zero when one listener has the
	// entry point.
	Listener HostRank
	// Precedence is the precedence of the router's rule (Rule.Precedence).
	Precedence Precedence
	// Created is the route's creation timestamp: the older route goes
	// first.
	Created time.Time
	// Namespace and Name are the route's: then the route first in
	// alphabetical order of "namespace/name" goes first.
	Namespace, Name string
	// RuleIndex and MatchIndex are the positions of the rule in the
	// route's rules and of the match in the rule's matches: then the
	// first goes first.
	RuleIndex, MatchIndex int
}

// CompareOrder is negative when a must be tried before b, positive when
// after, 0 when they are the same router's (or the same match's on two
// listeners of one hostname rank, which match the same requests):
// slices.SortFunc(orders, CompareOrder) lists them from the first.
func CompareOrder(a, b Order) int {
	if c := compareHostRanks(a.Listener, b.Listener); c != 0 {
		return c
	}
	if c := Compare(a.Precedence, b.Precedence); c != 0 {
		return c
	}
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	// The specification orders "{namespace}/{name}" as one string, which
	// is not namespace then name: "a-b/x" comes before "a/x".
	if c := strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name); c != 0 {
		return c
	}
	if c := cmp.Compare(a.RuleIndex, b.RuleIndex); c != 0 {
		return c
	}
	return cmp.Compare(a.MatchIndex, b.MatchIndex)
}

// Priorities are the Traefik priorities of routers, in the order of
// orders: the router that must be tried first gets the highest, each
// later one a lower one, lowest the last; routers whose orders compare
// equal share a priority. Traefik tries routers by decreasing priority
// and leaves the order of equal priorities to chance (it sorts them
// with an unstable sort, from a map), so only different priorities
// make the order of overlapping routers hold.
//
// lowest (at least 1: 0 is Traefik's "no priority", which it replaces
// by the rule's length) sets where the routers stand against others on
// the entry point whose priorities the caller knows. The highest
// priority is lowest plus the number of distinct orders less one, and
// may not pass MaxPriority.
func Priorities(orders []Order, lowest int) ([]int, error) {
	if lowest < 1 || lowest > MaxPriority {
		return nil, fmt.Errorf("the lowest priority %d is not between 1 and %d", lowest, MaxPriority)
	}
	byOrder := make([]int, len(orders))
	for i := range byOrder {
		byOrder[i] = i
	}
	slices.SortFunc(byOrder, func(i, j int) int { return CompareOrder(orders[i], orders[j]) })
	distinct := 0
	for k, i := range byOrder {
		if k == 0 || CompareOrder(orders[byOrder[k-1]], orders[i]) != 0 {
			distinct++
		}
	}
	if distinct > 0 && distinct-1 > MaxPriority-lowest {
		return nil, fmt.Errorf("%d routers of distinct orders from priority %d would pass the highest priority Traefik accepts, %d", distinct, lowest, MaxPriority)
	}
	priorities := make([]int, len(orders))
	p := lowest + distinct
	for k, i := range byOrder {
		if k == 0 || CompareOrder(orders[byOrder[k-1]], orders[i]) != 0 {
			p--
		}
		priorities[i] = p
	}
	return priorities, nil
}
