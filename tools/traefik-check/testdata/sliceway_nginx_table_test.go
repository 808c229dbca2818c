package ingressnginx

// This file is copied into Traefik's pkg/provider/kubernetes/ingress-nginx
// by tools/traefik-check/run; it is not part of sliceway's build. It is
// the hook of TestSlicewayNGINXTable, which tools/traefik-check/tablerewrite
// writes from Traefik's own TestLoadIngresses: each case of Traefik's
// table still runs Traefik's provider on its fixtures, and instead of
// Traefik's assertion, slicewayNGINXTableCase runs `sliceway render` with
// the ingress-nginx provider on the same fixtures, with the case's options
// mapped to sliceway's, and compares what each configuration does with the
// same requests (sliceway_nginx_requests_test.go,
// sliceway_nginx_effects_test.go). A case that differs must be on the
// list of deliberate differences (sliceway_nginx_list_test.go), and a
// listed case must still differ.
//
// Environment: SLICEWAY_BIN (the sliceway binary), SLICEWAY_CASES_BIN
// (tools/traefik-check/cases, built: it gives the requests that test a
// rule), SLICEWAY_NGINX_DIFFERENCES (the list), SLICEWAY_NGINX_GUIDE
// (docs/migrating-from-ingress-nginx.md).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
)

// slicewayTable is what the table hook leaves for the cases, and what the
// cases leave for the summary.
var slicewayTable struct {
	sync.Mutex
	list    map[string]slicewayListed
	keys    map[string]string // subtest name (as go test writes it) -> name in the list
	dir     string            // for the manifests the cases write
	results map[string]int    // key -> slicewaySame, slicewayListedDiff or slicewayUnlisted
}

const (
	slicewaySame = iota
	slicewayListedDiff
	slicewayUnlisted
	slicewayListedSame
)

// slicewayNGINXTableCases is called with Traefik's table before the loop
// over it: it reads the list, checks its links and that every listed case
// is in the table, and prints the counts once every case has run.
func slicewayNGINXTableCases(t *testing.T, table any) {
	t.Helper()
	for _, env := range []string{"SLICEWAY_BIN", "SLICEWAY_CASES_BIN", "SLICEWAY_NGINX_DIFFERENCES", "SLICEWAY_NGINX_GUIDE"} {
		if os.Getenv(env) == "" {
			t.Fatalf("%s is not set: run tools/traefik-check/run", env)
		}
	}
	list, err := readSlicewayList(os.Getenv("SLICEWAY_NGINX_DIFFERENCES"))
	if err != nil {
		t.Fatal(err)
	}
	checkSlicewayListLinks(t, list, os.Getenv("SLICEWAY_NGINX_GUIDE"))
	v := reflect.ValueOf(table)
	seen := map[string]int{}
	slicewayTable.list = list
	slicewayTable.results = map[string]int{}
	slicewayTable.keys = map[string]string{}
	slicewayTable.dir = t.TempDir()
	var keys []string
	for i := range v.Len() {
		desc := v.Index(i).FieldByName("desc").String()
		seen[desc]++
		// t.Run names the second subtest of a name name#01, and so on.
		key, sub := desc, strings.ReplaceAll(desc, " ", "_")
		if n := seen[desc]; n > 1 {
			key, sub = fmt.Sprintf("%s #%d", desc, n), fmt.Sprintf("%s#%02d", sub, n-1)
		}
		slicewayTable.keys[sub] = key
		keys = append(keys, key)
	}
	for desc, l := range list {
		if !containsString(keys, desc) {
			t.Errorf("nginx-table-differences.txt:%d: %q is no case of Traefik's table (renamed or removed?)", l.line, desc)
		}
	}
	t.Cleanup(func() {
		slicewayTable.Lock()
		defer slicewayTable.Unlock()
		var n [4]int
		for _, r := range slicewayTable.results {
			n[r]++
		}
		// Printed, not logged: the count shows without -v too.
		fmt.Printf("Traefik's ingress-nginx table, %d cases run: %d behave the same, %d differ as listed, %d differ without being listed, %d listed but the same\n",
			len(slicewayTable.results), n[slicewaySame], n[slicewayListedDiff], n[slicewayUnlisted], n[slicewayListedSame])
	})
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// slicewayNGINXTableCase replaces the assertion of one case: conf is
// what Traefik's provider built (the case's expected configuration is not
// used, Traefik's own test checks that conf is it).
func slicewayNGINXTableCase(t *testing.T, test any, conf *dynamic.Configuration) {
	t.Helper()
	key := slicewayCaseKey(t)
	v := reflect.ValueOf(test)
	var paths []string
	// The table's fields are unexported: read through reflect's getters,
	// as Interface() refuses them.
	fp := v.FieldByName("paths")
	for i := range fp.Len() {
		paths = append(paths, filepath.Join("fixtures", filepath.FromSlash(fp.Index(i).String())))
	}
	flags, extra := slicewayOptionFlags(t, v)
	ours := slicewayRender(t, append(paths, extra...), flags)
	diffs := compareSlicewayBehaviour(t, conf, ours)

	slicewayTable.Lock()
	listed, isListed := slicewayTable.list[key]
	result := slicewaySame
	switch {
	case len(diffs) > 0 && isListed:
		result = slicewayListedDiff
	case len(diffs) > 0:
		result = slicewayUnlisted
	case isListed:
		result = slicewayListedSame
	}
	slicewayTable.results[key] = result
	slicewayTable.Unlock()

	switch result {
	case slicewayListedDiff:
		t.Logf("differs as listed (%s, %s):\n  %s", listed.reason, listed.link, strings.Join(diffs, "\n  "))
	case slicewayUnlisted:
		t.Errorf("%q: sliceway behaves differently from Traefik's provider, and the case is not in nginx-table-differences.txt (fixtures %s):\n  %s",
			key, strings.Join(paths, ", "), strings.Join(diffs, "\n  "))
	case slicewayListedSame:
		t.Errorf("%q is listed in nginx-table-differences.txt:%d (%s) but behaves the same: take it off the list", key, listed.line, listed.reason)
	}
}

// slicewayCaseKey is the case's name in the list, from its subtest's
// name (two cases of Traefik's table may be equal in every field).
func slicewayCaseKey(t *testing.T) string {
	slicewayTable.Lock()
	defer slicewayTable.Unlock()
	_, sub, _ := strings.Cut(t.Name(), "/")
	if key, ok := slicewayTable.keys[sub]; ok {
		return key
	}
	t.Fatalf("subtest %q is no case of the table slicewayNGINXTableCases was given", sub)
	return ""
}

// slicewayOptionFlags maps the options of a case to sliceway's flags,
// and to manifests of its own (a ConfigMap). A field of the table this
// function does not know fails the case when it is set: a new option of
// Traefik's test must be mapped, or said to have no counterpart, here.
func slicewayOptionFlags(t *testing.T, v reflect.Value) (flags, manifests []string) {
	t.Helper()
	const p = "--providers.kubernetesingressnginx."
	// Every case gets the controller's ConfigMap, with hsts "false":
	// Traefik's provider sends no Strict-Transport-Security header, and
	// sliceway, as ingress-nginx, sends one on TLS routers unless the
	// ConfigMap says so (the guide's ConfigMap table, hsts). That is the
	// set-up of Traefik's test in ingress-nginx's words.
	data := map[string]string{"hsts": "false"}
	// Traefik's provider serves ExternalName Services unless told not to
	// (disableSvcExternalName), as ingress-nginx does; sliceway only with
	// allowExternalNameServices.
	flags = append(flags, p+"allowexternalnameservices=true")
	var backendNamespace, backendName string
	defer func() {
		manifests = append(manifests, slicewayConfigMap(t, data))
		flags = append(flags, p+"configmap="+slicewayConfigMapRef)
		if backendName != "" {
			flags = append(flags, p+"defaultbackendservice="+backendNamespace+"/"+backendName)
		}
	}()
	for i := range v.NumField() {
		name, f := v.Type().Field(i).Name, v.Field(i)
		switch name {
		case "desc", "paths", "expected":
		case "ingressClass":
			// Traefik's loop (v3.7.13) does not read it: its provider
			// keeps its default class, nginx, which is sliceway's too
			// (and both take IngressClasses of controller
			// k8s.io/ingress-nginx). No case sets it.
			if f.String() != "" {
				flags = append(flags, p+"ingressclass="+f.String())
			}
		case "strictValidatePathType":
			if !f.IsNil() {
				flags = append(flags, fmt.Sprintf("%sstrictvalidatepathtype=%v", p, f.Elem().Bool()))
			}
		case "allowCrossNamespaceResources":
			// Traefik's option covers Secrets and ConfigMaps; sliceway's
			// reads no ConfigMap an annotation names (custom-headers is
			// refused), so the Secrets are what is left.
			flags = append(flags, fmt.Sprintf("%sallowcrossnamespacesecrets=%v", p, f.Bool()))
		case "globalAuthURL":
			// sliceway reads it from the controller's ConfigMap, as
			// ingress-nginx does.
			if f.String() != "" {
				data["global-auth-url"] = f.String()
			}
		case "defaultBackendServiceNamespace":
			backendNamespace = f.String()
		case "defaultBackendServiceName":
			backendName = f.String()
		case "allowSnippetAnnotations",
			"globalAllowedResponseHeaders", "ipAllowListStrategy", "proxyRequestBuffering":
			// No counterpart: sliceway never runs snippets (they close the
			// Ingress), refuses
			// custom-headers (which globalAllowedResponseHeaders limits),
			// reads the connection's address for source ranges, and adds
			// no retry (which proxyRequestBuffering changes in Traefik).
			// What differs shows in the comparison.
		default:
			if !f.IsZero() {
				t.Errorf("Traefik's table sets an option this check does not map, %s = %v: map it in slicewayOptionFlags (sliceway_nginx_table_test.go)", name, f)
			}
		}
	}
	return flags, manifests
}

// The controller's ConfigMap the cases that need one get.
const slicewayConfigMapRef = "ingress-nginx/ingress-nginx-controller"

// slicewayConfigMap writes a manifest of the controller's ConfigMap with
// data, and returns its path.
func slicewayConfigMap(t *testing.T, data map[string]string) string {
	t.Helper()
	ns, name, _ := strings.Cut(slicewayConfigMapRef, "/")
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]string{"namespace": ns, "name": name}, "data": data}
	text, err := json.Marshal(cm) // JSON is YAML
	if err != nil {
		t.Fatal(err)
	}
	// In the table's directory: a subtest's own is named after its desc,
	// whose commas would split the manifests flag.
	f, err := os.CreateTemp(slicewayTable.dir, "configmap-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(text); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// slicewayRender runs `sliceway render` with the ingress-nginx provider
// on manifests and reads its JSON as Traefik's HTTP provider would.
func slicewayRender(t *testing.T, manifests, flags []string) *dynamic.Configuration {
	t.Helper()
	args := append([]string{"render", "--providers.kubernetesingressnginx=true", "--manifests=" + strings.Join(manifests, ","), "--format=json", "--log.level=error"}, flags...)
	cmd := exec.Command(os.Getenv("SLICEWAY_BIN"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("sliceway %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	conf := &dynamic.Configuration{}
	if err := json.Unmarshal(stdout.Bytes(), conf); err != nil {
		t.Fatalf("sliceway's output: %v", err)
	}
	if stderr.Len() > 0 {
		// What sliceway reported (refused annotations, closed paths) helps
		// read a difference.
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		sort.Strings(lines)
		t.Logf("sliceway render reported:\n  %s", strings.Join(lines, "\n  "))
	}
	return conf
}
