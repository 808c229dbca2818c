package attach

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// backendRef builds a backendRef; group "-" and kind "" leave them out,
// port 0 leaves the port out, weight -1 leaves the weight out.
func backendRef(group, kind, namespace, name string, port, weight int32) gatewayv1.BackendRef {
	r := gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(name)}}
	if group != "-" {
		g := gatewayv1.Group(group)
		r.Group = &g
	}
	if kind != "" {
		k := gatewayv1.Kind(kind)
		r.Kind = &k
	}
	if namespace != "" {
		ns := gatewayv1.Namespace(namespace)
		r.Namespace = &ns
	}
	if port != 0 {
		r.Port = &port
	}
	if weight >= 0 {
		r.Weight = &weight
	}
	return r
}

func TestCheckBackendRef(t *testing.T) {
	cluster := conformanceCluster()
	cluster.services[infraNS+"/ws"] = Service{Ports: []ServicePort{{Port: 8080, AppProtocol: "kubernetes.io/ws"}}}
	cluster.services[infraNS+"/h2c"] = Service{Ports: []ServicePort{{Port: 8080, AppProtocol: "kubernetes.io/h2c"}}}
	cluster.services[infraNS+"/mysql"] = Service{Ports: []ServicePort{{Port: 3306, AppProtocol: "mysql"}}}
	granted := conformanceCluster()
	granted.grants = []*gatewayv1.ReferenceGrant{grant(webNS, "gateway.networking.k8s.io", "HTTPRoute", infraNS, "", "Service", "web-backend")}

	tests := []struct {
		name    string
		kind    gatewayv1.Kind
		ref     gatewayv1.BackendRef
		cluster fakeCluster
		usable  bool
		reason  gatewayv1.RouteConditionReason
		message string
	}{
		{name: "a Service in the route's namespace", kind: KindHTTPRoute, cluster: cluster,
			ref: backendRef("-", "", "", "infra-backend-v1", 8080, -1), usable: true},
		{name: "explicit core group and kind", kind: KindHTTPRoute, cluster: cluster,
			ref: backendRef("", "Service", infraNS, "infra-backend-v1", 8080, -1), usable: true},
		// httproute-invalid-backendref-unknown-kind.
		{name: "an unknown kind", kind: KindHTTPRoute, cluster: cluster,
			ref: backendRef("unknownkind.example.com", "NonExistent", "", "infra-backend-v1", 8080, -1), reason: "InvalidKind",
			message: "NonExistent.unknownkind.example.com gateway-conformance-infra/infra-backend-v1: kind is not supported"},
		// httproute-invalid-cross-namespace-backend-ref and
		// httproute-invalid-reference-grant.
		{name: "another namespace without a grant", kind: KindHTTPRoute, cluster: cluster,
			ref: backendRef("-", "", webNS, "web-backend", 8080, -1), reason: "RefNotPermitted"},
		// httproute-reference-grant.
		{name: "another namespace with a grant", kind: KindHTTPRoute, cluster: granted,
			ref: backendRef("-", "", webNS, "web-backend", 8080, -1), usable: true},
		{name: "a grant for HTTPRoutes does not serve GRPCRoutes", kind: KindGRPCRoute, cluster: granted,
			ref: backendRef("-", "", webNS, "web-backend", 8080, -1), reason: "RefNotPermitted"},
		// httproute-invalid-nonexistent-backendref.
		{name: "a Service that does not exist", kind: KindHTTPRoute, cluster: cluster,
			ref: backendRef("-", "", infraNS, "nonexistent", 8080, -1), reason: "BackendNotFound",
			message: "Service gateway-conformance-infra/nonexistent not found"},
		{name: "a port the Service does not have", kind: KindHTTPRoute, cluster: cluster,
			ref: backendRef("-", "", "", "infra-backend-v1", 9999, -1), reason: "BackendNotFound",
			message: "has no port 9999"},
		{name: "no port", kind: KindHTTPRoute, cluster: cluster,
			ref: backendRef("-", "", "", "infra-backend-v1", 0, -1), reason: "BackendNotFound"},
		{name: "WebSocket port for HTTP", kind: KindHTTPRoute, cluster: cluster,
			ref: backendRef("-", "", "", "ws", 8080, -1), usable: true},
		{name: "WebSocket port for gRPC", kind: KindGRPCRoute, cluster: cluster,
			ref: backendRef("-", "", "", "ws", 8080, -1), reason: "UnsupportedProtocol"},
		{name: "h2c port for gRPC", kind: KindGRPCRoute, cluster: cluster,
			ref: backendRef("-", "", "", "h2c", 8080, -1), usable: true},
		{name: "an application protocol HTTP cannot speak", kind: KindHTTPRoute, cluster: cluster,
			ref: backendRef("-", "", "", "mysql", 3306, -1), reason: "UnsupportedProtocol"},
		{name: "route kinds without a protocol table are not checked", kind: KindTCPRoute, cluster: cluster,
			ref: backendRef("-", "", "", "mysql", 3306, -1), usable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := route(tt.kind, infraNS, "r", nil)
			b := CheckBackendRef(r, tt.ref.BackendObjectReference, tt.cluster.lookups())
			require.Equal(t, tt.usable, b.Usable, b.Message)
			require.Equal(t, tt.reason, b.Reason)
			require.Contains(t, b.Message, tt.message)
		})
	}
}

func TestCheckBackendRefPermissionBeforeExistence(t *testing.T) {
	asked := false
	look := Lookups{Service: func(string, string) (Service, bool) { asked = true; return Service{}, true }}
	b := CheckBackendRef(route(KindHTTPRoute, infraNS, "r", nil), backendRef("-", "", webNS, "web-backend", 8080, -1).BackendObjectReference, look)
	require.Equal(t, gatewayv1.RouteReasonRefNotPermitted, b.Reason)
	require.False(t, asked, "a route cannot probe for Services it may not use")
}

func TestCheckBackends(t *testing.T) {
	look := conformanceCluster().lookups()
	// A weighted rule with a bad backend, a rule that is all bad, a rule
	// without backends.
	rules := [][]gatewayv1.BackendRef{
		{
			backendRef("-", "", "", "infra-backend-v1", 8080, 3),
			backendRef("-", "", webNS, "web-backend", 8080, 1),
			backendRef("-", "", "", "infra-backend-v2", 8080, -1),
			backendRef("-", "", "", "infra-backend-v2", 8080, 0),
		},
		{backendRef("-", "", "", "nonexistent", 8080, -1)},
		nil,
	}

	check := CheckBackends(route(KindHTTPRoute, infraNS, "r", nil), rules, look)
	require.False(t, check.ResolvedRefs)
	require.Equal(t, gatewayv1.RouteReasonRefNotPermitted, check.Reason, "the first unusable reference decides the reason")
	require.Equal(t, "spec.rules[0].backendRefs[1]: Service gateway-conformance-web-backend/web-backend is in another namespace"+
		" and no ReferenceGrant there allows HTTPRoutes from gateway-conformance-infra to use it; "+
		"spec.rules[1].backendRefs[0]: Service gateway-conformance-infra/nonexistent not found", check.Message)
	require.Equal(t, http.StatusInternalServerError, check.ErrorStatus)
	require.Len(t, check.Rules, 3)

	// 3+1+0 usable, 1 unusable: a fifth of the traffic must get a 500.
	r0 := check.Rules[0]
	require.Equal(t, int64(4), r0.UsableWeight)
	require.Equal(t, int64(1), r0.UnusableWeight)
	var weights []int32
	for _, b := range r0.Backends {
		weights = append(weights, b.Weight)
	}
	require.Equal(t, []int32{3, 1, 1, 0}, weights, "an unset weight is 1, zero stays zero")
	require.Equal(t, []bool{true, false, true, true}, []bool{r0.Backends[0].Usable, r0.Backends[1].Usable, r0.Backends[2].Usable, r0.Backends[3].Usable})

	require.Equal(t, RuleBackends{
		Backends:       []Backend{{Namespace: infraNS, Name: "nonexistent", Port: 8080, Weight: 1, Reason: "BackendNotFound", Message: "Service gateway-conformance-infra/nonexistent not found"}},
		UnusableWeight: 1,
	}, check.Rules[1], "every backend unusable: all traffic gets the error status")
	require.Equal(t, RuleBackends{}, check.Rules[2])

	ok := CheckBackends(route(KindGRPCRoute, infraNS, "r", nil), [][]gatewayv1.BackendRef{{backendRef("-", "", "", "infra-backend-v1", 8080, -1)}}, look)
	require.True(t, ok.ResolvedRefs)
	require.Equal(t, gatewayv1.RouteReasonResolvedRefs, ok.Reason)
	require.Equal(t, http.StatusServiceUnavailable, ok.ErrorStatus, "gRPC clients read 503 as UNAVAILABLE")
}

func TestRouteBackendRefs(t *testing.T) {
	a := backendRef("-", "", "", "a", 80, 2)
	b := backendRef("-", "", "", "b", 80, -1)
	h := &gatewayv1.HTTPRoute{Spec: gatewayv1.HTTPRouteSpec{Rules: []gatewayv1.HTTPRouteRule{
		{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: a}, {BackendRef: b}}},
		{},
	}}}
	require.Equal(t, [][]gatewayv1.BackendRef{{a, b}, nil}, HTTPRouteBackendRefs(h))
	g := &gatewayv1.GRPCRoute{Spec: gatewayv1.GRPCRouteSpec{Rules: []gatewayv1.GRPCRouteRule{
		{BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: b}}},
	}}}
	require.Equal(t, [][]gatewayv1.BackendRef{{b}}, GRPCRouteBackendRefs(g))
}
