package translate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
)

// fixturesDir holds the fixture cases of the repository.
const fixturesDir = "../../../../../fixtures"

// fixtureObjects decodes every fixture's manifests.yaml, for seed corpora.
func fixtureObjects(f *testing.F) []k8s.Object {
	files, err := filepath.Glob(filepath.Join(fixturesDir, "*", "manifests.yaml"))
	require.NoError(f, err)
	require.NotEmpty(f, files)
	var objs []k8s.Object
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		o, _ := k8s.DecodeManifest(file, data, k8s.IsUsedKind)
		objs = append(objs, o...)
	}
	return objs
}
