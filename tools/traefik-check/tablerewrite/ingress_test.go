package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A small stand-in for Traefik's kubernetes_test.go: a table whose client
// is a variable, one that makes it in place with its own assertions, a
// test and a helper that must not be copied, an import only they use.
const ingressTraefikLike = `package ingress

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/traefik/traefik/v3/pkg/config/dynamic"
)

func TestLoadConfigurationFromIngresses(t *testing.T) {
	testCases := []struct {
		desc     string
		expected *dynamic.Configuration
	}{{desc: "one"}}

	for _, test := range testCases {
		t.Run(test.desc, func(t *testing.T) {
			clientMock := newClientMock(generateTestFilename(test.desc))
			p := Provider{}
			conf := p.loadConfigurationFromIngresses(t.Context(), clientMock)
			assert.Equal(t, test.expected, conf)
		})
	}
}

func TestLoadConfigurationFromIngressesWithOption(t *testing.T) {
	testCases := []struct {
		desc string
		path string
	}{{desc: "two", path: "fixtures/x.yml"}}

	for _, test := range testCases {
		t.Run(test.desc, func(t *testing.T) {
			prov := Provider{}
			conf := prov.loadConfigurationFromIngresses(t.Context(), newClientMock(test.path))
			assert.NotNil(t, conf)
		})
	}
}

func TestOther(t *testing.T) { _ = os.Getenv("X") }

func generateTestFilename(desc string) string { return desc }
`

func TestRewriteIngressHooksEveryTable(t *testing.T) {
	out, err := rewriteIngress("kubernetes_test.go", []byte(ingressTraefikLike))
	require.NoError(t, err)
	text := string(out)
	assert.Contains(t, text, "func TestSlicewayIngressTable(t *testing.T) {\n\tslicewayIngressTables(t)\n"+
		"\tt.Run(\"TestLoadConfigurationFromIngresses\", slicewayTestLoadConfigurationFromIngresses)\n"+
		"\tt.Run(\"TestLoadConfigurationFromIngressesWithOption\", slicewayTestLoadConfigurationFromIngressesWithOption)\n}")
	assert.Equal(t, 2, strings.Count(text, "slicewayIngressTableCases(t, testCases)\n\n\tfor _, test := range testCases {"))
	assert.Contains(t, text, "conf := p.loadConfigurationFromIngresses(t.Context(), clientMock)\n\t\t\tslicewayIngressTableCase(t, test, &p, conf, generateTestFilename(test.desc))\n")
	assert.Contains(t, text, "slicewayIngressTableCase(t, test, &prov, conf, test.path)\n\t\t\tassert.NotNil(t, conf)")
	// Traefik's own assertions stay.
	assert.Contains(t, text, "assert.Equal(t, test.expected, conf)")
	for _, gone := range []string{"func TestLoadConfigurationFromIngresses(", "TestOther", "func generateTestFilename", `"os"`} {
		assert.NotContains(t, text, gone)
	}
	assert.Contains(t, text, `"github.com/traefik/traefik/v3/pkg/config/dynamic"`)
}

func TestRewriteIngressFailsWithoutItsAnchors(t *testing.T) {
	for name, src := range map[string]string{
		"no table test":         strings.ReplaceAll(ingressTraefikLike, "TestLoadConfigurationFromIngresses", "TestLoadIngresses"),
		"no table loop":         strings.Replace(ingressTraefikLike, "range testCases", "range cases", 1),
		"no load":               strings.Replace(ingressTraefikLike, "conf := p.loadConfigurationFromIngresses", "conf := p.load", 1),
		"two loads":             strings.Replace(ingressTraefikLike, "assert.Equal(t, test.expected, conf)", "conf = p.loadConfigurationFromIngresses(t.Context(), clientMock)\n\t\t\tconf2 := p.loadConfigurationFromIngresses(t.Context(), clientMock)", 1),
		"no fixture":            strings.Replace(ingressTraefikLike, "clientMock := newClientMock(generateTestFilename(test.desc))", "clientMock := otherClient()", 1),
		"client from elsewhere": strings.Replace(ingressTraefikLike, "newClientMock(test.path)", "clients[0]", 1),
	} {
		_, err := rewriteIngress("kubernetes_test.go", []byte(src))
		assert.Error(t, err, name)
	}
}
