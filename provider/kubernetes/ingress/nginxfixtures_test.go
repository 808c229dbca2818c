package ingress

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// TestNGINXFixtures renders the cases of fixtures/nginx/ with the
// ingress-nginx provider, as TestFixtures does those of fixtures/ with the
// Traefik-style one: options.yaml holds NGINXProvider's options.
func TestNGINXFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "nginx", "*", "manifests.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs, "no ingress-nginx fixture cases found")
	for _, file := range dirs {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			gotConf, gotErrs := renderNGINXFixture(t, dir)
			checkGolden(t, filepath.Join(dir, "expected.yaml"), gotConf)
			checkGolden(t, filepath.Join(dir, "errors.txt"), gotErrs)
		})
	}
}

// loadNGINXFixture reads the options of an ingress-nginx case.
func loadNGINXFixture(t *testing.T, dir string) *NGINXProvider {
	t.Helper()
	opts := &NGINXProvider{}
	opts.SetDefaults()
	if data, err := os.ReadFile(filepath.Join(dir, "options.yaml")); err == nil {
		require.NoError(t, yaml.UnmarshalStrict(data, opts), "options.yaml")
	}
	require.NoError(t, opts.Init())
	return opts
}

// renderNGINXFixture renders one ingress-nginx case through the
// in-memory cluster and the informer path.
func renderNGINXFixture(t *testing.T, dir string) (conf, errs string) {
	t.Helper()
	opts := loadNGINXFixture(t, dir)
	objs, problems := manifests.Read([]string{filepath.Join(dir, "manifests.yaml")}, manifests.IsUsedKind)
	cs, more := manifests.NewFakeCluster(objs)
	conf, errs, _ = renderCase(t, dir, &opts.Provider, ClientOptions{}, cs, append(problems, more...))
	return conf, errs
}
