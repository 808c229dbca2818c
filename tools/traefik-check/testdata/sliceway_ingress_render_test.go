package ingress

// This file is copied into Traefik's pkg/provider/kubernetes/ingress by
// tools/traefik-check/run; it is not part of sliceway's build. It gives a
// case of Traefik's tables to sliceway: the provider's options as
// sliceway's flags, the fixture as manifests sliceway reads, and the
// render read back as Traefik's HTTP provider would, with the names the
// fixture lacked taken out again.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/provider/kubernetes/k8s"
	"k8s.io/apimachinery/pkg/api/meta"
	kscheme "k8s.io/client-go/kubernetes/scheme"
)

const slicewayIngressPrefix = "--providers.kubernetesingress."

// slicewayIngressFlags maps the options of Traefik's provider, as the case
// set them, to sliceway's flags. An option sliceway lacks is still passed
// under its own name (lower case, as paerser reads flags), so that it is
// used as soon as sliceway has it; slicewayIngressRender drops the ones
// sliceway refuses and says so. An option this function does not know
// fails the case when it is set: a new option of Traefik's provider must
// be mapped here.
func slicewayIngressFlags(t *testing.T, p *Provider) (flags []string) {
	t.Helper()
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		field := v.Type().Field(i)
		f := v.Field(i)
		if !field.IsExported() {
			continue
		}
		switch name := field.Name; name {
		case "IngressClass", "LabelSelector", "DefaultRuleSyntax":
			// DefaultRuleSyntax is Traefik's core.defaultRuleSyntax,
			// handed to the provider: sliceway's option of that name.
			if s := f.String(); s != "" {
				flags = append(flags, slicewayIngressPrefix+strings.ToLower(name)+"="+s)
			}
		case "AllowEmptyServices", "AllowExternalNameServices", "NativeLBByDefault", "StrictPrefixMatching",
			"DisableIngressClassLookup", "DisableClusterScopeResources":
			if f.Bool() {
				flags = append(flags, slicewayIngressPrefix+strings.ToLower(name)+"=true")
			}
		case "Namespaces":
			if f.Len() > 0 {
				flags = append(flags, slicewayIngressPrefix+"namespaces="+strings.Join(f.Interface().([]string), ","))
			}
		case "CrossProviderNamespaces":
			// Unset, set empty (no namespace) and a list are three
			// things, in Traefik's provider and in sliceway (an empty
			// value of the flag is the empty list).
			if !f.IsNil() {
				flags = append(flags, slicewayIngressPrefix+"crossprovidernamespaces="+strings.Join(f.Interface().([]string), ","))
			}
		case "Endpoint", "Token", "CertAuthFilePath", "IngressEndpoint", "ThrottleDuration":
			// How to reach the cluster, where status goes, how often to
			// render: nothing the table's configurations show.
		default:
			if !f.IsZero() {
				t.Errorf("Traefik's test sets an option of its provider this check does not map, %s = %v: map it in slicewayIngressFlags (sliceway_ingress_render_test.go)", name, f)
			}
		}
	}
	return flags
}

// slicewayUnknownFlag is how sliceway refuses an option it does not
// have: its own check of the flags' names, or paerser's decoder.
var slicewayUnknownFlag = regexp.MustCompile(`unknown flag --providers\.kubernetesingress\.([A-Za-z0-9]+)|field not found, node: ([A-Za-z0-9]+)`)

// slicewayIngressRender runs `sliceway render` with the Traefik-style
// provider on manifests, and reads its JSON as Traefik's HTTP provider
// would. An option sliceway does not have is dropped, and returned as a
// difference. logged says whether to log what sliceway reported.
func slicewayIngressRender(t *testing.T, manifests string, flags []string, logged bool) (*dynamic.Configuration, []string) {
	t.Helper()
	var missing []string
	for {
		args := append([]string{"render", "--manifests=" + manifests, "--format=json", "--log.level=warn"}, flags...)
		cmd := exec.Command(os.Getenv("SLICEWAY_BIN"), args...)
		// The check's own SLICEWAY_* variables are none of sliceway's
		// settings (it warns that it ignores them).
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "SLICEWAY_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if m := slicewayUnknownFlag.FindStringSubmatch(stderr.String()); err != nil && m != nil {
			name := m[1] + m[2]
			before := len(flags)
			flags = slicesDeleteFlag(flags, name)
			if len(flags) == before {
				t.Fatalf("sliceway refuses %q, which is no flag this check gave it:\n%s", name, stderr.String())
			}
			missing = append(missing, fmt.Sprintf("sliceway has no option %s (set in Traefik's test)", name))
			continue
		}
		if err != nil {
			t.Fatalf("sliceway %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		conf := &dynamic.Configuration{}
		if err := json.Unmarshal(stdout.Bytes(), conf); err != nil {
			t.Fatalf("sliceway's output: %v", err)
		}
		slicewayUnname(conf)
		if text := strings.TrimSpace(stderr.String()); logged && text != "" {
			// What sliceway reported (refused annotations, skipped paths)
			// helps read a difference.
			lines := strings.Split(text, "\n")
			sort.Strings(lines)
			t.Logf("sliceway render reported:\n  %s", strings.Join(lines, "\n  "))
		}
		return conf, missing
	}
}

// slicesDeleteFlag leaves out the flag of the option name (any case).
func slicesDeleteFlag(flags []string, name string) []string {
	var out []string
	for _, f := range flags {
		opt, _, _ := strings.Cut(strings.TrimPrefix(f, slicewayIngressPrefix), "=")
		if !strings.EqualFold(opt, name) {
			out = append(out, f)
		}
	}
	return out
}

// slicewayNameless is the name the manifests give an object the fixture
// names "": Traefik's mock client takes such objects, an API server (and
// sliceway's manifest reader, as one) does not. It is a single word, so
// that it is one element of the names sliceway builds from it, and
// numbered in the fixture's order, so that two such Ingresses of one
// namespace (which a cluster could not hold) stay two, in that order.
const slicewayNameless = "slicewaynameless"

var slicewayNamelessWord = regexp.MustCompile(`^` + slicewayNameless + `[0-9]+$`)

// slicewayIngressManifests writes the fixture as manifests sliceway reads:
// the objects Traefik's mock client reads from it (k8s.MustParseYaml,
// Traefik's own parser), as JSON documents, each nameless one named.
func slicewayIngressManifests(t *testing.T, fixture string) string {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	objects := k8s.MustParseYaml(data)
	if len(objects) == 0 {
		// sliceway refuses manifests without an object (a mistake in a
		// real set-up): an object no provider reads stands for none.
		out.WriteString(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default","name":"sliceway-no-object"}}` + "\n")
	}
	for i, obj := range objects {
		kinds, _, err := kscheme.Scheme.ObjectKinds(obj)
		if err != nil || len(kinds) == 0 {
			t.Fatalf("%s: object %d: %v", fixture, i, err)
		}
		obj.GetObjectKind().SetGroupVersionKind(kinds[0])
		m, err := meta.Accessor(obj)
		if err != nil {
			t.Fatal(err)
		}
		if m.GetName() == "" {
			m.SetName(fmt.Sprintf("%s%d", slicewayNameless, i+1))
		}
		text, err := json.Marshal(obj) // JSON is YAML
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString("---\n")
		out.Write(text)
		out.WriteString("\n")
	}
	// In the table's directory: a subtest's own is named after its desc,
	// whose commas would split the manifests flag.
	f, err := os.CreateTemp(slicewayIngress.dir, "fixture-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(out.Bytes()); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// slicewayUnname takes the names slicewayIngressManifests gave out of
// what sliceway built from them: an element of a router's name (which
// Traefik builds as namespace-ingress-host-path, an empty ingress name
// leaving no element) and the Ingress's name in a router's metadata.
func slicewayUnname(conf *dynamic.Configuration) {
	if conf.HTTP == nil {
		return
	}
	names := make([]string, 0, len(conf.HTTP.Routers))
	for name := range conf.HTTP.Routers {
		names = append(names, name)
	}
	sort.Strings(names)
	routers := map[string]*dynamic.Router{}
	for _, name := range names {
		r := conf.HTTP.Routers[name]
		var kept []string
		for _, word := range strings.Split(name, "-") {
			if !slicewayNamelessWord.MatchString(word) {
				kept = append(kept, word)
			}
		}
		if o := r.Observability; o != nil && o.Metadata != nil && o.Metadata.Ingress != nil && slicewayNamelessWord.MatchString(o.Metadata.Ingress.IngressName) {
			o.Metadata.Ingress.IngressName = ""
		}
		// Two routers that only the given names told apart keep the
		// second's, so that the comparison shows both.
		if short := strings.Join(kept, "-"); routers[short] == nil {
			name = short
		}
		routers[name] = r
	}
	conf.HTTP.Routers = routers
}
