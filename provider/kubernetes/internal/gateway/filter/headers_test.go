package filter

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func headerRule(kind gwapiv1.HTTPRouteFilterType, f gwapiv1.HTTPHeaderFilter) *gwapiv1.HTTPRouteRule {
	filter := gwapiv1.HTTPRouteFilter{Type: kind}
	if kind == gwapiv1.HTTPRouteFilterRequestHeaderModifier {
		filter.RequestHeaderModifier = &f
	} else {
		filter.ResponseHeaderModifier = &f
	}
	return &gwapiv1.HTTPRouteRule{Filters: []gwapiv1.HTTPRouteFilter{filter}}
}

func TestHeaderModifierMiddlewares(t *testing.T) {
	reqKind, resKind := gwapiv1.HTTPRouteFilterRequestHeaderModifier, gwapiv1.HTTPRouteFilterResponseHeaderModifier
	cases := []struct {
		name   string
		target Target
		kind   gwapiv1.HTTPRouteFilterType
		filter gwapiv1.HTTPHeaderFilter
		want   string // the middleware; "" for none
	}{{
		name:   "portable request set and remove, names canonical",
		kind:   reqKind,
		filter: gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("x-header-set", "v")}, Remove: []string{"x-FORWARDED-for"}},
		want:   `{"headers":{"customRequestHeaders":{"X-Header-Set":"v","X-Forwarded-For":""}}}`,
	}, {
		name:   "portable response set and remove",
		kind:   resKind,
		filter: gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X-A", "1")}, Remove: []string{"Server"}},
		want:   `{"headers":{"customResponseHeaders":{"X-A":"1","Server":""}}}`,
	}, {
		name:   "plugin request set, add and remove",
		target: Plugin,
		kind:   reqKind,
		filter: gwapiv1.HTTPHeaderFilter{
			Set:    []gwapiv1.HTTPHeader{header("X-Header-Set", "set")},
			Add:    []gwapiv1.HTTPHeader{header("x-header-add", "add")},
			Remove: []string{"X-Header-Remove"},
		},
		want: `{"requestHeaderModifier":{"set":{"X-Header-Set":"set"},"add":{"X-Header-Add":"add"},"remove":["X-Header-Remove"]}}`,
	}, {
		name:   "plugin response add only",
		target: Plugin,
		kind:   resKind,
		filter: gwapiv1.HTTPHeaderFilter{Add: []gwapiv1.HTTPHeader{header("X-Mixedcase-ADD-1", "m")}},
		want:   `{"responseHeaderModifier":{"add":{"X-Mixedcase-Add-1":"m"}}}`,
	}, {
		name: "a filter that changes nothing makes no middleware",
		kind: reqKind,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := HTTPRuleFilters(Env{Target: tc.target}, rule0, "r", headerRule(tc.kind, tc.filter))
			require.NoError(t, err)
			if tc.want == "" {
				require.Empty(t, res.Middlewares)
				return
			}
			require.Len(t, res.Middlewares, 1)
			require.Equal(t, "r-"+lower(tc.kind)+"-0", res.Middlewares[0].Name)
			requireJSON(t, tc.want, res.Middlewares[0].Middleware)
		})
	}
}

func lower(k gwapiv1.HTTPRouteFilterType) string {
	switch k {
	case gwapiv1.HTTPRouteFilterRequestHeaderModifier:
		return "requestheadermodifier"
	default:
		return "responseheadermodifier"
	}
}

// What the backend sees through the Portable middleware: the cases of
// the conformance test HTTPRouteRequestHeaderModifier that need no
// append (its /set, /remove and /case-insensitivity set and remove).
func TestPortableRequestHeadersAsSeen(t *testing.T) {
	f := gwapiv1.HTTPHeaderFilter{
		Set:    []gwapiv1.HTTPHeader{header("X-Header-Set", "header-set"), header("Host", "rewritten.example")},
		Remove: []string{"X-Header-Remove"},
	}
	res, err := HTTPRuleFilters(Env{}, rule0, "r", headerRule(gwapiv1.HTTPRouteFilterRequestHeaderModifier, f))
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, "http://example.com/case-insensitivity", nil)
	require.NoError(t, err)
	// The client writes lower-case names; Traefik's server reads them
	// in canonical form.
	req.Header.Set("x-header-set", "original-val-set")
	req.Header.Set("x-header-remove", "original-val-remove")
	req.Header.Set("Another-Header", "another-header-val")
	host := applyHeaders(t, res.Middlewares[0].Middleware, "customRequestHeaders", req.Header)
	require.Equal(t, "header-set", req.Header.Get("X-Header-Set"))
	require.Empty(t, req.Header.Values("X-Header-Remove"))
	require.Equal(t, "another-header-val", req.Header.Get("Another-Header"))
	require.Equal(t, "rewritten.example", host)
}

func TestHeaderModifierErrors(t *testing.T) {
	cases := []struct {
		name   string
		target Target
		filter gwapiv1.HTTPHeaderFilter
		field  string
	}{{
		name:   "portable add is refused",
		filter: gwapiv1.HTTPHeaderFilter{Add: []gwapiv1.HTTPHeader{header("X-Header-Add", "v")}},
		field:  "spec.rules[0].filters[0].requestHeaderModifier.add",
	}, {
		name:   "one name in two actions, whatever its case",
		target: Plugin,
		filter: gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X-Foo", "a")}, Remove: []string{"x-foo"}},
		field:  "spec.rules[0].filters[0].requestHeaderModifier.remove[0]",
	}, {
		name:   "one name twice in set",
		filter: gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X-Foo", "a"), header("x-foo", "b")}},
		field:  "spec.rules[0].filters[0].requestHeaderModifier.set[1].name",
	}, {
		name:   "a name that is no token",
		filter: gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X Foo", "a")}},
		field:  "spec.rules[0].filters[0].requestHeaderModifier.set[0].name",
	}, {
		name:   "an empty value, which Traefik would take for remove",
		filter: gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X-Foo", "")}},
		field:  "spec.rules[0].filters[0].requestHeaderModifier.set[0].value",
	}, {
		name:   "a value with a line break",
		target: Plugin,
		filter: gwapiv1.HTTPHeaderFilter{Add: []gwapiv1.HTTPHeader{header("X-Foo", "a\r\nX-Injected: 1")}},
		field:  "spec.rules[0].filters[0].requestHeaderModifier.add[0].value",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := HTTPRuleFilters(Env{Target: tc.target}, rule0, "r", headerRule(gwapiv1.HTTPRouteFilterRequestHeaderModifier, tc.filter))
			requireOneError(t, err, tc.field, gwapiv1.RouteReasonUnsupportedValue)
			require.Empty(t, res.Middlewares)
		})
	}
}

// A message quotes a long value's start only, never the whole value.
func TestLongValueCutInMessage(t *testing.T) {
	long := strings.Repeat("v", 5000) + "\n"
	f := gwapiv1.HTTPHeaderFilter{Set: []gwapiv1.HTTPHeader{header("X-Foo", long)}}
	_, err := HTTPRuleFilters(Env{}, rule0, "r", headerRule(gwapiv1.HTTPRouteFilterRequestHeaderModifier, f))
	e := oneError(t, err, "spec.rules[0].filters[0].requestHeaderModifier.set[0].value", gwapiv1.RouteReasonUnsupportedValue)
	require.Less(t, len(e.Detail), 400)
	require.Contains(t, e.Detail, "(5,001 bytes)")
}
