package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/static"
)

// paerser turns a provider off for any value of its switch but true, so
// =yes, =1 or =on ran without the provider and said nothing. Each source
// now refuses such a value, naming the option and the value.
func TestProviderSwitchTakesTrueOrFalse(t *testing.T) {
	for _, value := range []string{"yes", "1", "on", "no", "0", "enabled"} {
		t.Run(value, func(t *testing.T) {
			want := `providers.kubernetesIngressNGINX is true (the provider runs) or false, not "` + value + `"`
			flag := run(t, nil, "render", "--demo", "--providers.kubernetesingressnginx="+value)
			assert.Equal(t, 1, flag.code)
			assert.Contains(t, flag.stderr, "--providers.kubernetesingressnginx="+value+": "+want)
			assert.Empty(t, flag.stdout)

			env := run(t, []string{"SLICEWAY_DEMO=true", "SLICEWAY_PROVIDERS_KUBERNETESINGRESSNGINX=" + value}, "render")
			assert.Equal(t, 1, env.code)
			assert.Contains(t, env.stderr, "SLICEWAY_PROVIDERS_KUBERNETESINGRESSNGINX="+value+": "+want)
			assert.Empty(t, env.stdout)

			file := writeFile(t, t.TempDir(), "sliceway.yaml", "demo: true\nproviders:\n  kubernetesIngressNGINX: "+value+"\n")
			res := run(t, nil, "render", "--configfile="+file)
			assert.Equal(t, 1, res.code)
			assert.Contains(t, res.stderr, want)
			assert.Contains(t, res.stderr, file)
			assert.Empty(t, res.stdout)
		})
	}
	for _, value := range []string{"true", "TRUE", "True"} {
		res := run(t, nil, "render", "--demo", "--providers.kubernetesingressnginx="+value)
		assert.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stderr, `providers=["kubernetesingressnginx"]`, value)
	}
}

// A boolean option's bad value names the option (paerser said only
// "strconv.ParseBool: parsing "yes": invalid syntax").
func TestBooleanOptionNamesItsBadValue(t *testing.T) {
	res := run(t, nil, "render", "--demo=yes")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, `--demo=yes: demo is true or false, not "yes"`)

	res = run(t, []string{"SLICEWAY_PROVIDERS_KUBERNETESINGRESS_ALLOWFQDNENDPOINTS=maybe"}, "render")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, `SLICEWAY_PROVIDERS_KUBERNETESINGRESS_ALLOWFQDNENDPOINTS=maybe: providers.kubernetesIngress.allowFQDNEndpoints is true or false, not "maybe"`)

	// What paerser reads as a boolean still is one.
	res = run(t, []string{"SLICEWAY_DEMO=1"}, "render")
	assert.Equal(t, 0, res.code, res.stderr)
}

func TestStartSaysWhichProvidersRun(t *testing.T) {
	res := run(t, nil, "render", "--demo")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, `INF providers that run providers=["kubernetesingress"]`)

	res = run(t, nil, "render", "--demo", "--providers.kubernetesingress=true", "--providers.kubernetesingressnginx")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, `providers=["kubernetesingress","kubernetesingressnginx"]`)

	// Switched off, the Traefik-style provider is not turned back on as
	// the default: nothing runs, which is said.
	res = run(t, nil, "render", "--demo", "--providers.kubernetesingress=false")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, "WRN no provider runs: providers.kubernetesIngress is false")
	assert.NotContains(t, res.stderr, "providers that run")
	assert.Equal(t, "{}\n", res.stdout)

	// Another provider's false leaves the default on.
	res = run(t, nil, "render", "--demo", "--providers.kubernetesingressnginx=false")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, `providers=["kubernetesingress"]`)
}

// watch with no provider delivers the empty configuration once and
// stays up until stopped, as with a cluster without Ingresses.
func TestWatchWithNoProviderDeliversTheEmptyConfiguration(t *testing.T) {
	cfg := static.New()
	cfg.Providers.SwitchOff("kubernetesIngress")
	cfg.Log.Level = "error"
	ctx, cancel := context.WithCancel(context.Background())
	out := &liveBuffer{}
	done := make(chan error, 1)
	go func() { done <- runWatch(ctx, cfg, &configSource{kind: "flags"}, out) }()
	require.Eventually(t, func() bool { return out.String() != "" }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "{}\n", out.String())
	select {
	case err := <-done:
		t.Fatalf("watch returned before it was stopped: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	require.NoError(t, <-done)
}

func TestUnknownFlagIsNamed(t *testing.T) {
	for args, want := range map[string]string{
		"render --foo":        "unknown flag --foo",
		"render --formt=yaml": "unknown flag --formt; did you mean --format?",
		"watch --outptu=x":    "unknown flag --outptu; did you mean --output?",
		"render --providers.kubernetesingress.allowfqdnendpoint=true": "did you mean --providers.kubernetesingress.allowfqdnendpoints?",
		"render --allowfqdnendpoints":                                 "did you mean --providers.kubernetesgateway.allowfqdnendpoints or --providers.kubernetesingress.allowfqdnendpoints or --providers.kubernetesingressnginx.allowfqdnendpoints?",
		"serve --serve.adress=:1":                                     "did you mean --serve.address?",
		"render --manifests":                                          "flag --manifests needs a value: --manifests=VALUE",
		"render --demo false":                                         `unexpected argument "false" after --demo: give its value after = (--demo=false)`,
		"render --demo -- x":                                          `unexpected argument "x" after --`,
	} {
		res := run(t, nil, strings.Fields(args)...)
		assert.Equal(t, 1, res.code, args)
		assert.Contains(t, res.stderr, want, args)
		assert.NotContains(t, res.stderr, "flag needs an argument", args)
		assert.NotContains(t, res.stdout, "Usage:", "%s: the error, not the help", args)
	}
	// Beside an explicit --configfile, whose file is the whole
	// configuration, a misspelt flag is still a mistake.
	file := writeFile(t, t.TempDir(), "c.yaml", "demo: true\n")
	res := run(t, nil, "render", "--configfile="+file, "--fromat=yaml")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, "unknown flag --fromat; did you mean --format?")
}

// The ingress-nginx provider takes the Traefik-style one's options but
// never reads three: the help leaves them out of its section, and
// setting one is warned about.
func TestNGINXProviderOptionsItDoesNotRead(t *testing.T) {
	res := run(t, nil, "serve", "--help")
	require.Equal(t, 0, res.code)
	for _, name := range []string{"routerpriority", "strictprefixmatching", "crossprovidernamespaces"} {
		assert.NotContains(t, res.stdout, "--providers.kubernetesingressnginx."+name+" ")
		assert.Contains(t, res.stdout, "--providers.kubernetesingress."+name+" ", "the Traefik-style provider reads it")
	}

	want := "WRN providers.kubernetesIngressNGINX.routerPriority is not read by the ingress-nginx provider"
	res = run(t, nil, "render", "--demo", "--providers.kubernetesingressnginx.routerpriority=ruleLength")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, want)

	res = run(t, []string{"SLICEWAY_DEMO=true", "SLICEWAY_PROVIDERS_KUBERNETESINGRESSNGINX_ROUTERPRIORITY=ruleLength"}, "render")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, want)

	file := writeFile(t, t.TempDir(), "c.yaml", "demo: true\nproviders:\n  kubernetesIngressNGINX:\n    strictPrefixMatching: true\n    crossProviderNamespaces: [a]\n")
	res = run(t, nil, "render", "--configfile="+file)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, "WRN providers.kubernetesIngressNGINX.strictPrefixMatching is not read by the ingress-nginx provider")
	assert.Contains(t, res.stderr, "WRN providers.kubernetesIngressNGINX.crossProviderNamespaces is not read by the ingress-nginx provider")

	// The Traefik-style provider's own: no warning.
	res = run(t, nil, "render", "--demo", "--providers.kubernetesingress.routerpriority=ruleLength")
	require.Equal(t, 0, res.code, res.stderr)
	assert.NotContains(t, res.stderr, "is not read")
}

func TestClosest(t *testing.T) {
	candidates := []string{"format", "output", "providers.kubernetesingress.allowfqdnendpoints", "providers.kubernetesingressnginx.allowfqdnendpoints"}
	assert.Equal(t, []string{"format"}, closest("formt", candidates))
	assert.Equal(t, []string{"format"}, closest("FROMAT", candidates), "a swap is one edit; case aside")
	assert.Nil(t, closest("foo", candidates))
	assert.Equal(t, candidates[2:], closest("allowfqdnendpoints", candidates), "the section left out")
}
