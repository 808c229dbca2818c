package match_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
)

// one is a route of one rule of one HTTP match.
func one(namespace, name string, created int, hostnames []string, m gatewayv1.HTTPRouteMatch, backend string) route {
	return route{namespace: namespace, name: name, created: created, hostnames: hostnames, rules: []routeRule{
		{http: []gatewayv1.HTTPRouteMatch{m}, backend: backend},
	}}
}

func TestPrecedenceAcrossRoutes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes []route
		cases  []expect
	}{
		{
			name: "an exact hostname beats a wildcard, whatever the paths",
			routes: []route{
				one("a", "wild", 0, []string{"*.example.com"}, gatewayv1.HTTPRouteMatch{Path: exact("/very/long/path")}, "wild"),
				one("a", "exact", 0, []string{"foo.example.com"}, gatewayv1.HTTPRouteMatch{}, "exact"),
			},
			cases: []expect{
				{get("http://foo.example.com/very/long/path"), "exact"},
				{get("http://bar.example.com/very/long/path"), "wild"},
				{get("http://foo.bar.example.com/very/long/path"), "wild"},
				{get("http://bar.example.com/"), notFound},
			},
		},
		{
			name: "a longer wildcard beats a shorter one",
			routes: []route{
				one("a", "short", 0, []string{"*.example.com"}, gatewayv1.HTTPRouteMatch{Path: exact("/a/b/c")}, "short"),
				one("a", "long", 0, []string{"*.foo.example.com"}, gatewayv1.HTTPRouteMatch{}, "long"),
			},
			cases: []expect{
				{get("http://x.foo.example.com/a/b/c"), "long"},
				{get("http://x.y.foo.example.com/a/b/c"), "long"},
				{get("http://foo.example.com/a/b/c"), "short"}, // *.foo.example.com does not take foo.example.com
				{get("http://x.example.com/a/b/c"), "short"},
			},
		},
		{
			name: "a wildcard beats no hostname",
			routes: []route{
				one("a", "any", 0, nil, gatewayv1.HTTPRouteMatch{Path: exact("/x")}, "any"),
				one("a", "wild", 0, []string{"*.example.com"}, gatewayv1.HTTPRouteMatch{}, "wild"),
			},
			cases: []expect{
				{get("http://a.example.com/x"), "wild"},
				{get("http://other.org/x"), "any"},
				{get("http://other.org/y"), notFound},
			},
		},
		{
			name: "each hostname of a route ranks its own requests",
			// mixed wins foo.example.com by its exact hostname, but on
			// y.bar.com its wildcard loses to precise's exact one.
			routes: []route{
				one("a", "mixed", 0, []string{"foo.example.com", "*.bar.com"}, gatewayv1.HTTPRouteMatch{}, "mixed"),
				one("a", "wild", 0, []string{"*.example.com"}, gatewayv1.HTTPRouteMatch{Path: prefix("/long")}, "wild"),
				one("a", "precise", 1, []string{"y.bar.com"}, gatewayv1.HTTPRouteMatch{}, "precise"),
			},
			cases: []expect{
				{get("http://foo.example.com/long"), "mixed"},
				{get("http://x.example.com/long"), "wild"},
				{get("http://x.bar.com/long"), "mixed"},
				{get("http://y.bar.com/long"), "precise"},
			},
		},
		{
			name: "the older route wins a tie, whatever its name",
			routes: []route{
				one("a", "young", 10, nil, gatewayv1.HTTPRouteMatch{Path: prefix("/p")}, "young"),
				one("z", "old", 5, nil, gatewayv1.HTTPRouteMatch{Path: prefix("/p/")}, "old"),
			},
			cases: []expect{{get("http://h/p/x"), "old"}, {get("http://h/p"), "old"}},
		},
		{
			name: "then namespace/name as one string: a-b/x before a/x",
			routes: []route{
				one("a", "x", 0, nil, gatewayv1.HTTPRouteMatch{Path: prefix("/p")}, "a/x"),
				one("a-b", "x", 0, nil, gatewayv1.HTTPRouteMatch{Path: prefix("/p")}, "a-b/x"),
			},
			cases: []expect{{get("http://h/p"), "a-b/x"}},
		},
		{
			name: "then the first rule of the route",
			routes: []route{{namespace: "a", name: "r", rules: []routeRule{
				{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("a", "1")}}, backend: "first"},
				{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("b", "1")}}, backend: "second"},
			}}},
			cases: []expect{{get("http://h/", "a", "1", "b", "1"), "first"}, {get("http://h/", "b", "1"), "second"}},
		},
		{
			name: "a regular expression beats a prefix and loses to an exact path",
			routes: []route{
				one("a", "prefix", 0, nil, gatewayv1.HTTPRouteMatch{Path: prefix("/v1/users")}, "prefix"),
				one("a", "regexp", 1, nil, gatewayv1.HTTPRouteMatch{Path: regex("/v[0-9]+/.*")}, "regexp"),
				one("a", "exact", 2, nil, gatewayv1.HTTPRouteMatch{Path: exact("/v1/users/me")}, "exact"),
			},
			cases: []expect{
				{get("http://h/v1/users/1"), "regexp"},
				{get("http://h/v1/users/me"), "exact"},
				{get("http://h/v1/users"), "regexp"},
				{get("http://h/v1"), notFound},           // the expression must match the whole path
				{get("http://h/api/v1/users"), notFound}, // from its start
			},
		},
		{
			name: "a header match beats query parameter matches",
			routes: []route{
				one("a", "queries", 0, nil, gatewayv1.HTTPRouteMatch{QueryParams: query("a", "1", "b", "2")}, "queries"),
				one("a", "header", 1, nil, gatewayv1.HTTPRouteMatch{Headers: headers("x", "1")}, "header"),
			},
			cases: []expect{{get("http://h/?a=1&b=2", "x", "1"), "header"}, {get("http://h/?a=1&b=2"), "queries"}},
		},
		{
			name: "gRPC: a longer service, then a longer method, then more headers",
			routes: []route{
				{namespace: "a", name: "any", rules: []routeRule{{grpcAll: true, backend: "any"}}},
				{namespace: "a", name: "service", created: 1, rules: []routeRule{{grpc: []gatewayv1.GRPCRouteMatch{{Method: grpcExact("pkg.Svc", "")}}, backend: "service"}}},
				{namespace: "a", name: "method", created: 2, rules: []routeRule{{grpc: []gatewayv1.GRPCRouteMatch{{Method: grpcExact("", "Get")}}, backend: "method"}}},
				{namespace: "a", name: "both", created: 3, rules: []routeRule{{grpc: []gatewayv1.GRPCRouteMatch{{Method: grpcExact("pkg.Svc", "Get")}}, backend: "both"}}},
				{namespace: "a", name: "headers", created: 4, rules: []routeRule{{grpc: []gatewayv1.GRPCRouteMatch{{Method: grpcExact("", "Get"), Headers: grpcHeaders("x", "1")}}, backend: "headers"}}},
			},
			cases: []expect{
				{grpcCall("h", "pkg.Svc", "Get"), "both"},
				{grpcCall("h", "pkg.Svc", "List"), "service"},
				{grpcCall("h", "pkg.Svc", "Get", "x", "1"), "both"}, // the service counts first
				{grpcCall("h", "other.Svc", "Get"), "method"},
				{grpcCall("h", "other.Svc", "Get", "x", "1"), "headers"},
				{grpcCall("h", "other.Svc", "List"), "any"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check(t, routers(t, tc.routes...), tc.cases)
		})
	}
}

func TestCompare(t *testing.T) {
	// Listed from the first to be tried: each ranks before the next.
	ordered := []match.Precedence{
		{Host: match.HostRank{Exact: true}},
		{Host: match.HostRank{Wildcard: 20}, Path: match.PathExact, PathLength: 2},
		{Host: match.HostRank{Wildcard: 20}, Path: match.PathExact, PathLength: 1},
		{Host: match.HostRank{Wildcard: 20}, Path: match.PathRegularExpression, PathLength: 30},
		{Host: match.HostRank{Wildcard: 20}, Path: match.PathPrefix, PathLength: 40},
		{Host: match.HostRank{Wildcard: 20}, Path: match.PathPrefix, PathLength: 3, Method: true},
		{Host: match.HostRank{Wildcard: 20}, Path: match.PathPrefix, PathLength: 3, Headers: 16, QueryParams: 16},
		{Host: match.HostRank{Wildcard: 20}, Path: match.PathPrefix, PathLength: 3, Headers: 2},
		{Host: match.HostRank{Wildcard: 20}, Path: match.PathPrefix, PathLength: 3, Headers: 1, QueryParams: 3},
		{Host: match.HostRank{Wildcard: 20}, Path: match.PathPrefix, PathLength: 3, Headers: 1},
		{Host: match.HostRank{Wildcard: 14}, Path: match.PathExact, PathLength: 100},
		{GRPCService: 5},
		{GRPCService: 4, GRPCMethod: 9},
		{GRPCService: 4, GRPCMethod: 8, Headers: 3},
		{GRPCService: 4, GRPCMethod: 8, Headers: 2},
		{},
	}
	for i := range ordered {
		assert.Zero(t, match.Compare(ordered[i], ordered[i]), "%+v", ordered[i])
		for j := i + 1; j < len(ordered); j++ {
			assert.Negative(t, match.Compare(ordered[i], ordered[j]), "%d before %d", i, j)
			assert.Positive(t, match.Compare(ordered[j], ordered[i]), "%d after %d", j, i)
		}
	}
	shuffled := slices.Clone(ordered)
	slices.Reverse(shuffled)
	slices.SortFunc(shuffled, match.Compare)
	assert.Equal(t, ordered, shuffled)
}

func TestRankHostname(t *testing.T) {
	assert.Equal(t, match.HostRank{Exact: true}, match.RankHostname("a.example.com"))
	assert.Equal(t, match.HostRank{Wildcard: 13}, match.RankHostname("*.example.com"))
	assert.Equal(t, match.HostRank{}, match.RankHostname(""))
}

func TestCompareOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := match.Order{Created: t0, Namespace: "a", Name: "r", Precedence: match.Precedence{Path: match.PathPrefix, PathLength: 1}}
	with := func(change func(*match.Order)) match.Order {
		o := base
		change(&o)
		return o
	}
	// Each is tried before base.
	for name, first := range map[string]match.Order{
		"a more specific listener": with(func(o *match.Order) { o.Listener = match.HostRank{Exact: true}; o.Precedence = match.Precedence{} }),
		"a higher precedence":      with(func(o *match.Order) { o.Precedence.PathLength = 2; o.Created = t0.Add(time.Hour) }),
		"an older route":           with(func(o *match.Order) { o.Created = t0.Add(-time.Second); o.Namespace = "z" }),
		"a namespace/name first":   with(func(o *match.Order) { o.Namespace = "a-b"; o.RuleIndex = 9 }),
		"a name first":             with(func(o *match.Order) { o.Name = "q"; o.RuleIndex = 9 }),
		"an earlier rule":          with(func(o *match.Order) { o.RuleIndex = -1; o.MatchIndex = 9 }),
		"an earlier match":         with(func(o *match.Order) { o.MatchIndex = -1 }),
	} {
		assert.Negative(t, match.CompareOrder(first, base), name)
		assert.Positive(t, match.CompareOrder(base, first), name)
	}
	assert.Zero(t, match.CompareOrder(base, with(func(*match.Order) {})))
	// Time zones do not matter, only the instant.
	assert.Zero(t, match.CompareOrder(base, with(func(o *match.Order) { o.Created = t0.In(time.FixedZone("x", 3600)) })))
}

func TestPriorities(t *testing.T) {
	o := func(pathLength, rule int) match.Order {
		return match.Order{Precedence: match.Precedence{Path: match.PathPrefix, PathLength: pathLength}, RuleIndex: rule}
	}
	orders := []match.Order{o(1, 0), o(5, 0), o(5, 1), o(5, 0), o(3, 0)}
	got, err := match.Priorities(orders, 1)
	require.NoError(t, err)
	// o(5,0) twice shares the top; then o(5,1), o(3,0), o(1,0).
	assert.Equal(t, []int{1, 4, 3, 4, 2}, got)

	got, err = match.Priorities(orders, 1000)
	require.NoError(t, err)
	assert.Equal(t, []int{1000, 1003, 1002, 1003, 1001}, got, "lowest moves them all")

	got, err = match.Priorities(nil, 1)
	require.NoError(t, err)
	assert.Empty(t, got)

	got, err = match.Priorities(orders[:2], match.MaxPriority-1)
	require.NoError(t, err)
	assert.Equal(t, []int{match.MaxPriority - 1, match.MaxPriority}, got)
	_, err = match.Priorities(orders[:3], match.MaxPriority-1)
	require.ErrorContains(t, err, "would pass the highest priority Traefik accepts")
	_, err = match.Priorities(orders, 0)
	require.ErrorContains(t, err, "is not between 1 and")
	_, err = match.Priorities(orders, math.MaxInt)
	require.ErrorContains(t, err, "is not between 1 and")

	// Traefik refuses priorities above math.MaxInt-1000, and int may be
	// 32 bits wide.
	assert.LessOrEqual(t, int64(match.MaxPriority), int64(math.MaxInt32)-1000)
}

func TestPrioritiesOfTheRoutersOfOneMatch(t *testing.T) {
	// The rules of one match on hostnames of three ranks: three routers,
	// three priorities, the exact hostnames' first.
	rules, err := match.HTTP([]string{"*.example.com", "a.example.com", "*.b.example.com", "c.example.com"}, gatewayv1.HTTPRouteMatch{})
	require.NoError(t, err)
	require.Len(t, rules, 3)
	orders := make([]match.Order, len(rules))
	for i, r := range rules {
		orders[i] = match.Order{Precedence: r.Precedence}
	}
	got, err := match.Priorities(orders, 1)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 2, 1}, got)
	assert.Equal(t, []string{"a.example.com", "c.example.com"}, rules[0].Hostnames)
	assert.Equal(t, []string{"*.b.example.com"}, rules[1].Hostnames)
	assert.Equal(t, []string{"*.example.com"}, rules[2].Hostnames)
}
