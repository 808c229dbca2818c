package ingress

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

// TestCrossProviderNamespacesOption: an empty entry is refused by name
// (it names no namespace); the options a plan and a load balancer are
// made with compare equal for the same namespaces in any order, so the
// client's index hands its plans and load balancers to the renders, and
// differ between unset, empty and a list, so none is taken across them.
func TestCrossProviderNamespacesOption(t *testing.T) {
	p := &Provider{}
	p.SetDefaults()
	assert.Nil(t, p.CrossProviderNamespaces, "unset by default: every namespace may name other providers' objects, as in Traefik")
	p.CrossProviderNamespaces = []string{"platform", " "}
	assert.EqualError(t, p.Validate(), "crossProviderNamespaces: empty entry (an empty list, [], allows no namespace)")
	p.CrossProviderNamespaces = []string{}
	assert.NoError(t, p.Validate())

	with := func(names []string) *Provider {
		p := &Provider{}
		p.SetDefaults()
		p.CrossProviderNamespaces = names
		return p
	}
	a, b := with([]string{"ops", "platform"}), with([]string{"platform", "ops"})
	assert.Equal(t, newPlanOptions(a), newPlanOptions(b))
	assert.True(t, newLBOptions(a).Same(newLBOptions(b)))
	for _, other := range []*Provider{with(nil), with([]string{}), with([]string{"ops"})} {
		assert.NotEqual(t, newPlanOptions(a), newPlanOptions(other), other.CrossProviderNamespaces)
		assert.False(t, newLBOptions(a).Same(newLBOptions(other)), other.CrossProviderNamespaces)
	}
}

// What an embedding program sees through Translate: each refused
// annotation is an ObjectError on its Ingress or Service, naming the
// field, that errors.Is matches to the exported error; the Ingress next
// to them is served.
func TestCrossProviderErrorsThroughTranslate(t *testing.T) {
	ann := testobjects.Annotation
	objs := append(testobjects.Backend("tenant", "web", "10.0.0.1"),
		testobjects.NewIngress("tenant", "nginx-mw", testobjects.WithAnnotation(ann("router.middlewares"), "nginx_shop-app_basic-auth"),
			testobjects.WithPath("a.example", "/", "web", 80, "")),
		testobjects.NewIngress("tenant", "file-mw", testobjects.WithAnnotation(ann("router.middlewares"), "auth@file"),
			testobjects.WithPath("b.example", "/", "web", 80, "")),
		testobjects.NewIngress("tenant", "plain", testobjects.WithPath("c.example", "/", "web", 80, "")),
	)
	opts := &Provider{}
	opts.SetDefaults()
	opts.CrossProviderNamespaces = []string{"platform"}
	res := translateOnce(t, testobjects.NewSnapshot(objs...), opts)

	assert.Equal(t, []string{"tenant-plain-c-example"}, slices.Sorted(maps.Keys(res.Configuration.HTTP.Routers)))
	require.Len(t, res.Errors, 2, errorStrings(res.Errors))
	byName := map[string]*ObjectError{}
	for _, e := range res.Errors {
		byName[e.Name] = e
	}
	field := "metadata.annotations[" + ann("router.middlewares") + "]"
	if e := byName["nginx-mw"]; assert.NotNil(t, e) {
		assert.Equal(t, field, e.Field)
		assert.ErrorIs(t, e, ErrIngressNGINXObject)
	}
	if e := byName["file-mw"]; assert.NotNil(t, e) {
		assert.Equal(t, field, e.Field)
		assert.ErrorIs(t, e, ErrCrossProviderNamespace)
		assert.NotErrorIs(t, e, ErrIngressNGINXObject)
	}
}
