package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A small stand-in for Traefik's kubernetes_test.go: the table test, a
// helper and another test that must not be copied, an import only they use.
const nginxTraefikLike = `package ingressnginx

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/traefik/traefik/v3/pkg/config/dynamic"
)

func TestLoadIngresses(t *testing.T) {
	testCases := []struct {
		desc     string
		expected *dynamic.Configuration
	}{{desc: "one"}}

	for _, test := range testCases {
		t.Run(test.desc, func(t *testing.T) {
			conf := &dynamic.Configuration{}
			assert.Equal(t, test.expected, conf)
		})
	}
}

func TestOther(t *testing.T) { _ = os.Getenv("X") }

func readResources() {}
`

func TestRewriteNGINXHooksTheTable(t *testing.T) {
	out, err := rewriteNGINX("kubernetes_test.go", []byte(nginxTraefikLike))
	require.NoError(t, err)
	text := string(out)
	assert.Contains(t, text, "func TestSlicewayNGINXTable(t *testing.T) {")
	assert.Contains(t, text, "slicewayNGINXTableCases(t, testCases)\n\n\tfor _, test := range testCases {")
	assert.Contains(t, text, "slicewayNGINXTableCase(t, test, conf)")
	for _, gone := range []string{"func TestLoadIngresses", "TestOther", "readResources", "assert.", `"os"`, "testify/assert"} {
		assert.NotContains(t, text, gone)
	}
	assert.Contains(t, text, `"github.com/traefik/traefik/v3/pkg/config/dynamic"`)
}

func TestRewriteNGINXFailsWithoutItsAnchors(t *testing.T) {
	for name, src := range map[string]string{
		"no table test":  strings.Replace(nginxTraefikLike, "TestLoadIngresses", "TestLoadIngressesV2", 1),
		"no assertion":   strings.Replace(nginxTraefikLike, "assert.Equal(t, test.expected, conf)", "assert.Equal(t, conf, test.expected)", 1),
		"no table loop":  strings.Replace(nginxTraefikLike, "range testCases", "range cases", 1),
		"two assertions": strings.Replace(nginxTraefikLike, "assert.Equal(t, test.expected, conf)", "assert.Equal(t, test.expected, conf)\n\t\t\tassert.Equal(t, test.expected, conf)", 1),
	} {
		_, err := rewriteNGINX("kubernetes_test.go", []byte(src))
		assert.Error(t, err, name)
	}
}
