package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func translateOnce(t *testing.T, snap Snapshot, opts *Provider) *Result {
	t.Helper()
	if opts == nil {
		opts = &Provider{}
		opts.SetDefaults()
	}
	res := Translate(snap, opts)
	require.NotNil(t, res)
	require.NotNil(t, res.Configuration)
	require.NotNil(t, res.Configuration.HTTP)
	return res
}

func errorStrings(errs []*ObjectError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// serviceName is the name of the load balancer of a Service port in the
// configuration, as Traefik's provider names it.
func serviceName(namespace, service, port string) string {
	return Normalize(namespace + "-" + service + "-" + port)
}
