package ingress

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRouterPriorityOption: spec priorities unless routerPriority is
// ruleLength, in either case; another value is refused by name.
func TestRouterPriorityOption(t *testing.T) {
	for value, spec := range map[string]bool{"": true, "spec": true, "Spec": true, "ruleLength": false, "rulelength": false} {
		p := &Provider{}
		p.SetDefaults()
		p.RouterPriority = value
		assert.NoError(t, p.Validate(), value)
		assert.Equal(t, spec, p.specPriorities(), value)
	}
	p := &Provider{}
	p.SetDefaults()
	assert.Equal(t, RouterPrioritySpec, p.RouterPriority, "the default")
	p.RouterPriority = "length"
	assert.EqualError(t, p.Validate(), `routerPriority "length": must be spec or ruleLength`)
}
