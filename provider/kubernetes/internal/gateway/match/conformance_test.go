package match_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The expectations of the Gateway API conformance suite's matching tests
// (conformance/tests/httproute-*.go and grpcroute-*.go, with their
// manifests), restated: the same routes, the same requests, the backend
// each must reach, through the rules and priorities of this package.

// expect is a request and the backend it must reach (notFound: none).
type expect struct {
	req     *http.Request
	backend string
}

func check(t *testing.T, routers []router, cases []expect) {
	t.Helper()
	for _, tc := range cases {
		t.Run(describe(tc.req), func(t *testing.T) {
			assert.Equal(t, tc.backend, serve(t, routers, tc.req))
		})
	}
}

const ns = "gateway-conformance-infra"

func TestConformanceMatching(t *testing.T) {
	// One route: "/" or version: one goes to v1, "/v2" or version: two
	// to v2. A longer prefix and a header match each beat the bare "/".
	rs := routers(t, route{namespace: ns, name: "matching", rules: []routeRule{
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/")}, {Headers: headers("version", "one")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/v2")}, {Headers: headers("version", "two")}}, backend: "v2"},
	}})
	check(t, rs, []expect{
		{get("http://gw/"), "v1"},
		{get("http://gw/example"), "v1"},
		{get("http://gw/", "Version", "one"), "v1"},
		{get("http://gw/v2"), "v2"},
		{get("http://gw/v2/example"), "v2"},
		{get("http://gw/", "Version", "two"), "v2"},
		{get("http://gw/v2/"), "v2"},
		{get("http://gw/v2example"), "v1"}, // not a path element of /v2
		{get("http://gw/foo/v2/example"), "v1"},
	})
}

func TestConformanceMatchingAcrossRoutes(t *testing.T) {
	// The same rules split over two routes of different hostnames: the
	// v2 rules only hold for example.com.
	rs := routers(t,
		route{namespace: ns, name: "matching-part1", hostnames: []string{"example.com", "example.net"}, rules: []routeRule{
			{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/")}, {Headers: headers("version", "one")}}, backend: "v1"},
		}},
		route{namespace: ns, name: "matching-part2", hostnames: []string{"example.com"}, rules: []routeRule{
			{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/v2")}, {Headers: headers("version", "two")}}, backend: "v2"},
		}},
	)
	check(t, rs, []expect{
		{get("http://example.com/"), "v1"},
		{get("http://example.com/example"), "v1"},
		{get("http://example.net/example"), "v1"},
		{get("http://example.com/example", "Version", "one"), "v1"},
		{get("http://example.com/v2"), "v2"},
		{get("http://example.net/v2"), "v1"},
		{get("http://example.com/v2/example"), "v2"},
		{get("http://example.com/", "Version", "two"), "v2"},
		{get("http://example.org/"), notFound},
	})
}

func TestConformanceHeaderMatching(t *testing.T) {
	// Two header matches beat one; between single matches of one
	// precedence, the first rule wins.
	rs := routers(t, route{namespace: ns, name: "header-matching", rules: []routeRule{
		{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("version", "one")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("version", "two")}}, backend: "v2"},
		{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("version", "two", "color", "orange")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("color", "blue")}, {Headers: headers("color", "green")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("color", "red")}, {Headers: headers("color", "yellow")}}, backend: "v2"},
	}})
	check(t, rs, []expect{
		{get("http://gw/", "Version", "one"), "v1"},
		{get("http://gw/", "Version", "two"), "v2"},
		{get("http://gw/", "Version", "two", "Color", "orange"), "v1"},
		{get("http://gw/", "Version", "two", "Color", "blue"), "v2"},
		{get("http://gw/", "Color", "orange"), notFound},
		{get("http://gw/", "Some-Other-Header", "one"), notFound},
		{get("http://gw/", "Color", "blue"), "v1"},
		{get("http://gw/", "Color", "green"), "v1"},
		{get("http://gw/", "Color", "red"), "v2"},
		{get("http://gw/", "Color", "yellow"), "v2"},
		{get("http://gw/", "Color", "purple"), notFound},
		{get("http://gw/", "version", "one"), "v1"}, // names in any case
	})
}

func TestConformanceQueryParamMatching(t *testing.T) {
	rs := routers(t, route{namespace: ns, name: "query-param-matching", rules: []routeRule{
		{http: []gatewayv1.HTTPRouteMatch{{QueryParams: query("animal", "whale")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{QueryParams: query("animal", "dolphin")}}, backend: "v2"},
		{http: []gatewayv1.HTTPRouteMatch{
			{QueryParams: query("animal", "dolphin", "color", "blue")},
			{QueryParams: query("ANIMAL", "Whale")},
		}, backend: "v3"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/path1"), QueryParams: query("animal", "whale")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("version", "one"), QueryParams: query("animal", "whale")}}, backend: "v2"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/path2"), Headers: headers("version", "two"), QueryParams: query("animal", "whale")}}, backend: "v3"},
		{http: []gatewayv1.HTTPRouteMatch{
			{Path: prefix("/path3"), QueryParams: query("animal", "shark")},
			{Path: prefix("/path4"), Headers: headers("version", "three"), QueryParams: query("animal", "kraken")},
		}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/path5")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{QueryParams: query("animal", "hydra")}}, backend: "v2"},
		{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("version", "four")}}, backend: "v3"},
	}})
	check(t, rs, []expect{
		{get("http://gw/?animal=whale"), "v1"},
		{get("http://gw/?animal=dolphin"), "v2"},
		{get("http://gw/?animal=dolphin&color=blue"), "v3"}, // two parameters beat one
		{get("http://gw/?ANIMAL=Whale"), "v3"},              // names and values are exact
		{get("http://gw/?animal=whale&otherparam=irrelevant"), "v1"},
		{get("http://gw/?animal=dolphin&color=yellow"), "v2"},
		{get("http://gw/?color=blue"), notFound},
		{get("http://gw/?animal=dog"), notFound},
		{get("http://gw/?animal=whaledolphin"), notFound},
		{get("http://gw/"), notFound},
		{get("http://gw/path1?animal=whale"), "v1"},
		{get("http://gw/?animal=whale", "version", "one"), "v2"},
		{get("http://gw/path2?animal=whale", "version", "two"), "v3"},
		{get("http://gw/path3?animal=shark"), "v1"},
		{get("http://gw/path4?animal=kraken", "version", "three"), "v1"},
		{get("http://gw/?animal=shark"), notFound},
		{get("http://gw/path4?animal=kraken"), notFound},
		{get("http://gw/path5?animal=hydra"), "v1"},               // a longer path beats a parameter
		{get("http://gw/?animal=hydra", "version", "four"), "v3"}, // a header beats a parameter
	})
}

func TestConformanceMethodMatching(t *testing.T) {
	rs := routers(t, route{namespace: ns, name: "method-matching", rules: []routeRule{
		{http: []gatewayv1.HTTPRouteMatch{{Method: method(http.MethodPost)}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Method: method(http.MethodGet)}}, backend: "v2"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/path1"), Method: method(http.MethodGet)}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("version", "one"), Method: method(http.MethodPut)}}, backend: "v2"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/path2"), Headers: headers("version", "two"), Method: method(http.MethodPost)}}, backend: "v3"},
		{http: []gatewayv1.HTTPRouteMatch{
			{Path: prefix("/path3"), Method: method(http.MethodPatch)},
			{Path: prefix("/path4"), Headers: headers("version", "three"), Method: method(http.MethodDelete)},
		}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/path5")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Method: method(http.MethodPatch)}}, backend: "v2"},
		{http: []gatewayv1.HTTPRouteMatch{{Headers: headers("version", "four")}}, backend: "v3"},
	}})
	check(t, rs, []expect{
		{request(http.MethodPost, "http://gw/"), "v1"},
		{request(http.MethodGet, "http://gw/"), "v2"},
		{request(http.MethodHead, "http://gw/"), notFound}, // GET does not take HEAD
		{request(http.MethodGet, "http://gw/path1"), "v1"},
		{request(http.MethodPut, "http://gw/", "version", "one"), "v2"},
		{request(http.MethodPost, "http://gw/path2", "version", "two"), "v3"},
		{request(http.MethodPatch, "http://gw/path3"), "v1"},
		{request(http.MethodDelete, "http://gw/path4", "version", "three"), "v1"},
		{request(http.MethodPut, "http://gw/"), notFound},
		{request(http.MethodDelete, "http://gw/path4"), notFound},
		{request(http.MethodPatch, "http://gw/path5"), "v1"},                        // a longer path beats a method
		{request(http.MethodPatch, "http://gw/", "version", "four"), "v2"},          // a method beats a header
		{request("get", "http://gw/"), notFound},                                    // methods are case-sensitive
		{request(http.MethodPost, "http://gw/path2/x", "version", "two"), "v3"},     // by path element
		{request(http.MethodPost, "http://gw/path2x", "version", "two"), "v1"},      // not under /path2: POST alone
		{request(http.MethodGet, "http://gw/path1/deeper?x=1"), "v1"},               // under /path1
		{request(http.MethodGet, "http://gw/path10"), "v2"},                         // not under /path1
		{request(http.MethodOptions, "http://gw/path5/x", "version", "four"), "v1"}, // longest path first
	})
}

func TestConformancePathMatchOrder(t *testing.T) {
	// Exact paths before prefixes, longer prefixes before shorter.
	rs := routers(t, route{namespace: ns, name: "path-matching-order", rules: []routeRule{
		{http: []gatewayv1.HTTPRouteMatch{{Path: exact("/match")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: exact("/match/exact")}}, backend: "v2"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: exact("/match/exact/one")}}, backend: "v3"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/match/")}}, backend: "v3"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/match/prefix/")}}, backend: "v1"},
		{http: []gatewayv1.HTTPRouteMatch{{Path: prefix("/match/prefix/one")}}, backend: "v2"},
	}})
	check(t, rs, []expect{
		{get("http://gw/match/exact/one"), "v3"},
		{get("http://gw/match/exact"), "v2"},
		{get("http://gw/match"), "v1"},
		{get("http://gw/match/prefix/one/any"), "v2"},
		{get("http://gw/match/prefix/any"), "v1"},
		{get("http://gw/match/any"), "v3"},
		{get("http://gw/match/exact/"), "v3"},      // not the exact path: the /match/ prefix
		{get("http://gw/match/prefix"), "v1"},      // the prefix's trailing slash is ignored
		{get("http://gw/match/prefix/onex"), "v1"}, // not under /match/prefix/one
		{get("http://gw/matchless"), notFound},
	})
}

const echo = "gateway_api_conformance.echo_basic.grpcecho.GrpcEcho"

func TestConformanceGRPCExactMethodMatching(t *testing.T) {
	rs := routers(t, route{namespace: ns, name: "exact-matching", rules: []routeRule{
		{grpc: []gatewayv1.GRPCRouteMatch{{Method: grpcExact(echo, "Echo")}}, backend: "grpc-v1"},
		{grpc: []gatewayv1.GRPCRouteMatch{{Method: grpcExact(echo, "EchoTwo")}}, backend: "grpc-v2"},
	}})
	check(t, rs, []expect{
		{grpcCall("gw", echo, "Echo"), "grpc-v1"},
		{grpcCall("gw", echo, "EchoTwo"), "grpc-v2"},
		// No router: the caller's fallback answers Unimplemented.
		{grpcCall("gw", echo, "EchoThree"), notFound},
		{grpcCall("gw", echo, "echo"), notFound},
		{grpcCall("gw", echo+"X", "Echo"), notFound},
	})
}

func TestConformanceGRPCHeaderMatching(t *testing.T) {
	rs := routers(t, route{namespace: ns, name: "grpc-header-matching", rules: []routeRule{
		{grpc: []gatewayv1.GRPCRouteMatch{{Headers: grpcHeaders("version", "one")}}, backend: "grpc-v1"},
		{grpc: []gatewayv1.GRPCRouteMatch{{Headers: grpcHeaders("version", "two")}}, backend: "grpc-v2"},
		{grpc: []gatewayv1.GRPCRouteMatch{{Headers: grpcHeaders("version", "two", "color", "orange")}}, backend: "grpc-v1"},
		{grpc: []gatewayv1.GRPCRouteMatch{{Headers: grpcHeaders("color", "blue")}, {Headers: grpcHeaders("color", "green")}}, backend: "grpc-v1"},
		{grpc: []gatewayv1.GRPCRouteMatch{{Headers: grpcHeaders("color", "red")}, {Headers: grpcHeaders("color", "yellow")}}, backend: "grpc-v2"},
	}})
	check(t, rs, []expect{
		{grpcCall("gw", echo, "Echo", "version", "one"), "grpc-v1"},
		{grpcCall("gw", echo, "Echo", "version", "two"), "grpc-v2"},
		{grpcCall("gw", echo, "Echo", "version", "two", "color", "orange"), "grpc-v1"},
		{grpcCall("gw", echo, "Echo", "version", "two", "color", "blue"), "grpc-v2"},
		{grpcCall("gw", echo, "Echo", "color", "orange"), notFound},
		{grpcCall("gw", echo, "Echo", "some-other-header", "one"), notFound},
		{grpcCall("gw", echo, "Echo", "color", "blue"), "grpc-v1"},
		{grpcCall("gw", echo, "Echo", "color", "green"), "grpc-v1"},
		{grpcCall("gw", echo, "Echo", "color", "red"), "grpc-v2"},
		{grpcCall("gw", echo, "Echo", "color", "yellow"), "grpc-v2"},
		{grpcCall("gw", echo, "Echo", "color", "purple"), notFound},
	})
}
