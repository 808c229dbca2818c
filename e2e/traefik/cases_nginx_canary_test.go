package traefike2e

import "slices"

// Cases of the ingress-nginx provider's canary annotations (docs:
// "Canary"; test/e2e/annotations/canary.go). A canary Ingress names the
// host and path of a main Ingress and takes a share of its requests: by
// header, then by cookie, then by weight. Each host below is a main
// Ingress and its canary, to the Services main and canary of the case.
func init() {
	register(nginxCanaryHeader, nginxCanaryCookie, nginxCanaryWeight)
}

// canaryPair is a main Ingress and a canary Ingress of it on host, path
// /info, with the canary's annotations (canary: "true" is added).
func canaryPair(name, host, tlsSecret string, annotations ...string) string {
	return nginxIngress(name, host, "/info", "main", tlsSecret) +
		nginxIngress(name+"-canary", host, "/info", "canary", "", append([]string{"canary", "true"}, annotations...)...)
}

// canary-by-header, -value and -pattern (canary.go: "when canary is
// created" "should response with a 200 status from the mainline upstream
// when requests are made to the mainline ingress" and "should return 404
// status for requests to the canary if no matching ingress is found";
// "when canaried by header with no value", "... with value", "... with
// value and pattern", including "should routes to mainline upstream when
// the given Regex causes error"). "always" and "never" decide without a
// value; a value or a pattern sends what matches to the canary and the
// rest on, to the cookie and the weight. A pattern Go's RE2 cannot
// compile sends every request with the header to the main backend, as
// ingress-nginx's failed match does; sliceway warns of it. The TLS router
// splits as the plain one does.
var nginxCanaryHeader = Case{
	Name: "nginx-canary-header",
	Manifests: `
{{ service "main" "nginx-canary-header-main" }}
{{ service "canary" "nginx-canary-header-canary" }}
{{ tlsSecret "cert" "tls.nginx-canary-header.e2e.test" }}
` + canaryPair("always", "{{ .Host }}", "", "canary-by-header", "CanaryByHeader") +
		canaryPair("tls", "tls.{{ .Host }}", "cert", "canary-by-header", "CanaryByHeader") +
		canaryPair("value", "value.{{ .Host }}", "", "canary-by-header", "CanaryByHeader", "canary-by-header-value", "DoCanary") +
		canaryPair("pattern", "pattern.{{ .Host }}", "", "canary-by-header", "CanaryByHeader", "canary-by-header-pattern", "^Do[A-Z][a-z]+y$") +
		canaryPair("value-pattern", "value-pattern.{{ .Host }}", "",
			"canary-by-header", "CanaryByHeader", "canary-by-header-value", "DoCanary", "canary-by-header-pattern", "^Do[A-Z][a-z]+y$") +
		canaryPair("bad-pattern", "bad-pattern.{{ .Host }}", "",
			"canary-by-header", "CanaryByHeader", "canary-by-header-pattern", "[][**da?$&*", "canary-by-cookie", "CanaryByCookie") +
		// A canary without a main Ingress routes nothing.
		nginxIngress("alone-canary", "alone.{{ .Host }}", "/info", "canary", "",
			"canary", "true", "canary-by-header", "CanaryByHeader"),
	Requests: []Request{
		{URL: "/info", Backend: "nginx-canary-header-main"},
		{URL: "/info", Header: map[string]string{"CanaryByHeader": "always"}, Backend: "nginx-canary-header-canary", Path: "/info"},
		{URL: "/info/x", Header: map[string]string{"CanaryByHeader": "always"}, Backend: "nginx-canary-header-canary", Path: "/info/x"},
		{URL: "/info", Header: map[string]string{"CanaryByHeader": "never"}, Backend: "nginx-canary-header-main"},
		{URL: "/info", Header: map[string]string{"CanaryByHeader": "badheadervalue"}, Backend: "nginx-canary-header-main"},
		// The canary has no path of its own.
		{URL: "/elsewhere", Header: map[string]string{"CanaryByHeader": "always"}, Status: 404},

		{URL: "https://tls.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "always"},
			Backend: "nginx-canary-header-canary", CertSecret: "cert"},
		{URL: "https://tls.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "never"},
			Backend: "nginx-canary-header-main"},
		{URL: "https://tls.nginx-canary-header.e2e.test/info", Backend: "nginx-canary-header-main"},
		{URL: "http://tls.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "always"},
			Status: 301, Location: "https://tls.nginx-canary-header.e2e.test/info"},

		{URL: "http://value.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "DoCanary"}, Backend: "nginx-canary-header-canary"},
		{URL: "http://value.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "always"}, Backend: "nginx-canary-header-main"},
		{URL: "http://value.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "never"}, Backend: "nginx-canary-header-main"},
		{URL: "http://value.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "otherheadervalue"}, Backend: "nginx-canary-header-main"},

		{URL: "http://pattern.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "DoCanary"}, Backend: "nginx-canary-header-canary"},
		{URL: "http://pattern.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "Docanary"}, Backend: "nginx-canary-header-main"},
		// The value wins over the pattern.
		{URL: "http://value-pattern.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "DoCananry"}, Backend: "nginx-canary-header-main"},
		{URL: "http://value-pattern.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "DoCanary"}, Backend: "nginx-canary-header-canary"},

		{URL: "http://bad-pattern.nginx-canary-header.e2e.test/info", Backend: "nginx-canary-header-main",
			Header: map[string]string{"CanaryByHeader": "DoCanary", "Cookie": "CanaryByCookie=always"}},
		// Without the header, the cookie decides.
		{URL: "http://bad-pattern.nginx-canary-header.e2e.test/info", Backend: "nginx-canary-header-canary",
			Header: map[string]string{"Cookie": "CanaryByCookie=always"}},

		{URL: "http://alone.nginx-canary-header.e2e.test/info", Header: map[string]string{"CanaryByHeader": "always"}, Status: 404},
	},
	Errors: []string{"canary-by-header-pattern]: \"[][**da?$&*\": is not a regular expression Go's RE2 can compile"},
}

// canary-by-cookie and the precedence of header, cookie and weight
// (canary.go "when canaried by cookie" "respects always and never
// values"; "when canaried by header with value and cookie" "should route
// requests to the correct upstream"; docs: "Canary rules are evaluated
// in order of precedence: canary-by-header -> canary-by-cookie ->
// canary-weight"). The cookie's "always" and "never" decide what the
// header did not; the weight what neither did.
var nginxCanaryCookie = Case{
	Name: "nginx-canary-cookie",
	Manifests: `
{{ service "main" "nginx-canary-cookie-main" }}
{{ service "canary" "nginx-canary-cookie-canary" }}
` + canaryPair("cookie", "{{ .Host }}", "", "canary-by-cookie", "Canary-By-Cookie") +
		canaryPair("value", "value.{{ .Host }}", "",
			"canary-by-header", "CanaryByHeader", "canary-by-header-value", "DoCanary", "canary-by-cookie", "CanaryByCookie", "canary-weight", "100") +
		canaryPair("always", "always.{{ .Host }}", "",
			"canary-by-header", "CanaryByHeader", "canary-by-cookie", "CanaryByCookie", "canary-weight", "0"),
	Requests: slices.Concat(
		repeat(3, Request{URL: "/info", Header: map[string]string{"Cookie": "Canary-By-Cookie=always"}, Backend: "nginx-canary-cookie-canary"}),
		repeat(3, Request{URL: "/info", Header: map[string]string{"Cookie": "Canary-By-Cookie=never"}, Backend: "nginx-canary-cookie-main"}),
		[]Request{
			{URL: "/info", Header: map[string]string{"Cookie": "other=1; Canary-By-Cookie=always; more=2"}, Backend: "nginx-canary-cookie-canary"},
			{URL: "/info", Header: map[string]string{"Cookie": "Canary-By-Cookie=badcookievalue"}, Backend: "nginx-canary-cookie-main"},
			{URL: "/info", Header: map[string]string{"Cookie": "Canary-By-Cookie=alwaysnot"}, Backend: "nginx-canary-cookie-main"},
			{URL: "/info", Backend: "nginx-canary-cookie-main"},

			// Header with a value, cookie, weight 100.
			{URL: "http://value.nginx-canary-cookie.e2e.test/info", Backend: "nginx-canary-cookie-canary"},
			{URL: "http://value.nginx-canary-cookie.e2e.test/info", Header: map[string]string{"Cookie": "CanaryByCookie=never"},
				Backend: "nginx-canary-cookie-main"},
			{URL: "http://value.nginx-canary-cookie.e2e.test/info", Backend: "nginx-canary-cookie-canary",
				Header: map[string]string{"CanaryByHeader": "DoCanary", "Cookie": "CanaryByCookie=never"}},
			{URL: "http://value.nginx-canary-cookie.e2e.test/info", Backend: "nginx-canary-cookie-main",
				Header: map[string]string{"CanaryByHeader": "otherheadervalue", "Cookie": "CanaryByCookie=never"}},
			{URL: "http://value.nginx-canary-cookie.e2e.test/info", Backend: "nginx-canary-cookie-canary",
				Header: map[string]string{"CanaryByHeader": "otherheadervalue", "Cookie": "CanaryByCookie=always"}},

			// Header always/never, cookie, weight 0.
			{URL: "http://always.nginx-canary-cookie.e2e.test/info", Backend: "nginx-canary-cookie-main",
				Header: map[string]string{"CanaryByHeader": "never", "Cookie": "CanaryByCookie=always"}},
			{URL: "http://always.nginx-canary-cookie.e2e.test/info", Backend: "nginx-canary-cookie-canary",
				Header: map[string]string{"CanaryByHeader": "always", "Cookie": "CanaryByCookie=never"}},
			{URL: "http://always.nginx-canary-cookie.e2e.test/info", Backend: "nginx-canary-cookie-canary",
				Header: map[string]string{"CanaryByHeader": "maybe", "Cookie": "CanaryByCookie=always"}},
			{URL: "http://always.nginx-canary-cookie.e2e.test/info", Backend: "nginx-canary-cookie-main",
				Header: map[string]string{"CanaryByHeader": "maybe"}},
		},
	),
}

// canary-weight and canary-weight-total (canary.go "when canaried by
// weight": "should route requests only to mainline if canary weight is
// 0", "... only to canary if canary weight is 100", "... only to canary if
// canary weight is equal to canary weight total", "should route requests
// split between mainline and canary if canary weight is 50", "... if
// canary weight is 100 and weight total is 200"). Those tests count the
// answers of many requests; here a split is both backends answering
// within balanceTries requests (Traefik's weighted round robin is
// deterministic, so the first two already do), and a whole share is the
// same backend answering every one of several requests. The TLS router
// splits the same way.
var nginxCanaryWeight = Case{
	Name: "nginx-canary-weight",
	Manifests: `
{{ service "main" "nginx-canary-weight-main" }}
{{ service "canary" "nginx-canary-weight-canary" }}
{{ tlsSecret "cert" "tls.nginx-canary-weight.e2e.test" }}
` + canaryPair("zero", "zero.{{ .Host }}", "", "canary-weight", "0") +
		canaryPair("all", "all.{{ .Host }}", "", "canary-weight", "100") +
		canaryPair("total", "total.{{ .Host }}", "", "canary-weight", "200", "canary-weight-total", "200") +
		canaryPair("half", "{{ .Host }}", "", "canary-weight", "50") +
		canaryPair("half-of-200", "half-of-200.{{ .Host }}", "", "canary-weight", "100", "canary-weight-total", "200") +
		canaryPair("tls", "tls.{{ .Host }}", "cert", "canary-weight", "50"),
	Requests: slices.Concat(
		repeat(6, Request{URL: "http://zero.nginx-canary-weight.e2e.test/info", Backend: "nginx-canary-weight-main"}),
		repeat(6, Request{URL: "http://all.nginx-canary-weight.e2e.test/info", Backend: "nginx-canary-weight-canary"}),
		repeat(6, Request{URL: "http://total.nginx-canary-weight.e2e.test/info", Backend: "nginx-canary-weight-canary"}),
		[]Request{
			{URL: "/info", Backends: []string{"nginx-canary-weight-main", "nginx-canary-weight-canary"}, Path: "/info"},
			{URL: "http://half-of-200.nginx-canary-weight.e2e.test/info", Backends: []string{"nginx-canary-weight-main", "nginx-canary-weight-canary"}},
			{URL: "https://tls.nginx-canary-weight.e2e.test/info", Backends: []string{"nginx-canary-weight-main", "nginx-canary-weight-canary"},
				CertSecret: "cert"},
			{URL: "http://tls.nginx-canary-weight.e2e.test/info", Status: 301, Location: "https://tls.nginx-canary-weight.e2e.test/info"},
		},
	),
}
