package attach

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestResolveKindConflicts(t *testing.T) {
	old := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	young := metav1.NewTime(old.Add(time.Hour))
	aged := func(r Route, at metav1.Time) Route { r.CreationTimestamp = at; return r }
	all := parentRef("all-namespaces", infraNS, "", 0)
	isect := parentRef("httproute-hostname-intersection", infraNS, "", 0)

	tests := []struct {
		name   string
		routes []Route
		// refused names the routes that must end up refused with
		// ConflictingRouteKind; the others keep all their listeners.
		refused []string
		counts  map[string]int32 // all-namespaces listener "http"
		// contested names the routes KindClaims.Contested finds in a
		// conflict, before it is settled: the winners too.
		contested []string
	}{
		{
			name: "an older HTTPRoute keeps a hostname against a GRPCRoute",
			routes: []Route{
				// Its second parentRef is refused already, and keeps its reason.
				aged(route(KindGRPCRoute, infraNS, "grpc", []string{"api.example.com"}, all, parentRef("all-namespaces", infraNS, "", 81)), young),
				aged(route(KindHTTPRoute, infraNS, "http", []string{"*.example.com"}, all), old),
			},
			refused: []string{"grpc"}, counts: map[string]int32{"http": 1}, contested: []string{"grpc", "http"},
		},
		{
			name: "an older GRPCRoute wins as well",
			routes: []Route{
				aged(route(KindGRPCRoute, infraNS, "grpc", []string{"api.example.com"}, all), old),
				aged(route(KindHTTPRoute, infraNS, "http", []string{"api.example.com"}, all), young),
			},
			refused: []string{"http"}, counts: map[string]int32{"http": 1}, contested: []string{"grpc", "http"},
		},
		{
			name: "same age: namespace/name decides",
			routes: []Route{
				aged(route(KindHTTPRoute, infraNS, "b", nil, all), old),
				aged(route(KindGRPCRoute, infraNS, "a", nil, all), old),
			},
			refused: []string{"b"}, counts: map[string]int32{"http": 1}, contested: []string{"a", "b"},
		},
		{
			name: "different hostnames do not conflict",
			routes: []Route{
				aged(route(KindGRPCRoute, infraNS, "grpc", []string{"grpc.example.com"}, all), old),
				aged(route(KindHTTPRoute, infraNS, "http", []string{"web.example.com"}, all), young),
			},
			counts: map[string]int32{"http": 2},
		},
		{
			name: "routes of one kind never conflict here",
			routes: []Route{
				aged(route(KindHTTPRoute, infraNS, "one", nil, all), old),
				aged(route(KindHTTPRoute, infraNS, "two", nil, all), young),
			},
			counts: map[string]int32{"http": 2},
		},
		{
			name: "a refused route does not block a third",
			routes: []Route{
				aged(route(KindHTTPRoute, infraNS, "http-old", []string{"a.example.com"}, all), old),
				aged(route(KindGRPCRoute, infraNS, "grpc", []string{"a.example.com", "b.example.com"}, all), young),
				aged(route(KindHTTPRoute, infraNS, "http-new", []string{"b.example.com"}, all), metav1.NewTime(young.Add(time.Hour))),
			},
			refused: []string{"grpc"}, counts: map[string]int32{"http": 2}, contested: []string{"grpc", "http-new", "http-old"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gws, lookup := processAll(t, conformanceGateways(), Lookups{})
			claims := NewKindClaims(attachRaw(lookup, tt.routes))
			var contested []string
			for _, r := range tt.routes {
				if claims.Contested(r) {
					contested = append(contested, r.Name)
				}
			}
			slices.Sort(contested)
			require.Equal(t, tt.contested, contested, "contested")
			atts := attachAll(gws, lookup, Lookups{}, tt.routes...)
			for _, att := range atts {
				p := att.Parents[0]
				if contains(tt.refused, att.Route.Name) {
					require.Falsef(t, p.Accepted, "%s", att.Route.Name)
					require.Equal(t, ReasonConflictingRouteKind, p.Reason)
					require.Contains(t, p.Message, "listener http: ")
					require.Empty(t, p.Listeners)
					if len(att.Parents) > 1 {
						require.Equal(t, gatewayv1.RouteReasonNoMatchingParent, att.Parents[1].Reason)
					}
					continue
				}
				require.Truef(t, p.Accepted, "%s: %s", att.Route.Name, p.Message)
			}
			require.Equal(t, tt.counts, attachedCounts(gws[1]))
		})
	}

	t.Run("losing one listener of several keeps the parent accepted", func(t *testing.T) {
		gws, lookup := processAll(t, conformanceGateways(), Lookups{})
		atts := attachAll(gws, lookup, Lookups{},
			aged(route(KindHTTPRoute, infraNS, "http", []string{"very.specific.com"}, isect), old),
			aged(route(KindGRPCRoute, infraNS, "grpc", []string{"very.specific.com", "x.wildcard.io"}, isect), young))
		grpc := atts[1].Parents[0]
		require.True(t, grpc.Accepted)
		require.Len(t, grpc.Listeners, 1)
		require.Equal(t, gatewayv1.SectionName("listener-2"), grpc.Listeners[0].Listener)
		require.Equal(t, map[string]int32{"listener-1": 1, "listener-2": 1, "listener-3": 0}, attachedCounts(gws[3]))
	})

	t.Run("claims follow a route's change", func(t *testing.T) {
		_, lookup := processAll(t, conformanceGateways(), Lookups{})
		grpc := aged(route(KindGRPCRoute, infraNS, "grpc", []string{"grpc.example.com"}, all), old)
		http := aged(route(KindHTTPRoute, infraNS, "http", []string{"web.example.com"}, all), young)
		claims := NewKindClaims(attachRaw(lookup, []Route{grpc, http}))
		require.False(t, claims.Contested(http))
		http.Hostnames = []gatewayv1.Hostname{"*.example.com"}
		att := AttachRoute(http, lookup, Lookups{})
		claims.Add(&att)
		require.True(t, claims.Contested(http))
		require.True(t, claims.Contested(grpc))
		claims.Remove(http)
		require.False(t, claims.Contested(grpc))
		require.False(t, claims.Contested(http), "a route without claims contests nothing")
	})

	t.Run("other route kinds are left alone", func(t *testing.T) {
		atts := []RouteAttachment{{Route: route(KindTLSRoute, infraNS, "t", nil), Parents: []ParentAttachment{{
			Accepted: true, GatewayNamespace: infraNS, GatewayName: "g", Listeners: []ListenerAttachment{{Listener: "l"}},
		}}}, {Route: route(KindHTTPRoute, infraNS, "h", nil), Parents: []ParentAttachment{{
			Accepted: true, GatewayNamespace: infraNS, GatewayName: "g", Listeners: []ListenerAttachment{{Listener: "l"}},
		}}}}
		ResolveKindConflicts(atts)
		require.True(t, atts[0].Parents[0].Accepted)
		require.True(t, atts[1].Parents[0].Accepted)
	})
}

// attachRaw attaches routes, without settling their conflicts.
func attachRaw(lookup GatewayLookup, routes []Route) []RouteAttachment {
	atts := make([]RouteAttachment, len(routes))
	for i, r := range routes {
		atts[i] = AttachRoute(r, lookup, Lookups{})
	}
	return atts
}
