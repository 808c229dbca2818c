package manifests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongValuesInManifestErrors: a manifest's problem about a value of
// 250,000 bytes quotes its start and says its length, in a line of a few
// hundred bytes.
func TestLongValuesInManifestErrors(t *testing.T) {
	long := strings.Repeat("x", 250_000)
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"kind", "apiVersion: example.com/v1\nkind: K" + long + "\nmetadata: {name: x}\n",
			"warning: m.yaml: document 1: example.com/v1 K" + long[:255] + "... (250,001 bytes) is not used, skipped"},
		{"apiVersion", "apiVersion: v" + long + "\nkind: Service\nmetadata: {name: x}\n",
			"warning: m.yaml: document 1: v" + long[:255] + "... (250,001 bytes) Service is not used, skipped"},
		{"name", svcDoc("n" + long),
			`error: m.yaml: document 1: Service: metadata.name "n` + long[:255] + `..." (250,001 bytes) is longer than 253 bytes`},
		{"namespace", "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: n" + long + "}\n",
			`error: m.yaml: document 1: Service: metadata.namespace "n` + long[:255] + `..." (250,001 bytes) is longer than 63 bytes`},
		{"port", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: \"" + long + "\"}]}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, problems := Decode("m.yaml", []byte(tc.doc), IsUsedKind)
			assert.Empty(t, objs)
			lines := problemLines(problems)
			require.Len(t, lines, 1)
			assert.Less(t, len(lines[0]), 1024, "%.600s", lines[0])
			if tc.want != "" {
				assert.Equal(t, tc.want, lines[0])
			}
		})
	}

	// The longest names Kubernetes allows are still read.
	objs, problems := Decode("m.yaml", []byte("apiVersion: v1\nkind: Service\nmetadata: {name: "+strings.Repeat("n", 253)+", namespace: "+strings.Repeat("s", 63)+"}\n"), IsUsedKind)
	assert.Empty(t, problems)
	assert.Len(t, objs, 1)
}
