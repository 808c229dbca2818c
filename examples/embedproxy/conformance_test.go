package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress"
	"github.com/sliceway/sliceway/provider/kubernetes/manifests"
)

// The Ingress specification's matching rules, as the Kubernetes Ingress
// conformance suite (kubernetes-sigs/ingress-controller-conformance) checks
// them, asked of the proxy's routing table with the default priorities,
// with strictPrefixMatching on and off. Each Service is named after the
// rule it backs, so a case says which rule must serve a request.

type conformancePath struct{ path, pathType, service string }

type conformanceRule struct {
	host  string
	paths []conformancePath
}

func conformanceManifests(rules []conformanceRule, defaultBackend string) string {
	var docs []string
	docs = append(docs, "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: sliceway\n  annotations: {ingressclass.kubernetes.io/is-default-class: \"true\"}\nspec: {controller: traefik.io/ingress-controller}\n")
	services := map[string]bool{}
	addService := func(name string) {
		if services[name] {
			return
		}
		services[name] = true
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: %[1]s, namespace: conf}\nspec:\n  ports: [{name: http, port: 80}]\n", name),
			fmt.Sprintf("apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: %[1]s-1\n  namespace: conf\n  labels: {kubernetes.io/service-name: %[1]s}\naddressType: IPv4\nports: [{name: http, port: 8080}]\nendpoints: [{addresses: [10.1.0.%[2]d]}]\n", name, len(services)))
	}
	var ing strings.Builder
	ing.WriteString("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: conformance, namespace: conf}\nspec:\n")
	if defaultBackend != "" {
		addService(defaultBackend)
		fmt.Fprintf(&ing, "  defaultBackend: {service: {name: %s, port: {name: http}}}\n", defaultBackend)
	}
	ing.WriteString("  rules:\n")
	for _, r := range rules {
		if r.host != "" {
			fmt.Fprintf(&ing, "    - host: %q\n      http:\n        paths:\n", r.host)
		} else {
			ing.WriteString("    - http:\n        paths:\n")
		}
		for _, p := range r.paths {
			addService(p.service)
			fmt.Fprintf(&ing, "          - {path: %q, pathType: %s, backend: {service: {name: %s, port: {name: http}}}}\n", p.path, p.pathType, p.service)
		}
	}
	docs = append(docs, ing.String())
	return strings.Join(docs, "---\n")
}

// conformanceTable renders the manifests with the default options but
// strictPrefixMatching, and builds the proxy's routing table from the
// configuration.
func conformanceTable(t *testing.T, yaml string, strict bool) (*table, *dynamic.Configuration) {
	t.Helper()
	objs, problems := manifests.Decode("conformance.yaml", []byte(yaml), manifests.IsUsedKind)
	require.Empty(t, problems)
	cs, problems := manifests.NewFakeCluster(objs)
	require.Empty(t, problems)
	opts := &ingress.Provider{}
	opts.SetDefaults()
	opts.StrictPrefixMatching = strict
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := ingress.RenderOnce(ctx, cs, opts, ingress.ClientOptions{}, 20*time.Second)
	require.NoError(t, err)
	require.Empty(t, res.Errors)
	px := newProxy(zerolog.Nop())
	defer px.close()
	return px.build(res.Configuration), res.Configuration
}

// conformanceExport is what SLICEWAY_CONFORMANCE_CASES names:
// the configuration and the requests with the service the specification
// wants, for tools/traefik-check to send through Traefik's router.
type conformanceExport struct {
	Configuration *dynamic.Configuration `json:"configuration"`
	Requests      []conformanceRequest   `json:"requests"`
}

type conformanceRequest struct {
	EntryPoint string `json:"entryPoint"`
	Host       string `json:"host"`
	Path       string `json:"path"`
	Service    string `json:"service"`
}

func TestIngressConformance(t *testing.T) {
	rules := []conformanceRule{
		{host: "path.example", paths: []conformancePath{
			{"/foo", "Prefix", "prefix-foo"},
			{"/foo/bar", "Prefix", "prefix-foo-bar"},
			{"/aaa/bbb/", "Prefix", "prefix-trailing"},
			{"/exact", "Exact", "exact"},
			{"/both", "Exact", "both-exact"},
			{"/both", "Prefix", "both-prefix"},
			{"/", "Prefix", "prefix-root"},
		}},
		{host: "*.foo.example", paths: []conformancePath{{"/", "Prefix", "wildcard"}}},
		{host: "bar.foo.example", paths: []conformancePath{{"/", "Prefix", "exact-host"}}},
		{host: "long.example", paths: []conformancePath{{"/", "Prefix", "long-root"}}},
		{host: "*.long.example", paths: []conformancePath{{"/a/very/long/prefix/that/would/win/by/length", "Prefix", "wildcard-long"}}},
		{paths: []conformancePath{{"/hostless", "Prefix", "hostless"}}},
	}
	for _, strict := range []bool{true, false} {
		mode := map[bool]string{true: "strict", false: "literal"}[strict]
		t.Run("strictPrefixMatching="+fmt.Sprint(strict), func(t *testing.T) {
			conformanceCases(t, rules, strict, mode)
		})
	}
}

// conformanceCases sends each request of the specification to the routing
// table of rules, and writes them with the configuration for
// tools/traefik-check (SLICEWAY_CONFORMANCE_CASES, the mode before .json).
func conformanceCases(t *testing.T, rules []conformanceRule, strict bool, mode string) {
	tbl, conf := conformanceTable(t, conformanceManifests(rules, "default"), strict)
	export := conformanceExport{Configuration: conf}

	// With strictPrefixMatching off a Prefix path is a literal prefix, as
	// Traefik's PathPrefix is: the cases about matching by path element,
	// the only ones that option decides, are served by these rules instead.
	// Every other case, the priorities among them, holds in both modes.
	literal := map[string]string{
		"prefix does not match a longer element":        "prefix-foo",
		"prefix with trailing slash matches without it": "prefix-root",
	}
	for _, tc := range []struct {
		name, host, path, want string
	}{
		// Prefix matches by path element.
		{"prefix matches itself", "path.example", "/foo", "prefix-foo"},
		{"prefix matches with a trailing slash", "path.example", "/foo/", "prefix-foo"},
		{"prefix matches a sub-path", "path.example", "/foo/baz", "prefix-foo"},
		{"prefix does not match a longer element", "path.example", "/foobar", "prefix-root"},
		// The trailing slash of a Prefix path is ignored.
		{"prefix with trailing slash matches without it", "path.example", "/aaa/bbb", "prefix-trailing"},
		{"prefix with trailing slash matches with it", "path.example", "/aaa/bbb/", "prefix-trailing"},
		{"prefix with trailing slash matches a sub-path", "path.example", "/aaa/bbb/ccc", "prefix-trailing"},
		{"prefix with trailing slash does not match a longer element", "path.example", "/aaa/bbbxyz", "prefix-root"},
		// The longest matching prefix wins.
		{"longest prefix wins", "path.example", "/foo/bar/baz", "prefix-foo-bar"},
		{"longest prefix wins exactly", "path.example", "/foo/bar", "prefix-foo-bar"},
		// Exact matches only exactly.
		{"exact matches", "path.example", "/exact", "exact"},
		{"exact does not match a trailing slash", "path.example", "/exact/", "prefix-root"},
		{"exact does not match a sub-path", "path.example", "/exact/x", "prefix-root"},
		{"exact is case-sensitive", "path.example", "/EXACT", "prefix-root"},
		// Exact wins over Prefix on the same path.
		{"exact over prefix", "path.example", "/both", "both-exact"},
		{"prefix where exact does not match", "path.example", "/both/x", "both-prefix"},
		// Wildcard hosts match exactly one label.
		{"wildcard matches one label", "baz.foo.example", "/", "wildcard"},
		{"wildcard does not match two labels", "baz.bar.foo.example", "/", "default"},
		{"wildcard does not match the bare domain", "foo.example", "/", "default"},
		{"exact host before wildcard", "bar.foo.example", "/", "exact-host"},
		{"exact host before a wildcard with a longer path", "long.example", "/a/very/long/prefix/that/would/win/by/length", "long-root"},
		{"wildcard with a long path for its own hosts", "x.long.example", "/a/very/long/prefix/that/would/win/by/length/x", "wildcard-long"},
		// Hosts are case-insensitive and ports are ignored.
		{"host is case-insensitive", "PATH.example", "/exact", "exact"},
		{"a rule without host matches any host", "anything.example", "/hostless/x", "hostless"},
		// The default backend catches the rest.
		{"unknown host goes to the default backend", "nowhere.example", "/foo", "default"},
	} {
		if l, ok := literal[tc.name]; ok && !strict {
			tc.want = l
		}
		want := "conf-" + tc.want + "-http"
		if tc.want == "default" {
			want = ingress.DefaultBackendName
		}
		// The routers name no entry point: they are on all of them.
		export.Requests = append(export.Requests, conformanceRequest{EntryPoint: "web", Host: tc.host, Path: tc.path, Service: want})
		t.Run(tc.name, func(t *testing.T) {
			r := tbl.match(false, tc.host, tc.path)
			require.NotNil(t, r, "no route for %s%s", tc.host, tc.path)
			assert.Equal(t, want, r.svc.name, "%s%s went to router %s", tc.host, tc.path, r.name)
		})
	}
	if path := os.Getenv("SLICEWAY_CONFORMANCE_CASES"); path != "" {
		data, err := json.Marshal(export)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(strings.TrimSuffix(path, ".json")+"-"+mode+".json", data, 0o644))
	}
}
