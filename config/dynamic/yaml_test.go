package dynamic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
)

func TestMarshalYAML(t *testing.T) {
	weight := 0
	lb := NewServersLoadBalancer()
	lb.Servers = []Server{{URL: "http://10.0.0.1:80"}, {URL: "http://[fd00::1]:80", Weight: &weight, Fenced: true}}
	long := "default-app-" + strings.Repeat("a", 1100) // a router named after a long path
	conf := &Configuration{HTTP: &HTTPConfiguration{
		Routers: map[string]*Router{
			long: {Rule: `PathPrefix("/")`, Priority: -2147483648, Service: "80"},
			"b":  {Rule: `Host("b")`, Service: "true"},
		},
		Services: map[string]*Service{"s": {LoadBalancer: lb}},
	}}
	out, err := MarshalYAML(conf)
	require.NoError(t, err)
	text := string(out)
	assert.Contains(t, text, "priority: -2147483648\n", "numbers stay numbers")
	assert.Contains(t, text, `service: "80"`, "strings that look like numbers stay strings")
	assert.Contains(t, text, `service: "true"`)
	assert.Contains(t, text, "flushInterval: 100ms")
	assert.Less(t, strings.Index(text, "  b:\n"), strings.Index(text, long), "keys are sorted")

	var back struct {
		HTTP struct {
			Routers  map[string]Router
			Services map[string]struct {
				LoadBalancer struct{ Servers []map[string]any } `yaml:"loadBalancer"`
			}
		}
	}
	require.NoError(t, yaml.Unmarshal(out, &back))
	require.Contains(t, back.HTTP.Routers, long, "a key over 1024 bytes is written as YAML can read it back")
	assert.Equal(t, -2147483648, back.HTTP.Routers[long].Priority)
	assert.Equal(t, []map[string]any{{"url": "http://10.0.0.1:80"}, {"url": "http://[fd00::1]:80", "weight": 0, "fenced": true}},
		back.HTTP.Services["s"].LoadBalancer.Servers)
}
