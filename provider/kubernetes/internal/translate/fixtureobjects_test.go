package translate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
	"github.com/stretchr/testify/require"
)

// fixturesDir holds the fixture cases of the repository.
const fixturesDir = "../../../../fixtures"

// fixtureObjects decodes every fixture's manifests.yaml, for seed corpora.
func fixtureObjects(f *testing.F) []manifests.Object {
	files, err := filepath.Glob(filepath.Join(fixturesDir, "*", "manifests.yaml"))
	require.NoError(f, err)
	require.NotEmpty(f, files)
	var objs []manifests.Object
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		o, _ := manifests.Decode(file, data, manifests.IsUsedKind)
		objs = append(objs, o...)
	}
	return objs
}
