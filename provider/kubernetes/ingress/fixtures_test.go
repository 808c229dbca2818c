package ingress

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

var update = flag.Bool("update", false, "rewrite the expected files of the fixtures from the current output")

const fixturesDir = "../../../fixtures"

// A fixture case is a directory of fixtures/ holding:
//   - manifests.yaml: the input objects, multi-document YAML as kubectl takes it;
//   - options.yaml (optional): the provider options, as in a configuration file;
//   - expected.yaml: the configuration the provider must render;
//   - errors.txt (optional): the errors and warnings it must report, one a line.
//
// go test ./provider/kubernetes/ingress -run TestFixtures -update rewrites
// expected.yaml and errors.txt after a deliberate change; review the diff.
func TestFixtures(t *testing.T) {
	runFixtures(t, "", func(t *testing.T, dir string) map[string]string {
		conf, errs := renderFixture(t, dir)
		return map[string]string{"expected.yaml": conf, "errors.txt": errs}
	})
}

// runFixtures runs each case of fixtures/<sub>/ (of fixtures/ itself for
// ""): render gives its golden files by name, each of which checkGolden
// checks (or writes, with -update).
func runFixtures(t *testing.T, sub string, render func(t *testing.T, dir string) map[string]string) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, sub, "*", "manifests.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs, "no fixture cases found in fixtures/%s", sub)
	for _, file := range dirs {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			for name, got := range render(t, dir) {
				checkGolden(t, filepath.Join(dir, name), got)
			}
		})
	}
}

// renderFixture renders one case through the in-memory cluster and the
// informer path, as `sliceway render --manifests` does.
func renderFixture(t *testing.T, dir string) (conf, errs string) {
	t.Helper()
	opts, cs, problems := loadFixture(t, dir)
	conf, errs, _ = renderCase(t, dir, opts, ClientOptions{}, cs, problems)
	return conf, errs
}

// renderCase renders the case of dir with opts on cs (and the client
// options copts adds, such as the Gateway API's clientset), whose
// manifests had problems: the configuration as YAML, and the errors a
// line each, from the result res.
func renderCase(t *testing.T, dir string, opts *Provider, copts ClientOptions, cs kubernetes.Interface, problems []*manifests.Error) (conf, errs string, res *Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	copts.Namespaces, copts.LabelSelector, copts.WatchNodes = opts.Namespaces, opts.LabelSelector, true
	res, err := RenderOnce(ctx, cs, opts, copts, 20*time.Second)
	require.NoError(t, err)

	out, err := dynamic.MarshalYAML(res.Configuration)
	require.NoError(t, err)
	// watch --output writes the same text, entry by entry.
	var enc dynamic.YAMLEncoder
	for range 2 {
		again, err := enc.Encode(res.Configuration)
		require.NoError(t, err)
		require.Equal(t, string(out), string(again), "the YAML encoder's text")
	}

	var lines []string
	for _, p := range problems {
		sev := "error"
		if p.Warning {
			sev = "warning"
		}
		lines = append(lines, sev+": "+strings.ReplaceAll(p.Error(), dir+string(filepath.Separator), ""))
	}
	for _, e := range res.Errors {
		sev := "error"
		if e.Severity == SeverityWarning {
			sev = "warning"
		}
		lines = append(lines, sev+": "+e.Error())
	}
	if len(lines) > 0 {
		errs = strings.Join(lines, "\n") + "\n"
	}
	return string(out), errs, res
}

// loadFixture reads the options of a case and serves its manifests from an
// in-memory cluster; problems are those of the manifests.
func loadFixture(t *testing.T, dir string) (*Provider, kubernetes.Interface, []*manifests.Error) {
	t.Helper()
	opts := &Provider{}
	opts.SetDefaults()
	if data, err := os.ReadFile(filepath.Join(dir, "options.yaml")); err == nil {
		require.NoError(t, yaml.UnmarshalStrict(data, opts), "options.yaml")
	}
	require.NoError(t, opts.Validate())

	objs, problems := manifests.Read([]string{filepath.Join(dir, "manifests.yaml")}, manifests.IsUsedKind)
	cs, more := manifests.NewFakeCluster(objs)
	return opts, cs, append(problems, more...)
}

// checkGolden compares got with the file; an empty got means the file must
// not exist. With -update it writes the file instead.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if got == "" {
			require.NoError(t, removeIfExists(path))
			return
		}
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		assert.Empty(t, got, "%s does not exist, so nothing is expected there", filepath.Base(path))
		return
	}
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "%s differs (rerun with -update after a deliberate change)", filepath.Base(path))
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
