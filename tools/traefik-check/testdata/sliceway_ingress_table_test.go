package ingress

// This file is copied into Traefik's pkg/provider/kubernetes/ingress by
// tools/traefik-check/run; it is not part of sliceway's build. It holds
// the hooks of TestSlicewayIngressTable, which
// tools/traefik-check/tablerewrite writes from Traefik's own
// TestLoadConfigurationFromIngresses* tables: each case still runs
// Traefik's provider (and Traefik's own assertions), and
// slicewayIngressTableCase then renders the case's fixture with sliceway's
// Traefik-style provider, with the case's options, twice:
//
//   - in Traefik's ordering (routerPriority=ruleLength,
//     terminatingEndpoints=fence), where the whole configuration must be
//     Traefik's expected one (sliceway_ingress_exact_test.go);
//   - with sliceway's defaults, whose priorities differ by design, where
//     the same requests must reach the same servers through the same
//     middlewares in Traefik's router (the ingress-nginx check's code,
//     copied beside this file by run).
//
// A case that differs in either must be on the list of deliberate
// differences (ingress-table-differences.txt), and a listed case must
// still differ.
//
// Environment: SLICEWAY_BIN (the sliceway binary), SLICEWAY_CASES_BIN
// (tools/traefik-check/cases, built: it gives the requests that test a
// rule), SLICEWAY_INGRESS_DIFFERENCES (the list), SLICEWAY_ROOT (the
// repository, whose docs the list links to).

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	httpmuxer "github.com/traefik/traefik/v3/pkg/muxer/http"
)

// The documents the list may link to, as the links write them.
var slicewayIngressDocs = []string{"docs/migrating.md", "docs/translation.md", "docs/configuration.md"}

// slicewayIngress is what the hooks share: the list, the cases' names,
// and what each case gave.
var slicewayIngress struct {
	sync.Mutex
	list    map[string]slicewayListed
	keys    map[string]string // subtest name (as t.Name() gives it) -> name in the list
	dir     string            // for the manifests the cases write
	results map[string]slicewayIngressResult
}

// slicewayIngressResult is what one case gave in each comparison.
type slicewayIngressResult struct {
	exactSame, behaviourSame, missingOption, listed bool
}

// slicewayIngressTables is called once, before the tables run: it reads
// the list and checks its links, and once every table has run, that each
// listed case was run, and prints the counts.
func slicewayIngressTables(t *testing.T) {
	t.Helper()
	for _, env := range []string{"SLICEWAY_BIN", "SLICEWAY_CASES_BIN", "SLICEWAY_INGRESS_DIFFERENCES", "SLICEWAY_ROOT"} {
		if os.Getenv(env) == "" {
			t.Fatalf("%s is not set: run tools/traefik-check/run", env)
		}
	}
	list, err := readSlicewayList(os.Getenv("SLICEWAY_INGRESS_DIFFERENCES"), slicewayIngressDocs...)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, doc := range slicewayIngressDocs {
		files[doc] = filepath.Join(os.Getenv("SLICEWAY_ROOT"), filepath.FromSlash(doc))
	}
	checkSlicewayListDocs(t, list, files)
	slicewayIngress.list = list
	slicewayIngress.keys = map[string]string{}
	slicewayIngress.results = map[string]slicewayIngressResult{}
	slicewayIngress.dir = t.TempDir()
	t.Cleanup(func() {
		slicewayIngress.Lock()
		defer slicewayIngress.Unlock()
		cases := map[string]bool{}
		for _, key := range slicewayIngress.keys {
			cases[key] = true
		}
		for desc, l := range list {
			if !cases[desc] {
				t.Errorf("%s:%d: %q is no case of Traefik's tables (renamed or removed?)", l.file, l.line, desc)
			}
		}
		var exact, behaviour, listedDiff, unlisted, listedSame int
		for _, r := range slicewayIngress.results {
			if r.exactSame {
				exact++
			}
			if r.behaviourSame {
				behaviour++
			}
			same := r.exactSame && r.behaviourSame && !r.missingOption
			switch {
			case !same && r.listed:
				listedDiff++
			case !same:
				unlisted++
			case r.listed:
				listedSame++
			}
		}
		// Printed, not logged: the counts show without -v too.
		fmt.Printf("Traefik's Ingress provider tables, %d cases run: %d the same configuration in Traefik's ordering, %d behave the same with sliceway's defaults; %d differ as listed, %d differ without being listed, %d listed but the same\n",
			len(slicewayIngress.results), exact, behaviour, listedDiff, unlisted, listedSame)
	})
}

// slicewayIngressTableCases is called with a table before the loop over
// it: it names its cases as the list does, desc for the cases of
// TestLoadConfigurationFromIngresses, "<rest of the test's name>: desc"
// for the other tables (their descs repeat the first one's), with " #2"
// for the second case of one desc in a table.
func slicewayIngressTableCases(t *testing.T, table any) {
	t.Helper()
	_, test, _ := strings.Cut(t.Name(), "/")
	prefix := strings.TrimPrefix(test, "TestLoadConfigurationFromIngresses")
	if prefix != "" {
		prefix += ": "
	}
	slicewayIngress.Lock()
	defer slicewayIngress.Unlock()
	v := reflect.ValueOf(table)
	seen := map[string]int{}
	for i := range v.Len() {
		desc := v.Index(i).FieldByName("desc").String()
		seen[desc]++
		// t.Run names the second subtest of a name name#01, and so on.
		key, sub := prefix+desc, strings.ReplaceAll(desc, " ", "_")
		if n := seen[desc]; n > 1 {
			key, sub = fmt.Sprintf("%s%s #%d", prefix, desc, n), fmt.Sprintf("%s#%02d", sub, n-1)
		}
		slicewayIngress.keys[t.Name()+"/"+sub] = key
	}
}

// slicewayIngressTableCase runs after Traefik's provider built conf for
// a case: p is the provider as the case set it up, fixture the file its
// client was read from. It compares sliceway with the case's expected
// configuration (Traefik's conf for the tables that have none, whose own
// assertions check it).
func slicewayIngressTableCase(t *testing.T, test any, p *Provider, conf *dynamic.Configuration, fixture string) {
	t.Helper()
	slicewayIngress.Lock()
	key, ok := slicewayIngress.keys[t.Name()]
	listed, isListed := slicewayIngress.list[key]
	slicewayIngress.Unlock()
	if !ok {
		t.Fatalf("subtest %q is no case of a table slicewayIngressTableCases was given", t.Name())
	}
	expected := conf
	// The table's fields are unexported, which Interface() refuses; the
	// pointer is read as the type Traefik's tables give it.
	if f := reflect.ValueOf(test).FieldByName("expected"); f.IsValid() && !f.IsNil() && f.Type() == reflect.TypeFor[*dynamic.Configuration]() {
		expected = (*dynamic.Configuration)(f.UnsafePointer())
	}
	flags := slicewayIngressFlags(t, p)
	manifests := slicewayIngressManifests(t, fixture)

	// Traefik's ordering: the whole configuration, exactly.
	ordering := append([]string{"--providers.kubernetesingress.routerpriority=ruleLength", "--providers.kubernetesingress.terminatingendpoints=fence"}, flags...)
	ours, missing := slicewayIngressRender(t, manifests, ordering, true)
	diffs := missing
	exact := slicewayExactDiffs(expected.DeepCopy(), ours)
	for _, d := range exact {
		diffs = append(diffs, "exact, in Traefik's ordering: "+d)
	}

	// sliceway's defaults: behaviour.
	ours, _ = slicewayIngressRender(t, manifests, flags, false)
	parser, err := httpmuxer.NewSyntaxParser()
	if err != nil {
		t.Fatal(err)
	}
	// Both sides are the Traefik-style provider's: a router serves TLS
	// requests when it has tls and plain ones otherwise, on either side
	// (sliceway_nginx_requests_test.go's slicewaySide, traefik false).
	theirs := newSlicewaySide(t, parser, "Traefik", expected.DeepCopy(), false)
	mine := newSlicewaySide(t, parser, "sliceway", ours, false)
	behaviour := compareSlicewaySides(t, theirs, mine, false)
	for _, d := range behaviour {
		diffs = append(diffs, "behaviour, with sliceway's defaults: "+d)
	}

	slicewayIngress.Lock()
	slicewayIngress.results[key] = slicewayIngressResult{exactSame: len(exact) == 0, behaviourSame: len(behaviour) == 0, missingOption: len(missing) > 0, listed: isListed}
	slicewayIngress.Unlock()

	switch {
	case len(diffs) > 0 && isListed:
		t.Logf("differs as listed (%s, %s):\n  %s", listed.reason, listed.link, strings.Join(diffs, "\n  "))
	case len(diffs) > 0:
		t.Errorf("%q: sliceway differs from Traefik's provider, and the case is not in ingress-table-differences.txt (fixture %s):\n  %s",
			key, fixture, strings.Join(diffs, "\n  "))
	case isListed:
		t.Errorf("%q is listed in %s:%d (%s) but is the same: take it off the list", key, listed.file, listed.line, listed.reason)
	}
}
