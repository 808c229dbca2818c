package ingress

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// checkParts checks the render state the next renders build on
// (Renderer.CheckState) after what.
func checkParts(t *testing.T, r *Renderer, what string) {
	t.Helper()
	require.NoError(t, r.CheckState(), "after %s", what)
}
