package translate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// planRoutersJSON is the compact JSON of the routers of pl, as each is
// written in the routers map of a configuration (under its key, the
// default backend's under DefaultRouterName), and how many there are.
func planRoutersJSON(t *testing.T, pl *Plan) (size, routers int) {
	t.Helper()
	add := func(name string, rt any) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(map[string]any{name: rt}))
		size += buf.Len() - len("{}\n") + len(",")
		routers++
	}
	if pd := pl.defaultBackend; pd != nil && pd.path.router != nil {
		add(DefaultRouterName, pd.path.router)
	}
	for i := range pl.paths {
		add(pl.paths[i].key, pl.paths[i].router)
	}
	return size, routers
}

// TestOutputEstimate: the estimate is within a few percent of the JSON
// the routers of the plan make (which the configuration takes as they
// are), and the bound from the lengths alone is never below it.
func TestOutputEstimate(t *testing.T) {
	tls := map[string]string{
		testobjects.Annotation("router.tls"):                "true",
		testobjects.Annotation("router.tls.certresolver"):   "letsencrypt",
		testobjects.Annotation("router.tls.options"):        "default-modern@kubernetescrd",
		testobjects.Annotation("router.tls.domains.0.main"): "example.org",
		testobjects.Annotation("router.tls.domains.0.sans"): "a.example.org,b.example.org",
		testobjects.Annotation("router.middlewares"):        "auth@file,default-strip@kubernetescrd,compress@file",
		testobjects.Annotation("router.entrypoints"):        "web,websecure",
		testobjects.Annotation("router.priority"):           "42",
		"unrelated.example.com/description":                 strings.Repeat("d", 10_000),
	}
	escapes := testobjects.NewIngress("apps", "escapes", testobjects.WithPath("quote\".example", `/a"b\c`+"\t", "whoami", 80, ""), testobjects.WithPath("*.wild.example", "/x", "whoami", 80, ""))
	quoted := testobjects.NewIngress("apps", "quoted", testobjects.WithPath("", "/"+strings.Repeat(`"\`, 200), "whoami", 80, ""), testobjects.WithPath("", "/x/"+strings.Repeat("\x01", 100), "whoami", 80, ""))
	withDefault := testobjects.NewIngress("apps", "default", testobjects.WithDefaultBackend("whoami", 80), testobjects.WithPath("", "", "whoami", 80, ""))
	withDefault.Annotations = map[string]string{testobjects.Annotation("router.middlewares"): "a@file,b@file"}
	for _, tc := range []struct {
		name   string
		ing    *netv1.Ingress
		strict bool
		slack  float64 // more than the usual 5%: router keys drop what is not a letter or digit, the estimate counts it
	}{
		{"plain", testobjects.ManyPaths("apps", "plain", "www.example.com", "whoami", 100, nil), false, 0},
		{"annotations and TLS", testobjects.ManyPaths("apps", "tls", "www.example.com", "whoami", 100, tls), false, 0},
		{"strict prefix", testobjects.ManyPaths("apps", "strict", "www.example.com", "whoami", 100, tls), true, 0},
		{"no host", testobjects.ManyPaths("apps", "nohost", "", "whoami", 100, nil), false, 0},
		{"escapes and a wildcard", escapes, false, 0},
		{"default backend", withDefault, false, 0},
		{"escapes in long paths", quoted, true, 0.15},
		{"middlewares of the finding", testobjects.ManyPaths("apps", "wide", "wide.example", "whoami", 20, map[string]string{testobjects.Annotation("router.middlewares"): testobjects.MiddlewareNames(2_000)}), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := PlanOptions{StrictPrefix: tc.strict, SpecPriorities: true, MaxOutput: DefaultMaxIngressOutput}
			pl := PlanIngress(tc.ing, opts, nil)
			require.Empty(t, pl.errs)
			ra, err := parseRouterAnnotations(tc.ing.Annotations)
			require.NoError(t, err)
			exact := estimateOutput(tc.ing, ra, opts, true)
			bound := estimateOutput(tc.ing, ra, opts, false)
			got, routers := planRoutersJSON(t, pl)
			assert.InDelta(t, got, exact.total, max(tc.slack, 0.05)*float64(got)+8, "estimate %d, JSON %d", exact.total, got)
			assert.GreaterOrEqual(t, exact.total, int64(got)-8, "the estimate is not below the JSON")
			assert.GreaterOrEqual(t, bound.total, exact.total)
			assert.Equal(t, routers, exact.routers)
		})
	}
}

// TestPlanBuildsNoRouterOverTheLimit: the plan of an Ingress, which the
// client makes when it arrives, builds no router for an Ingress the
// renders refuse, and says why.
func TestPlanBuildsNoRouterOverTheLimit(t *testing.T) {
	wide := testobjects.ManyPaths("shop", "wide", "wide.example", "whoami", 200, map[string]string{testobjects.Annotation("router.middlewares"): testobjects.MiddlewareNames(5_000)})
	pl := PlanIngress(wide, PlanOptions{MaxOutput: DefaultMaxIngressOutput}, nil)
	require.True(t, pl.skipped)
	require.Empty(t, pl.paths, "no router built")
	require.Len(t, pl.errs, 1)
	assert.Contains(t, pl.errs[0].Err.Error(), "over maxIngressOutput")
	pl = PlanIngress(wide, PlanOptions{MaxOutput: 1 << 30}, nil)
	require.Len(t, pl.paths, 200)
	require.NotNil(t, pl.paths[0].router)
}
