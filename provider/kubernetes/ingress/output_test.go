package ingress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/internal/clustergen"
)

// manyPaths is an Ingress of n Prefix paths on host to Service svc's port
// 80, with annotations.
func manyPaths(ns, name, host, svc string, n int, annotations map[string]string) *netv1.Ingress {
	prefix := netv1.PathTypePrefix
	paths := make([]netv1.HTTPIngressPath, n)
	for i := range paths {
		paths[i] = netv1.HTTPIngressPath{Path: fmt.Sprintf("/section/%05d", i), PathType: &prefix,
			Backend: netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: svc, Port: netv1.ServiceBackendPort{Number: 80}}}}
	}
	return &netv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: annotations},
		Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: host, IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: paths}}}}}}
}

// middlewareNames is the router.middlewares annotation of the finding:
// n names m00000@file, m00001@file, ...
func middlewareNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("m%05d@file", i)
	}
	return strings.Join(names, ",")
}

// routersJSON is the compact JSON of the routers of the configuration
// that come from Ingress name, as each is written in the routers map.
func routersJSON(t *testing.T, res *Result, name string) int {
	t.Helper()
	size := 0
	for key, rt := range res.Configuration.HTTP.Routers {
		if rt.Observability.Metadata.Ingress.IngressName != name {
			continue
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(map[string]any{key: rt}))
		size += buf.Len() - len("{}\n") + len(",")
	}
	return size
}

// TestOutputEstimate: the estimate is within a few percent of the JSON
// the routers make, and the bound from the lengths alone is never below it.
func TestOutputEstimate(t *testing.T) {
	tls := map[string]string{
		ann("router.tls"):                   "true",
		ann("router.tls.certresolver"):      "letsencrypt",
		ann("router.tls.options"):           "default-modern@kubernetescrd",
		ann("router.tls.domains.0.main"):    "example.org",
		ann("router.tls.domains.0.sans"):    "a.example.org,b.example.org",
		ann("router.middlewares"):           "auth@file,default-strip@kubernetescrd,compress@file",
		ann("router.entrypoints"):           "web,websecure",
		ann("router.priority"):              "42",
		"unrelated.example.com/description": strings.Repeat("d", 10_000),
	}
	escapes := newIngress("apps", "escapes", withPath("quote\".example", `/a"b\c`+"\t", "whoami", 80, ""), withPath("*.wild.example", "/x", "whoami", 80, ""))
	quoted := newIngress("apps", "quoted", withPath("", "/"+strings.Repeat(`"\`, 200), "whoami", 80, ""), withPath("", "/x/"+strings.Repeat("\x01", 100), "whoami", 80, ""))
	withDefault := newIngress("apps", "default", withDefaultBackend("whoami", 80), withPath("", "", "whoami", 80, ""))
	withDefault.Annotations = map[string]string{ann("router.middlewares"): "a@file,b@file"}
	for _, tc := range []struct {
		name   string
		ing    *netv1.Ingress
		strict bool
		slack  float64 // more than the usual 5%: router keys drop what is not a letter or digit, the estimate counts it
	}{
		{"plain", manyPaths("apps", "plain", "www.example.com", "whoami", 100, nil), false, 0},
		{"annotations and TLS", manyPaths("apps", "tls", "www.example.com", "whoami", 100, tls), false, 0},
		{"strict prefix", manyPaths("apps", "strict", "www.example.com", "whoami", 100, tls), true, 0},
		{"no host", manyPaths("apps", "nohost", "", "whoami", 100, nil), false, 0},
		{"escapes and a wildcard", escapes, false, 0},
		{"default backend", withDefault, false, 0},
		{"escapes in long paths", quoted, true, 0.15},
		{"middlewares of the finding", manyPaths("apps", "wide", "wide.example", "whoami", 20, map[string]string{ann("router.middlewares"): middlewareNames(2_000)}), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := benchOptions()
			opts.StrictPrefixMatching = tc.strict
			res := translate(t, newMemSnapshot(append(backend("apps", "whoami", "10.0.0.1"), tc.ing)...), opts)
			require.Empty(t, res.Errors)
			ra, err := parseRouterAnnotations(tc.ing.Annotations)
			require.NoError(t, err)
			exact := estimateOutput(tc.ing, ra, newPlanOptions(opts), true)
			bound := estimateOutput(tc.ing, ra, newPlanOptions(opts), false)
			got := routersJSON(t, res, tc.ing.Name)
			assert.InDelta(t, got, exact.total, max(tc.slack, 0.05)*float64(got)+8, "estimate %d, JSON %d", exact.total, got)
			assert.GreaterOrEqual(t, exact.total, int64(got)-8, "the estimate is not below the JSON")
			assert.GreaterOrEqual(t, bound.total, exact.total)
			assert.Equal(t, len(res.Configuration.HTTP.Routers), exact.routers)
		})
	}
}

// TestOversizedIngressSkipped: the Ingress of the finding (2,000 paths
// that each copy a 252 KB router.middlewares annotation) is skipped with
// an error naming it, the annotation and the numbers; a normal Ingress
// next to it is routed, and so is a large legitimate one.
func TestOversizedIngressSkipped(t *testing.T) {
	names := middlewareNames(21_000)
	require.Len(t, names, 251_999)
	wide := manyPaths("shop", "wide", "wide.example", "whoami", 2_000, map[string]string{ann("router.middlewares"): names})
	legit := manyPaths("shop", "site", "www.example.com", "whoami", 1_000, map[string]string{
		ann("router.middlewares"):      "shop-auth@kubernetescrd,shop-strip@kubernetescrd,compress@file,headers@file",
		ann("router.entrypoints"):      "websecure",
		ann("router.tls"):              "true",
		ann("router.tls.certresolver"): "letsencrypt",
		ann("router.tls.options"):      "shop-modern@kubernetescrd",
	})
	normal := newIngress("shop", "web", withPath("web.example", "/", "whoami", 80, ""))
	objs := append(backend("shop", "whoami", "10.0.0.1"), wide, legit, normal)

	res := translate(t, newMemSnapshot(objs...), nil)
	require.Len(t, res.Errors, 1, "%v", errorStrings(res.Errors))
	e := res.Errors[0]
	assert.Equal(t, "Ingress", e.Kind)
	assert.Equal(t, "shop", e.Namespace)
	assert.Equal(t, "wide", e.Name)
	assert.Equal(t, "metadata.annotations["+ann("router.middlewares")+"]", e.Field)
	assert.Equal(t, SeverityError, e.Severity)
	assert.Regexp(t, `^2000 routers would each copy the 251999 bytes of this annotation: about 5\d{8} bytes of configuration \(5\d{8} of them copies of it\), over maxIngressOutput \(8388608 bytes\) \(the Ingress is skipped\)$`, e.Err.Error())

	assert.Equal(t, 0, routersJSON(t, res, "wide"), "no router of the oversized Ingress")
	assert.Contains(t, res.Configuration.HTTP.Routers, "shop-web-web-example")
	assert.Len(t, res.Configuration.HTTP.Routers, 1_001, "the legitimate Ingress and the normal one")
	size := routersJSON(t, res, "site")
	assert.Less(t, int64(size)*10, int64(DefaultMaxIngressOutput), "1,000 paths with middlewares and TLS are far below the default (%d bytes)", size)
	t.Logf("1,000 paths with four middlewares and TLS: %d bytes of routers", size)

	// A limit below the legitimate Ingress refuses it too; 0 is the default.
	opts := benchOptions()
	opts.MaxIngressOutput = int64(size) - 1
	res = translate(t, newMemSnapshot(objs...), opts)
	require.Len(t, res.Errors, 2)
	assert.Equal(t, "site", res.Errors[0].Name)
	assert.Equal(t, "spec.rules", res.Errors[0].Field, "no copy makes most of its size")
	assert.Len(t, res.Configuration.HTTP.Routers, 1)
	opts.MaxIngressOutput = 0
	assert.Len(t, translate(t, newMemSnapshot(objs...), opts).Errors, 1)
}

// TestOversizedHostNamed: when a rule's host is what its paths copy the
// most, the error names the host.
func TestOversizedHostNamed(t *testing.T) {
	host := strings.Repeat("h", 10_000) + ".example"
	ing := manyPaths("apps", "hosts", host, "whoami", 500, nil)
	opts := benchOptions()
	opts.MaxIngressOutput = 1 << 20
	res := translate(t, newMemSnapshot(append(backend("apps", "whoami", "10.0.0.1"), ing)...), opts)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "spec.rules[0].host", res.Errors[0].Field)
	assert.Contains(t, res.Errors[0].Err.Error(), "500 routers would each copy the 10008 bytes of this host")
	assert.Empty(t, res.Configuration.HTTP.Routers)
}

// TestPlanBuildsNoRouterOverTheLimit: the plan of an Ingress, which the
// client makes when it arrives, builds no router for an Ingress the
// renders refuse, and says why.
func TestPlanBuildsNoRouterOverTheLimit(t *testing.T) {
	wide := manyPaths("shop", "wide", "wide.example", "whoami", 200, map[string]string{ann("router.middlewares"): middlewareNames(5_000)})
	pl := planIngress(wide, planOptions{maxOutput: DefaultMaxIngressOutput}, nil)
	require.True(t, pl.skipped)
	require.Empty(t, pl.paths, "no router built")
	require.Len(t, pl.errs, 1)
	assert.Contains(t, pl.errs[0].Err.Error(), "over maxIngressOutput")
	pl = planIngress(wide, planOptions{maxOutput: 1 << 30}, nil)
	require.Len(t, pl.paths, 200)
	require.NotNil(t, pl.paths[0].router)
}

// TestIncrementalOversizedIngress: an Ingress that grows over the limit
// is skipped by the incremental render as by a full one, and routed again
// when it shrinks; the others are served throughout.
func TestIncrementalOversizedIngress(t *testing.T) {
	steps := newRenderSteps(t, 4)
	ings := steps.ingresses(churnNS)
	ctx := steps.ctx
	svc := clustergen.Name(1)
	routed := func(res *Result, name string) bool {
		return routersJSON(t, res, name) > 0
	}

	small := manyPaths(churnNS, "wide", "wide.example", svc, 200, map[string]string{ann("router.middlewares"): "a@file,b@file"})
	for i := range small.Spec.Rules[0].HTTP.Paths {
		small.Spec.Rules[0].HTTP.Paths[i].Backend.Service.Port = netv1.ServiceBackendPort{Name: "http"}
	}
	res := steps.check("a large Ingress", withErr(ings.Create(ctx, small, metav1.CreateOptions{})))
	require.True(t, routed(res, "wide"))
	others := len(res.Configuration.HTTP.Routers) - 200

	wide := small.DeepCopy()
	wide.Annotations[ann("router.middlewares")] = middlewareNames(5_000) // 200 x 60 KB
	res = steps.check("grown over the limit", withErr(ings.Update(ctx, wide, metav1.UpdateOptions{})))
	require.Zero(t, steps.r.Stats().Reassembled, "an incremental render")
	assert.False(t, routed(res, "wide"))
	assert.Equal(t, others, len(res.Configuration.HTTP.Routers), "the other Ingresses are served")
	var found bool
	for _, e := range res.Errors {
		if e.Name == "wide" {
			found = true
			assert.Equal(t, "metadata.annotations["+ann("router.middlewares")+"]", e.Field)
			assert.Contains(t, e.Err.Error(), "200 routers would each copy the 59999 bytes of this annotation")
		}
	}
	require.True(t, found, "%v", errorStrings(res.Errors))

	res = steps.check("shrunk", withErr(ings.Update(ctx, small, metav1.UpdateOptions{})))
	assert.True(t, routed(res, "wide"))
	for _, e := range res.Errors {
		assert.NotEqual(t, "wide", e.Name, e.Error())
	}
}

func TestMaxIngressOutputOption(t *testing.T) {
	p := &Provider{}
	p.SetDefaults()
	assert.Equal(t, int64(DefaultMaxIngressOutput), p.MaxIngressOutput)
	require.NoError(t, p.Validate())
	p.MaxIngressOutput = 0
	require.NoError(t, p.Validate())
	assert.Equal(t, int64(DefaultMaxIngressOutput), p.maxIngressOutput(), "0 is the default")
	p.MaxIngressOutput = -1
	assert.EqualError(t, p.Validate(), "maxIngressOutput -1: must not be negative (0 is the default, 8388608 bytes)")
	assert.ErrorContains(t, p.Init(), "maxIngressOutput -1")
}
