package ingress

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
