package match_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/match"
	"github.com/sliceway/sliceway/rule"
)

// What the tests route with: routes as a user writes them, turned into
// routers as the caller does (one per Rule, priorities from Priorities),
// and requests routed as Traefik routes them (by decreasing priority,
// the first router whose rule matches), the rules read by package rule.

// route is an HTTPRoute or a GRPCRoute (grpc set) attached to a listener
// without a hostname, so that its hostnames are its effective ones.
type route struct {
	namespace, name string
	created         int // seconds after an arbitrary epoch
	hostnames       []string
	rules           []routeRule
}

// routeRule is one rule of a route: its matches (of the route's kind)
// and the backend its requests go to.
type routeRule struct {
	http    []gatewayv1.HTTPRouteMatch
	grpc    []gatewayv1.GRPCRouteMatch
	grpcAll bool // a GRPCRoute rule without matches
	backend string
}

// router is one Traefik router.
type router struct {
	name     string // namespace/name rule match, for messages
	backend  string
	rule     string
	expr     rule.Expr
	priority int
}

// routers builds the routers of routes that share one listener, as the
// caller does.
func routers(t *testing.T, routes ...route) []router {
	t.Helper()
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []router
	var orders []match.Order
	for _, rt := range routes {
		for ri, r := range rt.rules {
			var all [][]match.Rule
			for _, m := range r.http {
				rules, err := match.HTTP(rt.hostnames, m)
				require.NoError(t, err)
				all = append(all, rules)
			}
			grpc := r.grpc
			if r.grpcAll {
				grpc = []gatewayv1.GRPCRouteMatch{{}}
			}
			for _, m := range grpc {
				rules, err := match.GRPC(rt.hostnames, m)
				require.NoError(t, err)
				all = append(all, rules)
			}
			for mi, rules := range all {
				require.NotEmpty(t, rules)
				for _, mr := range rules {
					out = append(out, router{
						name:    fmt.Sprintf("%s/%s rule %d match %d", rt.namespace, rt.name, ri, mi),
						backend: r.backend,
						rule:    mr.Rule,
						expr:    parse(t, mr.Rule),
					})
					orders = append(orders, match.Order{
						Precedence: mr.Precedence,
						Created:    epoch.Add(time.Duration(rt.created) * time.Second),
						Namespace:  rt.namespace,
						Name:       rt.name,
						RuleIndex:  ri,
						MatchIndex: mi,
					})
				}
			}
		}
	}
	priorities, err := match.Priorities(orders, 1)
	require.NoError(t, err)
	for i := range out {
		out[i].priority = priorities[i]
	}
	return out
}

// parse reads a rule as Traefik would, and checks that it is spelt as
// package rule prints it (the quoting and parentheses sliceway emits).
func parse(t *testing.T, text string) rule.Expr {
	t.Helper()
	e, err := rule.Parse(text)
	require.NoError(t, err, text)
	require.Equal(t, text, e.String(), "the rule is not in canonical form")
	return e
}

// notFound is what serve returns when no router matches.
const notFound = "404"

// serve is the backend Traefik sends req to, or notFound. Two matching
// routers of the top priority that go to different backends fail the
// test: Traefik would pick either.
func serve(t *testing.T, routers []router, req *http.Request) string {
	t.Helper()
	r := rule.NewRequest(req)
	var best *router
	for i := range routers {
		rt := &routers[i]
		if !rt.expr.MatchRequest(r) {
			continue
		}
		switch {
		case best == nil || rt.priority > best.priority:
			best = rt
		case rt.priority == best.priority && rt.backend != best.backend:
			require.Failf(t, "ambiguous", "%s and %s both match with priority %d", best.name, rt.name, rt.priority)
		}
	}
	if best == nil {
		return notFound
	}
	return best.backend
}

// request is a request to url with headers given as name, value pairs.
func request(method, url string, headers ...string) *http.Request {
	req := httptest.NewRequest(method, url, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	return req
}

// get is a GET of url with headers.
func get(url string, headers ...string) *http.Request {
	return request(http.MethodGet, url, headers...)
}

// grpcCall is a gRPC call of service/method on host with metadata.
func grpcCall(host, service, method string, metadata ...string) *http.Request {
	req := request(http.MethodPost, "http://"+host+"/"+service+"/"+method, metadata...)
	req.Header.Set("Content-Type", "application/grpc")
	return req
}

// Building matches as a manifest writes them.

func exact(v string) *gatewayv1.HTTPPathMatch {
	return &gatewayv1.HTTPPathMatch{Type: new(gatewayv1.PathMatchExact), Value: &v}
}

func prefix(v string) *gatewayv1.HTTPPathMatch {
	return &gatewayv1.HTTPPathMatch{Type: new(gatewayv1.PathMatchPathPrefix), Value: &v}
}

func regex(v string) *gatewayv1.HTTPPathMatch {
	return &gatewayv1.HTTPPathMatch{Type: new(gatewayv1.PathMatchRegularExpression), Value: &v}
}

func headers(pairs ...string) []gatewayv1.HTTPHeaderMatch {
	var out []gatewayv1.HTTPHeaderMatch
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, gatewayv1.HTTPHeaderMatch{Name: gatewayv1.HTTPHeaderName(pairs[i]), Value: pairs[i+1]})
	}
	return out
}

func headerRegexp(name, value string) gatewayv1.HTTPHeaderMatch {
	return gatewayv1.HTTPHeaderMatch{Type: new(gatewayv1.HeaderMatchRegularExpression), Name: gatewayv1.HTTPHeaderName(name), Value: value}
}

func query(pairs ...string) []gatewayv1.HTTPQueryParamMatch {
	var out []gatewayv1.HTTPQueryParamMatch
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, gatewayv1.HTTPQueryParamMatch{Name: gatewayv1.HTTPHeaderName(pairs[i]), Value: pairs[i+1]})
	}
	return out
}

func queryRegexp(name, value string) gatewayv1.HTTPQueryParamMatch {
	return gatewayv1.HTTPQueryParamMatch{Type: new(gatewayv1.QueryParamMatchRegularExpression), Name: gatewayv1.HTTPHeaderName(name), Value: value}
}

func method(m gatewayv1.HTTPMethod) *gatewayv1.HTTPMethod { return &m }

func grpcExact(service, method string) *gatewayv1.GRPCMethodMatch {
	return grpcMethod(gatewayv1.GRPCMethodMatchExact, service, method)
}

func grpcRegexp(service, method string) *gatewayv1.GRPCMethodMatch {
	return grpcMethod(gatewayv1.GRPCMethodMatchRegularExpression, service, method)
}

// grpcMethod is a method match; an empty service or method is left out.
func grpcMethod(typ gatewayv1.GRPCMethodMatchType, service, method string) *gatewayv1.GRPCMethodMatch {
	m := &gatewayv1.GRPCMethodMatch{Type: &typ}
	if service != "" {
		m.Service = &service
	}
	if method != "" {
		m.Method = &method
	}
	return m
}

func grpcHeaders(pairs ...string) []gatewayv1.GRPCHeaderMatch {
	var out []gatewayv1.GRPCHeaderMatch
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, gatewayv1.GRPCHeaderMatch{Name: gatewayv1.GRPCHeaderName(pairs[i]), Value: pairs[i+1]})
	}
	return out
}

// describe names a request in a subtest's name.
func describe(req *http.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s%s", req.Method, req.Host, req.URL.RequestURI())
	for _, name := range slices.Sorted(maps.Keys(req.Header)) {
		fmt.Fprintf(&b, " %s=%s", name, strings.Join(req.Header[name], ","))
	}
	return b.String()
}
