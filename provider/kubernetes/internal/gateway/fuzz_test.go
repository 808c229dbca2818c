package gateway

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/rule"
)

// FuzzHTTPRoute: whatever an HTTPRoute's rules say (JSON of its
// spec.rules: matches, filters, backendRefs and theirs, timeouts, retry),
// its translation never panics, every rule it leaves out is a rule of the
// route with a reason and has no router, every router's rule is one
// Traefik reads, and everything the part names (a router's service and
// middlewares, a weighted or mirroring service's services, a service's
// middlewares and servers transport) the part defines, or is a load
// balancer the render gives.
func FuzzHTTPRoute(f *testing.F) {
	for _, seed := range []string{
		`[{"matches":[{"path":{"type":"PathPrefix","value":"/a"}}],"backendRefs":[{"name":"web","port":8080}]}]`,
		`[{"matches":[{"path":{"type":"Exact","value":"/x"},"headers":[{"name":"X","value":"1"}],"queryParams":[{"type":"RegularExpression","name":"q","value":"^a+$"}],"method":"POST"}],
		  "filters":[{"type":"RequestHeaderModifier","requestHeaderModifier":{"set":[{"name":"A","value":"b"}],"remove":["C"]}},
		             {"type":"RequestMirror","requestMirror":{"backendRef":{"name":"api","port":8080},"percent":20}}],
		  "backendRefs":[{"name":"web","port":8080,"weight":3,"filters":[{"type":"ResponseHeaderModifier","responseHeaderModifier":{"set":[{"name":"B","value":"c"}]}}]},
		                 {"name":"api","port":8080,"weight":1},{"name":"gone","port":8080}],
		  "timeouts":{"request":"5s","backendRequest":"1s"},"retry":{"codes":[500,503],"attempts":2,"backoff":"100ms"}}]`,
		`[{"filters":[{"type":"RequestRedirect","requestRedirect":{"scheme":"https","statusCode":301}}]},
		  {"matches":[{"path":{"type":"RegularExpression","value":"/v[0-9]+/.*"}}],"filters":[{"type":"URLRewrite","urlRewrite":{"hostname":"in.example","path":{"type":"ReplacePrefixMatch","replacePrefixMatch":"/"}}}],
		   "backendRefs":[{"name":"web","port":8080}]}]`,
		`[{"filters":[{"type":"CORS","cors":{"allowOrigins":["https://*.example.com"],"allowMethods":["GET"],"maxAge":60}}],"backendRefs":[{"name":"api","port":8080,"filters":[{"type":"RequestRedirect","requestRedirect":{"port":8443}}]}],
		   "timeouts":{"request":"0s"},"retry":{}}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, rulesJSON []byte) {
		var rules []gatewayv1.HTTPRouteRule
		if json.Unmarshal(rulesJSON, &rules) != nil || len(rules) > 16 {
			return
		}
		w := newWorld(t)
		route := shopRoute(rules...)
		p, dropped := w.translate(t, route)
		if p.Panicked() {
			t.Fatalf("the translation panicked: %v", p.Errs[0].Err)
		}
		left := map[int]bool{}
		for _, d := range dropped {
			if d.Index < 0 || d.Index >= len(rules) || d.Reason == "" || d.Message == "" {
				t.Fatalf("a dropped rule that says nothing: %+v", d)
			}
			left[d.Index] = true
		}
		services := map[string]*dynamic.Service{}
		for _, s := range p.Services {
			services[s.Name] = s.Service
		}
		middlewares := map[string]bool{}
		for _, m := range p.Middlewares {
			middlewares[m.Name] = true
		}
		transports := map[string]bool{}
		for _, tr := range p.Transports {
			transports[tr.Name] = true
		}
		given := func(name string) bool {
			for key := range w.lbs {
				if key.ServiceName() == name {
					return true
				}
			}
			return false
		}
		var check func(name string, depth int)
		check = func(name string, depth int) {
			svc, ok := services[name]
			if !ok {
				if !given(name) {
					t.Fatalf("service %s is named and not defined", name)
				}
				return
			}
			if depth > 4 {
				t.Fatalf("service %s: services nested too deep", name)
			}
			for _, m := range svc.Middlewares {
				if !middlewares[m] {
					t.Fatalf("service %s names middleware %s, not defined", name, m)
				}
			}
			if svc.LoadBalancer != nil && svc.LoadBalancer.ServersTransport != "" && !transports[svc.LoadBalancer.ServersTransport] {
				t.Fatalf("service %s names servers transport %s, not defined", name, svc.LoadBalancer.ServersTransport)
			}
			if svc.Weighted != nil {
				for _, m := range svc.Weighted.Services {
					check(m.Name, depth+1)
				}
			}
			if svc.Mirroring != nil {
				check(svc.Mirroring.Service, depth+1)
				for _, m := range svc.Mirroring.Mirrors {
					check(m.Name, depth+1)
				}
			}
		}
		for _, r := range p.Routers {
			m := routerRule.FindStringSubmatch(r.Key)
			if m == nil {
				t.Fatalf("router %s: a name that says no rule", r.Key)
			}
			if ri, _ := strconv.Atoi(m[1]); ri >= len(rules) || left[ri] {
				t.Fatalf("router %s serves rule %d, which was left out", r.Key, ri)
			}
			if _, err := rule.Parse(r.Config.Rule); err != nil {
				t.Fatalf("router %s: rule %q does not parse: %v", r.Key, r.Config.Rule, err)
			}
			for _, m := range r.Config.Middlewares {
				if !middlewares[m] {
					t.Fatalf("router %s names middleware %s, not defined", r.Key, m)
				}
			}
			if _, ok := services[r.Config.Service]; !ok && r.Service != nil {
				services[r.Config.Service] = r.Service
			}
			check(r.Config.Service, 0)
		}
	})
}

// routerRule reads the rule's index in a router's name.
var routerRule = regexp.MustCompile(`-r([0-9]+)-m[0-9]+(-h[0-9]+)?$`)
