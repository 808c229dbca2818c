package static

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// With no provider configured the Traefik-style one runs, unless a source
// switched it off: paerser leaves a section given false unset, and the
// default must not turn it back on.
func TestEnableDefaultKeepsASwitchedOffProvider(t *testing.T) {
	p := New().Providers
	p.EnableDefault()
	assert.NotNil(t, p.KubernetesIngress, "the default")

	p = New().Providers
	p.SwitchOff("kubernetesIngressNGINX")
	p.EnableDefault()
	assert.NotNil(t, p.KubernetesIngress, "another provider's false leaves the default on")

	p = New().Providers
	p.SwitchOff("kubernetesIngress")
	p.EnableDefault()
	assert.Nil(t, p.KubernetesIngress, "switched off, it stays off")
	assert.Nil(t, p.KubernetesIngressNGINX)
}
