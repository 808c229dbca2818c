package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// binary is the sliceway binary built once for these tests, so that they run
// what a user runs: flags, environment, exit status, stdout and stderr.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sliceway-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "sliceway")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building sliceway: " + err.Error())
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

type runResult struct {
	stdout, stderr string
	code           int
}

// run runs the binary in an empty working directory with a clean
// environment (no kubeconfig, no SLICEWAY_ variables) plus env.
func run(t *testing.T, env []string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"HOME=" + cmd.Dir, "PATH=" + os.Getenv("PATH")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return runResult{stdout.String(), stderr.String(), code}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// asGeneric decodes JSON or YAML into plain values, to compare documents
// whatever their format.
func asGeneric(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal(data, &v))
	return v
}

func TestRenderDemoMatchesItsFixture(t *testing.T) {
	want, err := os.ReadFile("../../fixtures/demo/expected.yaml")
	require.NoError(t, err)

	// No cluster configured and no manifests: the demo is rendered.
	res := run(t, nil, "render")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, asGeneric(t, want), asGeneric(t, []byte(res.stdout)))
	assert.Contains(t, res.stderr, "rendering the bundled demo cluster")
	// Said once: the object and the field as fields, the problem as the message.
	assert.Contains(t, res.stderr, "ERR service demo/blog not found field=spec.rules[0].http.paths[0].backend.service ingress=blog namespace=demo\n")

	// Explicitly, as YAML: byte-identical to the fixture.
	res = run(t, nil, "render", "--demo", "--format=yaml")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, string(want), res.stdout)
	assert.NotContains(t, res.stderr, "rendering the bundled demo cluster")
}

func TestRenderIsDeterministic(t *testing.T) {
	first := run(t, nil, "render", "--demo")
	require.Equal(t, 0, first.code, first.stderr)
	for range 3 {
		again := run(t, nil, "render", "--demo")
		require.Equal(t, first.stdout, again.stdout)
	}
	// JSON output is valid JSON with sorted keys and unescaped &&.
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(first.stdout), &v))
	assert.Contains(t, first.stdout, `&&`)
}

const oneIngress = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports: [{name: http, port: 80}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: shop
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
ports: [{name: http, port: 8080}]
endpoints:
  - addresses: [10.0.0.1]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop}
spec:
  rules:
    - host: web.example
      http:
        paths:
          - {path: /app, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`

func TestRenderManifestsFlagsEnvAndFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "cluster/app.yaml", oneIngress)
	writeFile(t, dir, "cluster/notes.txt", "not a manifest, not read")
	manifests := filepath.Join(dir, "cluster")

	check := func(t *testing.T, res runResult, rule string) {
		t.Helper()
		require.Equal(t, 0, res.code, res.stderr)
		var conf struct {
			HTTP struct {
				Routers map[string]struct{ Rule, Service string }
			}
		}
		require.NoError(t, yaml.Unmarshal([]byte(res.stdout), &conf))
		require.Contains(t, conf.HTTP.Routers, "shop-web-web-example-app")
		assert.Equal(t, rule, conf.HTTP.Routers["shop-web-web-example-app"].Rule)
		assert.Equal(t, "shop-web-http", conf.HTTP.Routers["shop-web-web-example-app"].Service)
	}
	const plain = `Host("web.example") && PathPrefix("/app")`
	const strict = `Host("web.example") && (Path("/app") || PathPrefix("/app/"))`

	t.Run("flags", func(t *testing.T) {
		check(t, run(t, nil, "render", "--manifests="+manifests), plain)
		check(t, run(t, nil, "render", "--manifests="+manifests, "--providers.kubernetesingress.strictprefixmatching=true"), strict)
		check(t, run(t, nil, "render", "--manifests="+manifests, "--providers.kubernetesIngress.strictPrefixMatching", "--format=yaml"), strict)
	})
	t.Run("environment", func(t *testing.T) {
		check(t, run(t, []string{
			"SLICEWAY_MANIFESTS=" + manifests,
			"SLICEWAY_PROVIDERS_KUBERNETESINGRESS_STRICTPREFIXMATCHING=true",
		}, "render"), strict)
	})
	t.Run("configfile", func(t *testing.T) {
		file := writeFile(t, dir, "sliceway.yaml", "manifests:\n  - "+manifests+"\nproviders:\n  kubernetesIngress:\n    strictPrefixMatching: true\n")
		check(t, run(t, nil, "render", "--configfile="+file), strict)
	})
}

func TestRenderBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", oneIngress)

	t.Run("a broken document names the file and document; the rest is rendered; exit 1", func(t *testing.T) {
		bad := writeFile(t, dir, "bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n---\nkind: [unclosed\n")
		res := run(t, nil, "render", "--manifests="+good+","+bad)
		assert.Equal(t, 1, res.code)
		assert.Contains(t, res.stderr, "document=2 file="+bad)
		assert.Contains(t, res.stderr, "v1 Pod is not used, skipped")
		assert.Contains(t, res.stdout, "shop-web-web-example-app")
		assert.NotContains(t, res.stderr, "goroutine ", "no stack trace")
	})
	t.Run("nothing usable", func(t *testing.T) {
		for _, content := range []string{"", "\x00\x01\x02binary", "just: [a, list"} {
			bad := writeFile(t, dir, "garbage.yaml", content)
			res := run(t, nil, "render", "--manifests="+bad)
			assert.Equal(t, 1, res.code, "content %q", content)
			assert.Contains(t, res.stderr, bad)
			assert.Empty(t, res.stdout)
			assert.NotContains(t, res.stderr, "goroutine ")
		}
	})
	t.Run("missing path", func(t *testing.T) {
		res := run(t, nil, "render", "--manifests="+filepath.Join(dir, "nope"))
		assert.Equal(t, 1, res.code)
		assert.Contains(t, res.stderr, "no such file or directory")
	})
	t.Run("bad options", func(t *testing.T) {
		for args, want := range map[string]string{
			"--format=xml": `format "xml": must be json or yaml`,
			"--providers.kubernetesingress.terminatingendpoints=sometimes": "terminatingEndpoints",
			"--providers.kubernetesingress.labelselector=a in (":           "labelSelector",
			"--providers.kubernetesingress.clientburst=-1":                 "clientBurst -1: must not be negative",
			"--providers.kubernetesingress.maxingressoutput=-1":            "maxIngressOutput -1: must not be negative",
			"--log.level=loud":    `log.level "loud"`,
			"--no-such-flag=true": "no-such-flag",
		} {
			res := run(t, nil, "render", "--manifests="+good, args)
			assert.Equal(t, 1, res.code, args)
			assert.Contains(t, res.stderr, want, args)
			assert.Empty(t, res.stdout, args)
		}
	})
}

func TestHelp(t *testing.T) {
	res := run(t, nil)
	assert.Equal(t, 0, res.code)
	assert.Contains(t, res.stdout, "render")
	res = run(t, nil, "render", "--help")
	assert.Equal(t, 0, res.code)
	for _, flag := range []string{"--manifests", "--format", "--providers.kubernetesingress.terminatingendpoints", "--configfile"} {
		assert.Contains(t, res.stdout, flag)
	}
	assert.Contains(t, res.stdout, "--providers.kubernetesingress.strictprefixmatching")
}
