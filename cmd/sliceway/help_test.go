package main

import (
	"bytes"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/traefik/paerser/cli"
	"github.com/traefik/paerser/flag"
	"github.com/traefik/paerser/generator"
)

func helpOf(t *testing.T, cmd *cli.Command) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, cmd.PrintHelp(&buf))
	return buf.String()
}

// flagNames returns the flags a help lists, in order.
func flagNames(help string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^    --(\S+)  \(Default: `).FindAllStringSubmatch(help, -1) {
		names = append(names, m[1])
	}
	return names
}

func TestRenderHelpListsOnlyWhatRenderReads(t *testing.T) {
	help := helpOf(t, renderCommand(io.Discard))
	names := flagNames(help)
	for _, want := range []string{"configfile", "demo", "format", "manifests", "log.level",
		"providers.kubernetesingress.ingressclass", "providers.kubernetesingress.endpoint", "providers.kubernetesingress.topology.zone"} {
		assert.Contains(t, names, want)
	}
	for _, name := range names {
		for _, unread := range []string{"serve.", "output", "followmanifests", "providers.kubernetesingress.leaderelection.",
			"providers.kubernetesingress.ingressendpoint.", "providers.kubernetesingress.throttleduration", "providers.kubernetesingress.synctimeout"} {
			assert.False(t, strings.HasPrefix(name, unread), "render does not read --%s", name)
		}
	}
	assert.Contains(t, names, "providers.kubernetesingress", "the switch turns the Traefik-style provider on beside another")
	assert.Contains(t, names, "providers.kubernetesingressnginx", "the switch turns the ingress-nginx provider on")
	assert.NotContains(t, help, "[command]", "render has no subcommands")
	assert.Contains(t, help, "Usage: sliceway render [--flag=value ...]")
}

// The options that loosen the ingress-nginx provider's refusals are
// where an operator looks for them, off unless set.
func TestRenderHelpListsTheNGINXRefusalOptions(t *testing.T) {
	help := helpOf(t, renderCommand(io.Discard))
	for _, want := range []string{
		`--providers.kubernetesingressnginx.dropsnippets  (Default: "false")`,
		`--providers.kubernetesingressnginx.allowedauthhosts  (Default: "")`,
	} {
		assert.Contains(t, help, want)
	}
}

func TestWatchAndServeHelpsLeaveOutTheOtherCommandsOptions(t *testing.T) {
	watch := flagNames(helpOf(t, watchCommand(io.Discard)))
	assert.Contains(t, watch, "output")
	assert.Contains(t, watch, "followmanifests")
	assert.Contains(t, watch, "providers.kubernetesingress.leaderelection.leaseduration")
	assert.NotContains(t, watch, "format")
	assert.NotContains(t, watch, "serve.address")

	serve := flagNames(helpOf(t, serveCommand()))
	assert.Contains(t, serve, "serve.address")
	assert.Contains(t, serve, "serve.tls.clientca")
	assert.NotContains(t, serve, "output")
	assert.NotContains(t, serve, "format")
}

func TestHelpWritesDefaultsAsTheDocsDo(t *testing.T) {
	watch := helpOf(t, watchCommand(io.Discard))
	for _, want := range []string{
		`--providers.kubernetesingress.leaderelection.leaseduration  (Default: "15s")`,
		`--providers.kubernetesingress.leaderelection.renewdeadline  (Default: "10s")`,
		`--providers.kubernetesingress.leaderelection.retryperiod  (Default: "2s")`,
		`--providers.kubernetesingress.synctimeout  (Default: "60s")`,
		`--providers.kubernetesingress.throttleduration  (Default: "0s")`,
		`--providers.kubernetesingress.clientqps  (Default: "20")`,
		// The ingress-nginx provider's own defaults, over the nested ones.
		`--providers.kubernetesingressnginx.leaderelection.leasename  (Default: "sliceway-nginx")`,
		`--providers.kubernetesingressnginx.ingressclass  (Default: "nginx")`,
		`--providers.kubernetesingressnginx.leaderelection.leaseduration  (Default: "15s")`,
	} {
		assert.Contains(t, watch, want)
	}
	serve := helpOf(t, serveCommand())
	for _, want := range []string{
		`--serve.readtimeout  (Default: "30s")`,
		`--serve.writetimeout  (Default: "2m")`,
		`--serve.idletimeout  (Default: "90s")`,
	} {
		assert.Contains(t, serve, want)
	}
	for _, line := range strings.Split(watch+serve, "\n") {
		assert.NotRegexp(t, `^    --\S*(timeout|duration|deadline|period)  \(Default: "\d+"\)`, line)
		if !strings.HasPrefix(line, "    --") && strings.Contains(strings.TrimSpace(line), " ") {
			assert.LessOrEqual(t, len(line), 80, "folded to 80 columns: %q", line)
		}
	}
}

// Every option must still be listed by some command, and every name left
// out must be one: a typo would hide nothing, a stray prefix too much.
func TestEveryOptionIsInSomeCommandsHelp(t *testing.T) {
	cfg := newConfiguration()
	generator.Generate(cfg)
	all, err := flag.Encode(cfg)
	require.NoError(t, err)
	listedSomewhere := map[string]bool{}
	for _, cmd := range []*cli.Command{renderCommand(io.Discard), watchCommand(io.Discard), serveCommand()} {
		for _, name := range flagNames(helpOf(t, cmd)) {
			listedSomewhere[name] = true
		}
	}
	for _, f := range all {
		if f.Name == "providers.kubernetesingress" {
			continue
		}
		if !listed(f.Name, nil) {
			assert.False(t, listedSomewhere[f.Name], "--%s is read by no command", f.Name)
			continue
		}
		if strings.Contains(f.Name, "<name>") {
			// A map's entries: listed by their default keys
			// (providers.kubernetesgateway.entrypoints.web.port).
			entry := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(f.Name), "<name>", `[^.]+`) + "$")
			assert.True(t, slices.ContainsFunc(slices.Collect(maps.Keys(listedSomewhere)), entry.MatchString), "--%s is in no command's help", f.Name)
			continue
		}
		assert.True(t, listedSomewhere[f.Name], "--%s is in no command's help", f.Name)
	}
	for _, list := range [][]string{notReadByRender, notReadByWatch, notReadByServe, sectionSwitches, notReadByAny} {
		for _, n := range list {
			found := false
			for _, f := range all {
				found = found || f.Name == n || strings.HasPrefix(f.Name, n+".")
			}
			assert.True(t, found, "%q names no option", n)
		}
	}
}

// crossProviderNamespaces is in every command's help for the
// Traefik-style provider, saying what an empty value means; the
// ingress-nginx provider's copy of it, which nothing reads, in none.
func TestHelpListsCrossProviderNamespaces(t *testing.T) {
	for _, cmd := range []*cli.Command{renderCommand(io.Discard), watchCommand(io.Discard), serveCommand()} {
		help := helpOf(t, cmd)
		names := flagNames(help)
		assert.Contains(t, names, "providers.kubernetesingress.crossprovidernamespaces", cmd.Name)
		assert.NotContains(t, names, "providers.kubernetesingressnginx.crossprovidernamespaces", cmd.Name)
		assert.Contains(t, strings.Join(strings.Fields(help), " "),
			"Not given: every namespace may; given empty (this flag with an empty value, [] in a file): none may.", cmd.Name)
	}
}

func TestHelpFromTheCommandLine(t *testing.T) {
	res := run(t, nil, "render", "--help")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, helpOf(t, renderCommand(io.Discard)), res.stdout)
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                    "0s",
		2 * time.Second:                      "2s",
		time.Minute:                          "60s",
		90 * time.Second:                     "90s",
		2 * time.Minute:                      "2m",
		150 * time.Second:                    "2m30s",
		time.Hour:                            "1h",
		time.Hour + 30*time.Minute:           "1h30m",
		1500 * time.Millisecond:              "1.5s",
		time.Hour + 30*time.Millisecond:      "1h0m0.03s",
		5*time.Minute + 100*time.Microsecond: "5m0.0001s",
	} {
		assert.Equal(t, want, shortDuration(d), d.String())
	}
}
