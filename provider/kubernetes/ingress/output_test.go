package ingress

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/internal/clustergen"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

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

// TestOversizedIngressSkipped: the Ingress of the finding (2,000 paths
// that each copy a 252 KB router.middlewares annotation) is skipped with
// an error naming it, the annotation and the numbers; a normal Ingress
// next to it is routed, and so is a large legitimate one.
func TestOversizedIngressSkipped(t *testing.T) {
	names := testobjects.MiddlewareNames(21_000)
	require.Len(t, names, 251_999)
	wide := testobjects.ManyPaths("shop", "wide", "wide.example", "whoami", 2_000, map[string]string{testobjects.Annotation("router.middlewares"): names})
	legit := testobjects.ManyPaths("shop", "site", "www.example.com", "whoami", 1_000, map[string]string{
		testobjects.Annotation("router.middlewares"):      "shop-auth@kubernetescrd,shop-strip@kubernetescrd,compress@file,headers@file",
		testobjects.Annotation("router.entrypoints"):      "websecure",
		testobjects.Annotation("router.tls"):              "true",
		testobjects.Annotation("router.tls.certresolver"): "letsencrypt",
		testobjects.Annotation("router.tls.options"):      "shop-modern@kubernetescrd",
	})
	normal := testobjects.NewIngress("shop", "web", testobjects.WithPath("web.example", "/", "whoami", 80, ""))
	objs := append(testobjects.Backend("shop", "whoami", "10.0.0.1"), wide, legit, normal)

	res := translateOnce(t, testobjects.NewSnapshot(objs...), nil)
	require.Len(t, res.Errors, 1, "%v", errorStrings(res.Errors))
	e := res.Errors[0]
	assert.Equal(t, "Ingress", e.Kind)
	assert.Equal(t, "shop", e.Namespace)
	assert.Equal(t, "wide", e.Name)
	assert.Equal(t, "metadata.annotations["+testobjects.Annotation("router.middlewares")+"]", e.Field)
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
	res = translateOnce(t, testobjects.NewSnapshot(objs...), opts)
	require.Len(t, res.Errors, 2)
	assert.Equal(t, "site", res.Errors[0].Name)
	assert.Equal(t, "spec.rules", res.Errors[0].Field, "no copy makes most of its size")
	assert.Len(t, res.Configuration.HTTP.Routers, 1)
	opts.MaxIngressOutput = 0
	assert.Len(t, translateOnce(t, testobjects.NewSnapshot(objs...), opts).Errors, 1)
}

// TestOversizedHostNamed: when a rule's host is what its paths copy the
// most, the error names the host.
func TestOversizedHostNamed(t *testing.T) {
	host := strings.Repeat("h", 10_000) + ".example"
	ing := testobjects.ManyPaths("apps", "hosts", host, "whoami", 500, nil)
	opts := benchOptions()
	opts.MaxIngressOutput = 1 << 20
	res := translateOnce(t, testobjects.NewSnapshot(append(testobjects.Backend("apps", "whoami", "10.0.0.1"), ing)...), opts)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "spec.rules[0].host", res.Errors[0].Field)
	assert.Contains(t, res.Errors[0].Err.Error(), "500 routers would each copy the 10008 bytes of this host")
	assert.Empty(t, res.Configuration.HTTP.Routers)
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

	small := testobjects.ManyPaths(churnNS, "wide", "wide.example", svc, 200, map[string]string{testobjects.Annotation("router.middlewares"): "a@file,b@file"})
	for i := range small.Spec.Rules[0].HTTP.Paths {
		small.Spec.Rules[0].HTTP.Paths[i].Backend.Service.Port = netv1.ServiceBackendPort{Name: "http"}
	}
	res := steps.check("a large Ingress", withErr(ings.Create(ctx, small, metav1.CreateOptions{})))
	require.True(t, routed(res, "wide"))
	others := len(res.Configuration.HTTP.Routers) - 200

	wide := small.DeepCopy()
	wide.Annotations[testobjects.Annotation("router.middlewares")] = testobjects.MiddlewareNames(5_000) // 200 x 60 KB
	res = steps.check("grown over the limit", withErr(ings.Update(ctx, wide, metav1.UpdateOptions{})))
	require.Zero(t, steps.r.Stats().Reassembled, "an incremental render")
	assert.False(t, routed(res, "wide"))
	assert.Equal(t, others, len(res.Configuration.HTTP.Routers), "the other Ingresses are served")
	var found bool
	for _, e := range res.Errors {
		if e.Name == "wide" {
			found = true
			assert.Equal(t, "metadata.annotations["+testobjects.Annotation("router.middlewares")+"]", e.Field)
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
