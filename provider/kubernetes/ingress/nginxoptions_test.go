package ingress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An allowedAuthHosts entry that can never match a URL's host (it has a
// port, a scheme or a path) stops the start rather than hide the
// operator's mistake behind closed Ingresses.
func TestNGINXAllowedAuthHostsAreChecked(t *testing.T) {
	p := &NGINXProvider{}
	p.SetDefaults()
	p.AllowedAuthHosts = []string{"127.0.0.1", "[::1]", "auth.localhost"}
	require.NoError(t, p.Validate())

	p.AllowedAuthHosts = []string{"127.0.0.1:9000"}
	err := p.Validate()
	require.Error(t, err)
	assert.Equal(t, `allowedAuthHosts: "127.0.0.1:9000": must be a host name or an IP address, without scheme, port or path`, err.Error())
}

// The options reach the dialect, copied: a later change of the
// provider's list changes nothing of a running translation.
func TestNGINXRefusalOptionsReachTheDialect(t *testing.T) {
	p := &NGINXProvider{}
	p.SetDefaults()
	p.DropSnippets = true
	p.AllowedAuthHosts = []string{"127.0.0.1"}
	require.NoError(t, p.Init())
	d, ok := p.dialect.(*nginxDialect)
	require.True(t, ok)
	assert.True(t, d.opts.DropSnippets)
	p.AllowedAuthHosts[0] = "10.0.0.1"
	assert.Equal(t, []string{"127.0.0.1"}, d.opts.AllowedAuthHosts)
}
