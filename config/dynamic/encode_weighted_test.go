package dynamic

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A weighted service (an ingress-nginx canary's) is written by both
// encoders as Traefik's file provider reads it, a weight of 0 included.
func TestEncodersWriteWeightedServices(t *testing.T) {
	main, canary := 100, 0
	c := &Configuration{HTTP: &HTTPConfiguration{Services: map[string]*Service{
		"split": {Weighted: &WeightedRoundRobin{Services: []WRRService{{Name: "main", Weight: &main}, {Name: "canary", Weight: &canary}}}},
	}}}
	var je JSONEncoder
	text, err := je.Encode(c)
	require.NoError(t, err)
	assert.Contains(t, string(text), `"split":{"weighted":{"services":[{"name":"main","weight":100},{"name":"canary","weight":0}]}}`)
	assert.Equal(t, referenceJSON(t, c), string(text))

	var ye YAMLEncoder
	ytext, err := ye.Encode(c)
	require.NoError(t, err)
	want, err := MarshalYAML(c)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(ytext))
	assert.Contains(t, string(ytext), "    split:\n      weighted:\n        services:\n          - name: main\n            weight: 100\n          - name: canary\n            weight: 0\n")
}
