package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func translate(t *testing.T, snap Snapshot, opts *Provider) *Result {
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
