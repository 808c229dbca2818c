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
	runFixtures(t, "nginx", func(t *testing.T, dir string) map[string]string {
		conf, errs := renderNGINXFixture(t, dir)
		return map[string]string{"expected.yaml": conf, "errors.txt": errs}
	})
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
