package gateway

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
	"github.com/sliceway/sliceway/rule"
)

// world is a cluster of one Gateway of ours, with an HTTP listener and
// an HTTPS one for *.example.com, and the Services web and api.
type world struct {
	gw       attach.Gateway
	look     attach.Lookups
	lbs      map[translate.PortKey]*translate.LoadBalancer
	asked    []translate.PortKey
	services map[string]attach.Service
	tls      *attach.BackendTLSPolicies // nil: none
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{lbs: map[translate.PortKey]*translate.LoadBalancer{}, services: map[string]attach.Service{
		"shop/web": {Ports: []attach.ServicePort{{Port: 8080}}},
		"shop/api": {Ports: []attach.ServicePort{{Port: 8080}}},
	}}
	w.look = attach.Lookups{
		Service:   func(ns, name string) (attach.Service, bool) { s, ok := w.services[ns+"/"+name]; return s, ok },
		TLSSecret: func(string, string) error { return nil },
		NamespaceLabels: func(ns string) (map[string]string, bool) {
			return map[string]string{"kubernetes.io/metadata.name": ns}, true
		},
	}
	all := gatewayv1.NamespacesFromAll
	allowed := &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}}
	wildcard := gatewayv1.Hostname("*.example.com")
	class := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "sliceway"}, Spec: gatewayv1.GatewayClassSpec{ControllerName: "sliceway.io/gateway"}}
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"}, Spec: gatewayv1.GatewaySpec{
		GatewayClassName: "sliceway",
		Listeners: []gatewayv1.Listener{
			{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: allowed},
			{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: &wildcard, AllowedRoutes: allowed,
				TLS: &gatewayv1.ListenerTLSConfig{CertificateRefs: []gatewayv1.SecretObjectReference{{Name: "cert"}}}},
		},
	}}
	opts := attach.Options{ControllerName: "sliceway.io/gateway",
		EntryPoints: []attach.EntryPoint{{Name: "web", Port: 80, Protocol: gatewayv1.HTTPProtocolType}, {Name: "websecure", Port: 443, Protocol: gatewayv1.HTTPSProtocolType}},
		Addresses:   []gatewayv1.GatewayStatusAddress{{Value: "10.0.0.1"}}}
	processed, ours := attach.ProcessGateway(gw, class, opts, w.look)
	require.True(t, ours)
	require.True(t, processed.Programmed, "%+v", processed.Conditions)
	w.gw = processed
	return w
}

func (w *world) env() *Env {
	return &Env{
		LoadBalancer: func(key translate.PortKey, name string) *translate.LoadBalancer {
			w.asked = append(w.asked, key)
			if lb := w.lbs[key]; lb != nil {
				return lb
			}
			svc := dynamic.NewServersService()
			svc.LoadBalancer.Servers = []dynamic.Server{{URL: "http://10.1.0.1:8080"}}
			lb := &translate.LoadBalancer{Service: svc}
			w.lbs[key] = lb
			return lb
		},
		Gateway: func(ns, name string) *attach.Gateway {
			if ns == w.gw.Namespace && name == w.gw.Name {
				return &w.gw
			}
			return nil
		},
		Target: filter.Portable,
		ClientCertificate: func(ref attach.SecretRef) (dynamic.Certificate, error) {
			return dynamic.Certificate{CertFile: "crt of " + ref.Name, KeyFile: "key of " + ref.Name}, nil
		},
		BackendTLS: func(ns, service, port string) *attach.BackendTLS {
			if w.tls == nil {
				return nil
			}
			return w.tls.For(ns, service, port)
		},
	}
}

// translate attaches route and translates it, as a render does.
func (w *world) translate(t *testing.T, route *gatewayv1.HTTPRoute) (*translate.Part, []attach.DroppedRule) {
	t.Helper()
	view := attach.RouteFromHTTP(route)
	att := attach.AttachRoute(view, w.env().Gateway, w.look)
	bc := attach.CheckBackends(view, attach.HTTPRouteBackendRefs(route), w.look)
	bc.CheckMirrors(view, attach.HTTPRouteMirrorRefs(route), w.look)
	var p translate.Part
	dropped := HTTPRoute(w.env(), &p, route, &att, &bc)
	return &p, dropped
}

func backend(name string, weight int32) gatewayv1.HTTPBackendRef {
	port := gatewayv1.PortNumber(8080)
	return gatewayv1.HTTPBackendRef{BackendRef: gatewayv1.BackendRef{Weight: &weight,
		BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(name), Port: &port}}}
}

func pathMatch(typ gatewayv1.PathMatchType, value string) []gatewayv1.HTTPRouteMatch {
	return []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: &typ, Value: &value}}}
}

func shopRoute(rules ...gatewayv1.HTTPRouteRule) *gatewayv1.HTTPRoute {
	ns := gatewayv1.Namespace("infra")
	return &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart", CreationTimestamp: metav1.NewTime(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))},
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw", Namespace: &ns}}},
			Hostnames:       []gatewayv1.Hostname{"shop.example.com"},
			Rules:           rules,
		},
	}
}

// A route attached to both listeners has, for each rule and match, a
// router on each listener's entry point (tls on the HTTPS one), sending
// to the rule's service: the load balancer of its one backend, a
// weighted service of several, a load balancer without servers behind
// an errors middleware that answers 500 when none can be used. A rule that asks for what is not served yet is
// left out whole and reported; the others are served.
func TestHTTPRouteParts(t *testing.T) {
	w := newWorld(t)
	header := gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier,
		RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "X-Shop", Value: "cart"}}}}
	route := shopRoute(
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchExact, "/api"), Filters: []gatewayv1.HTTPRouteFilter{header},
			BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 3), backend("api", 1)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/gone"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("gone", 1)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/slow"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			SessionPersistence: &gatewayv1.SessionPersistence{Type: new(gatewayv1.HeaderBasedSessionPersistence)}},
	)
	p, dropped := w.translate(t, route)
	require.Empty(t, p.Errs)
	require.Equal(t, []attach.DroppedRule{{Index: 3, Reason: gatewayv1.RouteReasonUnsupportedValue,
		Message: `spec.rules[3].sessionPersistence.type: "Header" is not served: Traefik keeps sessions by cookie only`}}, dropped)
	require.Equal(t, "HTTPRoute", p.Kind)

	type routerView struct {
		key, entryPoint, service string
		tls                      bool
		middlewares              int
	}
	var got []routerView
	for _, r := range p.Routers {
		require.NotNil(t, r.Order, r.Key)
		got = append(got, routerView{r.Key, r.Config.EntryPoints[0], r.Config.Service, r.Config.TLS != nil, len(r.Config.Middlewares)})
	}
	require.ElementsMatch(t, []routerView{
		{"httproute-shop-cart-infra-gw-http-r0-m0", "web", "shop-web-8080", false, 0},
		{"httproute-shop-cart-infra-gw-https-r0-m0", "websecure", "shop-web-8080", true, 0},
		{"httproute-shop-cart-infra-gw-http-r1-m0", "web", "httproute-shop-cart-r1", false, 1},
		{"httproute-shop-cart-infra-gw-https-r1-m0", "websecure", "httproute-shop-cart-r1", true, 1},
		{"httproute-shop-cart-infra-gw-http-r2-m0", "web", "httproute-shop-cart-r2-unavailable-500", false, 0},
		{"httproute-shop-cart-infra-gw-https-r2-m0", "websecure", "httproute-shop-cart-r2-unavailable-500", true, 0},
	}, got)

	services := partServices(p)
	three, one := 3, 1
	require.Equal(t, []dynamic.WRRService{{Name: "shop-web-8080", Weight: &three}, {Name: "shop-api-8080", Weight: &one}},
		services["httproute-shop-cart-r1"].Weighted.Services)
	require.Empty(t, services["httproute-shop-cart-r2-unavailable"].LoadBalancer.Servers, "Traefik answers 503")
	require.Empty(t, services["httproute-shop-cart-r2-unavailable-500"].LoadBalancer.Servers)
	require.Equal(t, []string{"httproute-shop-cart-r2-unavailable-500"}, services["httproute-shop-cart-r2-unavailable-500"].Middlewares,
		"a service middleware turns the 503 into 500")
	middlewares := partMiddlewares(p)
	require.Equal(t, &dynamic.Middleware{"errors": map[string]any{"status": []string{"503"}, "statusRewrites": map[string]int{"503": 500},
		"service": "httproute-shop-cart-r2-unavailable", "query": "/"}}, middlewares["httproute-shop-cart-r2-unavailable-500"])
	require.Contains(t, services, "shop-api-8080", "a weighted service's load balancers are the part's, swapped when rebuilt")
	require.Len(t, p.Middlewares, 3, "the header filter, once per listener, and the 500")
	require.NotContains(t, w.asked, translate.PortKey{Service: translate.Key{Namespace: "shop", Name: "gone"}}, "an unusable backend has no load balancer")
}

// A rule's timeouts bound the wait for its backends' response headers:
// each load balancer is reached through a derived service naming the
// servers transport of the shorter timeout, shared by the rules that ask
// for the same; "0s" bounds nothing; a timeout that is no duration
// leaves the rule out.
func TestHTTPRouteTimeouts(t *testing.T) {
	w := newWorld(t)
	d := func(s string) *gatewayv1.Duration { v := gatewayv1.Duration(s); return &v }
	route := shopRoute(
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/a"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			Timeouts: &gatewayv1.HTTPRouteTimeouts{Request: d("500ms")}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/b"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 3), backend("api", 1)},
			Timeouts: &gatewayv1.HTTPRouteTimeouts{Request: d("5s"), BackendRequest: d("2s")}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/c"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			Timeouts: &gatewayv1.HTTPRouteTimeouts{Request: d("0s")}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/d"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			Timeouts: &gatewayv1.HTTPRouteTimeouts{BackendRequest: d("500ms")}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/e"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
			Timeouts: &gatewayv1.HTTPRouteTimeouts{Request: d("soon")}},
	)
	p, dropped := w.translate(t, route)
	require.Empty(t, p.Errs)
	require.Equal(t, []attach.DroppedRule{{Index: 4, Reason: gatewayv1.RouteReasonUnsupportedValue,
		Message: `spec.rules[4].timeouts.request: "soon" is not a Gateway API duration (such as 1h30m, 500ms)`}}, dropped)
	services := partServices(p)
	serviceOf := map[string]string{}
	for _, r := range p.Routers {
		if r.Config.EntryPoints[0] == "web" {
			serviceOf[strings.TrimPrefix(r.Key, "httproute-shop-cart-infra-gw-http-")] = r.Config.Service
		}
	}
	require.Equal(t, map[string]string{"r0-m0": "shop-web-8080-t500ms", "r1-m0": "httproute-shop-cart-r1",
		"r2-m0": "shop-web-8080", "r3-m0": "shop-web-8080-t500ms"}, serviceOf)
	require.Equal(t, "gateway-timeout-500ms", services["shop-web-8080-t500ms"].LoadBalancer.ServersTransport)
	require.Equal(t, []dynamic.Server{{URL: "http://10.1.0.1:8080"}}, services["shop-web-8080-t500ms"].LoadBalancer.Servers, "the load balancer's servers")
	two := 3
	require.Equal(t, dynamic.WRRService{Name: "shop-web-8080-t2000ms", Weight: &two}, services["httproute-shop-cart-r1"].Weighted.Services[0])
	require.Equal(t, "gateway-timeout-2000ms", services["shop-api-8080-t2000ms"].LoadBalancer.ServersTransport)
	transports := map[string]time.Duration{}
	for _, tr := range p.Transports {
		transports[tr.Name] = time.Duration(tr.Transport.ForwardingTimeouts.ResponseHeaderTimeout)
	}
	require.Equal(t, map[string]time.Duration{"gateway-timeout-500ms": 500 * time.Millisecond, "gateway-timeout-2000ms": 2 * time.Second}, transports)
}

// A backendRef's filters run in a service of the rule's own, after the
// router's middlewares: the weighted service names it in place of the
// load balancer, whose servers (and the rule's timeout) it keeps. Their
// middlewares are defined once whatever the listeners; a backendRef
// filter Traefik cannot serve there leaves the rule out.
func TestHTTPRouteBackendFilters(t *testing.T) {
	w := newWorld(t)
	set := func(v string) []gatewayv1.HTTPRouteFilter {
		return []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier,
			RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "Backend", Value: v}}}}}
	}
	web, api := backend("web", 1), backend("api", 1)
	web.Filters, api.Filters = set("web"), set("api")
	slow := backend("web", 1)
	slow.Filters = set("slow")
	limit := gatewayv1.Duration("2s")
	mirrored, plain := backend("api", 1), backend("web", 3)
	port := gatewayv1.PortNumber(8080)
	mirrored.Filters = append(set("mirrored"), gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterRequestMirror,
		RequestMirror: &gatewayv1.HTTPRequestMirrorFilter{BackendRef: gatewayv1.BackendObjectReference{Name: "web", Port: &port}}})
	route := shopRoute(
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/a"), BackendRefs: []gatewayv1.HTTPBackendRef{web, api}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/b"), BackendRefs: []gatewayv1.HTTPBackendRef{slow},
			Timeouts: &gatewayv1.HTTPRouteTimeouts{Request: &limit}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/c"), BackendRefs: []gatewayv1.HTTPBackendRef{mirrored, plain}},
	)
	p, dropped := w.translate(t, route)
	require.Empty(t, p.Errs)
	require.Empty(t, dropped)
	services := partServices(p)
	one := 1
	// A backendRef's mirror copies the requests that backendRef takes
	// alone: its member of the rule's weighted service is a mirroring
	// service in front of its own (which runs its other filters).
	three := 3
	require.Equal(t, []dynamic.WRRService{{Name: "httproute-shop-cart-r2-b0-mirror", Weight: &one}, {Name: "shop-web-8080", Weight: &three}},
		services["httproute-shop-cart-r2"].Weighted.Services)
	require.Equal(t, &dynamic.Mirroring{Service: "httproute-shop-cart-r2-b0", Mirrors: []dynamic.MirrorService{{Name: "shop-web-8080", Percent: 100}}},
		services["httproute-shop-cart-r2-b0-mirror"].Mirroring)
	require.Equal(t, []string{"httproute-shop-cart-r2-b0-requestheadermodifier-0"}, services["httproute-shop-cart-r2-b0"].Middlewares)
	require.Equal(t, []dynamic.WRRService{{Name: "httproute-shop-cart-r0-b0", Weight: &one}, {Name: "httproute-shop-cart-r0-b1", Weight: &one}},
		services["httproute-shop-cart-r0"].Weighted.Services)
	b0 := services["httproute-shop-cart-r0-b0"]
	require.Equal(t, []string{"httproute-shop-cart-r0-b0-requestheadermodifier-0"}, b0.Middlewares)
	require.Equal(t, []dynamic.Server{{URL: "http://10.1.0.1:8080"}}, b0.LoadBalancer.Servers)
	require.Equal(t, []string{"httproute-shop-cart-r0-b1-requestheadermodifier-0"}, services["httproute-shop-cart-r0-b1"].Middlewares)
	b := services["httproute-shop-cart-r1-b0"]
	require.Equal(t, []string{"httproute-shop-cart-r1-b0-requestheadermodifier-0"}, b.Middlewares)
	require.Equal(t, "gateway-timeout-2000ms", b.LoadBalancer.ServersTransport)
	for _, r := range p.Routers {
		if strings.Contains(r.Key, "-r1-") {
			require.Equal(t, "httproute-shop-cart-r1-b0", r.Config.Service, "one backendRef: the rule's service is its own")
		}
	}
	middlewares := map[string]*dynamic.Middleware{}
	for _, m := range p.Middlewares {
		require.NotContains(t, middlewares, m.Name, "defined once")
		middlewares[m.Name] = m.Middleware
	}
	require.Equal(t, &dynamic.Middleware{"headers": map[string]any{"customRequestHeaders": map[string]string{"Backend": "web"}}},
		middlewares["httproute-shop-cart-r0-b0-requestheadermodifier-0"])
}

// A rule's retry is a retry middleware of the rule's own, last in every
// router's chain, after the rule's filters: a retry sends the request
// again as they left it.
func TestHTTPRouteRetry(t *testing.T) {
	w := newWorld(t)
	attempts := 2
	header := gatewayv1.HTTPRouteFilter{Type: gatewayv1.HTTPRouteFilterRequestHeaderModifier,
		RequestHeaderModifier: &gatewayv1.HTTPHeaderFilter{Set: []gatewayv1.HTTPHeader{{Name: "X-Shop", Value: "cart"}}}}
	route := shopRoute(gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)},
		Filters: []gatewayv1.HTTPRouteFilter{header},
		Retry:   &gatewayv1.HTTPRouteRetry{Codes: []gatewayv1.HTTPRouteRetryStatusCode{503}, Attempts: &attempts}})
	p, dropped := w.translate(t, route)
	require.Empty(t, p.Errs)
	require.Empty(t, dropped)
	require.Len(t, p.Routers, 2)
	for _, r := range p.Routers {
		require.Len(t, r.Config.Middlewares, 2, r.Key)
		require.Equal(t, "httproute-shop-cart-r0-retry", r.Config.Middlewares[1], r.Key)
	}
	var retries []*dynamic.Middleware
	for _, m := range p.Middlewares {
		if m.Name == "httproute-shop-cart-r0-retry" {
			retries = append(retries, m.Middleware)
		}
	}
	require.Equal(t, []*dynamic.Middleware{{"retry": map[string]any{"attempts": 3, "status": []string{"503"}}}}, retries, "defined once")
}

// Priorities make Traefik try the routers of an entry point in the order
// the Gateway API ranks their matches: an exact path before a prefix, a
// longer prefix before a shorter one, the older route first on equal
// matches.
func TestPrioritiesRankMatchesAcrossRoutes(t *testing.T) {
	w := newWorld(t)
	older := shopRoute(gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)}})
	newer := shopRoute(
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("api", 1)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/api"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("api", 1)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchExact, "/api/login"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)}},
	)
	newer.Name, newer.CreationTimestamp = "auth", metav1.NewTime(older.CreationTimestamp.Add(time.Hour))
	pOld, _ := w.translate(t, older)
	pNew, _ := w.translate(t, newer)
	var routers []*translate.Router
	for _, p := range []*translate.Part{pOld, pNew} {
		for i := range p.Routers {
			routers = append(routers, &p.Routers[i])
		}
	}
	prios, err := Priorities(routers)
	require.NoError(t, err)
	route := func(path string) string { // the service Traefik sends a request for path to, on the HTTP entry point
		best, service := 0, ""
		for i, r := range routers {
			if r.Config.EntryPoints[0] != "web" || !rule.MustParse(r.Config.Rule).MatchRequest(rule.NewRequest(httptest.NewRequest("GET", "http://shop.example.com"+path, nil))) {
				continue
			}
			require.NotEqual(t, best, prios[i], "two matching routers share priority %d", best)
			if prios[i] > best {
				best, service = prios[i], r.Config.Service
			}
		}
		return service
	}
	require.Equal(t, "shop-web-8080", route("/"), "the older route's equal match")
	require.Equal(t, "shop-api-8080", route("/api/x"))
	require.Equal(t, "shop-api-8080", route("/api"))
	require.Equal(t, "shop-web-8080", route("/api/login"), "the exact path")
	require.Equal(t, "shop-web-8080", route("/apix"), "a prefix matches whole path elements")
	require.Contains(t, prios, 1, "the lowest priority is 1")
}

// An HTTPRoute's backend whose Service port says appProtocol
// kubernetes.io/h2c is reached with HTTP/2 without TLS, through a
// service derived from its load balancer; the others over HTTP/1.1.
func TestHTTPRouteBackendH2CByAppProtocol(t *testing.T) {
	w := newWorld(t)
	w.services["shop/api"] = attach.Service{Ports: []attach.ServicePort{{Port: 8080, AppProtocol: "kubernetes.io/h2c"}}}
	route := shopRoute(
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/api"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("api", 1)}},
		gatewayv1.HTTPRouteRule{Matches: pathMatch(gatewayv1.PathMatchPathPrefix, "/"), BackendRefs: []gatewayv1.HTTPBackendRef{backend("web", 1)}},
	)
	p, dropped := w.translate(t, route)
	require.Empty(t, p.Errs)
	require.Empty(t, dropped)
	services := partServices(p)
	for _, r := range p.Routers {
		switch r.Config.Service {
		case "shop-api-8080-h2c":
			require.Equal(t, "h2c://10.1.0.1:8080", services[r.Config.Service].LoadBalancer.Servers[0].URL)
		case "shop-web-8080":
		default:
			t.Fatalf("router %s sends to %s", r.Key, r.Config.Service)
		}
	}
	require.Contains(t, services, "shop-api-8080-h2c")
}

// partServices are the services p defines, by name.
func partServices(p *translate.Part) map[string]*dynamic.Service {
	out := map[string]*dynamic.Service{}
	for _, ns := range p.Services {
		out[ns.Name] = ns.Service
	}
	return out
}

// routerServices are the services p's routers send to, by router key.
func routerServices(p *translate.Part) map[string]string {
	out := map[string]string{}
	for _, r := range p.Routers {
		out[r.Key] = r.Config.Service
	}
	return out
}

// partMiddlewares are the middlewares p defines, by name.
func partMiddlewares(p *translate.Part) map[string]*dynamic.Middleware {
	out := map[string]*dynamic.Middleware{}
	for _, m := range p.Middlewares {
		out[m.Name] = m.Middleware
	}
	return out
}
