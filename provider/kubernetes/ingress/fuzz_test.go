package ingress

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/k8s"
	"github.com/sliceway/sliceway/rule"
)

// fixtureObjects decodes every fixture's manifests.yaml, for seed corpora.
func fixtureObjects(f *testing.F) []k8s.Object {
	files, err := filepath.Glob(filepath.Join(fixturesDir, "*", "manifests.yaml"))
	require.NoError(f, err)
	require.NotEmpty(f, files)
	var objs []k8s.Object
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		o, _ := k8s.DecodeManifest(file, data, k8s.IsUsedKind)
		objs = append(objs, o...)
	}
	return objs
}

// annotationPairs is the number of (key, value) pairs FuzzAnnotations takes.
const annotationPairs = 3

// FuzzAnnotations decodes arbitrary annotations under
// traefik.ingress.kubernetes.io/ as router and as service annotations,
// seeded with the annotations of every fixture. Decoding never panics and
// never modifies its input; it is deterministic; an error is an
// *annotationError naming annotations that exist in the input.
func FuzzAnnotations(f *testing.F) {
	for _, o := range fixtureObjects(f) {
		var annotations map[string]string
		switch obj := o.Object.(type) {
		case *netv1.Ingress:
			annotations = obj.Annotations
		case *corev1.Service:
			annotations = obj.Annotations
		}
		var pairs []string
		for _, key := range sortedKeys(annotations) {
			if rest, ok := strings.CutPrefix(key, AnnotationPrefix); ok {
				pairs = append(pairs, rest, annotations[key])
			}
		}
		for len(pairs) > 0 {
			var seed [2 * annotationPairs]string
			n := copy(seed[:], pairs)
			addAnnotationSeed(f, seed)
			pairs = pairs[n:]
		}
	}
	for _, seed := range [][2 * annotationPairs]string{
		{"router.priority", "1", "router.Priority", "2", "", ""},
		{"router.tls", "maybe", "service.sticky", "perhaps", "service.sticky.cookie", "no way"},
		{"router.tls.domains.5.main", "", "router.tls.domains.0.sans", "a,b", "", ""},
		{"router.PathMatcher", "Bogus", "service.ServersScheme", "ftp", "", ""},
		{"router.tls.domains[0].main", "x", "router..x", "y", "router.", "z"},
		{"router.middlewares", "a\"b`c\nd\x00", "router.entrypoints", "\xff,,", "router.tls.options", "\"`"},
		{"service.sticky.cookie.samesite", "LAX", "service.sticky.cookie.maxage", "-1", "service.nativelb", "1"},
		{"router.entrypoints.0", "x", "router.tls.domains.0.main.x", "y", "router.tls.certresolver", ""},
	} {
		addAnnotationSeed(f, seed)
	}

	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, k3, v3 string) {
		annotations := map[string]string{
			AnnotationPrefix + k1:  v1,
			AnnotationPrefix + k2:  v2,
			AnnotationPrefix + k3:  v3,
			"unrelated/annotation": "x",
		}
		before := maps.Clone(annotations)

		routerA, routerErr := parseRouterAnnotations(annotations)
		serviceA, serviceErr := parseServiceAnnotations(annotations)
		require.Equal(t, before, annotations, "the annotations are not modified")
		checkAnnotationError(t, annotations, routerErr)
		checkAnnotationError(t, annotations, serviceErr)
		if routerErr == nil {
			require.NotNil(t, routerA)
		}
		if serviceErr == nil {
			require.NotNil(t, serviceA)
		}

		// The memo of a renderer gives what decoding gives, and tells sets
		// of annotations apart: a value cannot pass for more annotations.
		var routerSets annotationMemo[*routerAnnotations]
		for range 2 {
			r, err := routerSets.parse(maps.Clone(annotations), parseRouterAnnotations)
			require.Equal(t, errorText(routerErr), errorText(err))
			require.True(t, reflect.DeepEqual(routerA, r), "router annotations through the memo:\n%#v\n%#v", routerA, r)
		}
		require.Equal(t, annotationKey(annotations), annotationKey(maps.Clone(annotations)))
		for key := range annotations {
			if strings.HasPrefix(key, AnnotationPrefix) {
				changed := maps.Clone(annotations)
				changed[key] += "\x00"
				require.NotEqual(t, annotationKey(annotations), annotationKey(changed), "a changed value: another set")
				delete(changed, key)
				require.NotEqual(t, annotationKey(annotations), annotationKey(changed), "an annotation less: another set")
			}
		}

		// Deterministic: the same annotations give the same result, whatever
		// the order maps are walked in (each call walks them afresh).
		for range 4 {
			r, err := parseRouterAnnotations(annotations)
			require.Equal(t, errorText(routerErr), errorText(err), "router annotations: the same error each time")
			require.True(t, reflect.DeepEqual(routerA, r), "router annotations: the same result each time:\n%#v\n%#v", routerA, r)
			s, err := parseServiceAnnotations(annotations)
			require.Equal(t, errorText(serviceErr), errorText(err), "service annotations: the same error each time")
			require.True(t, reflect.DeepEqual(serviceA, s), "service annotations: the same result each time:\n%#v\n%#v", serviceA, s)
		}
	})
}

func addAnnotationSeed(f *testing.F, s [2 * annotationPairs]string) {
	f.Add(s[0], s[1], s[2], s[3], s[4], s[5])
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// checkAnnotationError checks that err, if any, is an *annotationError
// whose Annotation is one annotation of the input, a group of them (the
// prefix of one, as router.tls.domains.0 for router.tls.domains.0.main), or
// several joined with ", " (when only decoding them together fails).
func checkAnnotationError(t *testing.T, annotations map[string]string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	ae, ok := err.(*annotationError)
	require.True(t, ok, "%T is not an *annotationError: %v", err, err)
	require.NotNil(t, ae.Err)
	require.Contains(t, err.Error(), ae.Annotation)
	// Spelled as the input spells it (not lower-cased) and, for a
	// router.tls.domains entry, with the input's index, not the position
	// in the decoded list: see TestAnnotationErrorsNameTheInput.
	require.True(t, namesInputKeys(ae.Annotation, annotations),
		"the error does not name an annotation of the input: it names %q; the input is %q", ae.Annotation, sortedKeys(annotations))
}

func namesInputKeys(s string, annotations map[string]string) bool {
	for key := range annotations {
		if key == s || strings.HasPrefix(key, s+".") {
			return true
		}
		if rest, ok := strings.CutPrefix(s, key+", "); ok && namesInputKeys(rest, annotations) {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// The path types and path matchers FuzzRule picks from by index.
var (
	fuzzPathTypes = []*netv1.PathType{
		nil, new(netv1.PathType("")), new(netv1.PathTypeExact), new(netv1.PathTypePrefix),
		new(netv1.PathTypeImplementationSpecific), new(netv1.PathType("Bogus")),
	}
	fuzzMatchers = []string{"", "Path", "PathPrefix", "PathRegexp"}
)

// wildcardHostRegexp is the regexp buildRule makes of a wildcard host
// *.rest: exactly one more DNS label in front of rest.
func wildcardHostRegexp(rest string) string {
	return `^[a-zA-Z0-9-]+\.` + regexp.QuoteMeta(rest) + `$`
}

// expectedHostMatcher is the host matcher of an Ingress rule's host, or nil.
func expectedHostMatcher(host string) *rule.Matcher {
	switch {
	case host == "":
		return nil
	case strings.HasPrefix(host, "*."):
		return &rule.Matcher{Name: rule.HostRegexp, Value: wildcardHostRegexp(host[2:])}
	}
	return &rule.Matcher{Name: rule.Host, Value: host}
}

// joinAnd is left && right, or whichever is not nil.
func joinAnd(left, right rule.Expr) rule.Expr {
	switch {
	case isNilExpr(left):
		return right
	case isNilExpr(right):
		return left
	}
	return &rule.And{Left: left, Right: right}
}

func isNilExpr(e rule.Expr) bool {
	if m, ok := e.(*rule.Matcher); ok {
		return m == nil
	}
	return e == nil
}

// FuzzRule builds the rule of arbitrary hosts and paths, seeded with those
// of every fixture, and parses it back with the rule package: it is exactly
// one host matcher (Host, or HostRegexp for a wildcard host) and one path
// matcher, with exactly the host and path as values (the wildcard host as
// the regexp buildRule makes), joined by &&, and nothing else. With strict
// prefix matching, a Prefix path is (Path(p) || PathPrefix(p/)) of the path
// without its trailing slashes, or PathPrefix("/").
func FuzzRule(f *testing.F) {
	for _, o := range fixtureObjects(f) {
		ing, ok := o.Object.(*netv1.Ingress)
		if !ok {
			continue
		}
		matcher := ing.Annotations[AnnotationPrefix+"router.pathmatcher"]
		mi := max(0, slices.Index(fuzzMatchers, matcher))
		for _, r := range ing.Spec.Rules {
			if r.HTTP == nil {
				f.Add(r.Host, "", uint8(0), uint8(mi))
				continue
			}
			for _, p := range r.HTTP.Paths {
				pt := uint8(0)
				for i, t := range fuzzPathTypes {
					if t != nil && p.PathType != nil && *t == *p.PathType {
						pt = uint8(i)
					}
				}
				f.Add(r.Host, p.Path, pt, uint8(mi))
			}
		}
	}
	for _, seed := range []struct{ host, path string }{
		{"", ""},
		{"*.", "/"},
		{"*.*.example.com", "/a//"},
		{"x.example\") || Host(\"evil", "/a`) || Path(`/"},
		{"*.a\\b", "\\"},
		{"\x00\xff", "/\x00\n\r\t\xff"},
		{"A.Example.COM:8080", "///"},
		{"*.Example.com", "/(a|b)+"},
		{"[::1]", "/?q=1#f"},
		{"*.\xff.example", "/("},
	} {
		for pt := range fuzzPathTypes {
			f.Add(seed.host, seed.path, uint8(pt), uint8(pt%len(fuzzMatchers)))
		}
	}

	f.Fuzz(func(t *testing.T, host, path string, pathTypeIdx, matcherIdx uint8) {
		pathType := fuzzPathTypes[int(pathTypeIdx)%len(fuzzPathTypes)]
		matcher := fuzzMatchers[int(matcherIdx)%len(fuzzMatchers)]
		p := netv1.HTTPIngressPath{Path: path, PathType: pathType}

		// The path matcher buildRule must choose.
		pathName := rule.PathPrefix
		if pathType != nil {
			switch *pathType {
			case netv1.PathTypeExact:
				pathName = rule.Path
			case netv1.PathTypePrefix:
				pathName = rule.PathPrefix
			default:
				if matcher != "" {
					pathName = matcher
				}
			}
		} else if matcher != "" {
			pathName = matcher
		}

		hostM := expectedHostMatcher(host)
		var want rule.Expr
		if path != "" {
			want = joinAnd(hostM, &rule.Matcher{Name: pathName, Value: path})
		} else {
			want = joinAnd(hostM, nil)
		}
		if host == "" && path == "" {
			want = &rule.Matcher{Name: rule.PathPrefix, Value: "/"}
		}

		got := buildRule(host, p, matcher, false)
		e := parseBuiltRule(t, got, host, path, pathName)
		require.True(t, rule.Equal(want, e), "buildRule(%q, %q, %s) = %s\nparses as %s\nwant %s", host, path, pathName, got, e, want)
		require.Equal(t, got, e.String(), "buildRule emits the canonical form")

		// What the rule matches agrees with the Ingress, for hosts a
		// request can carry (Traefik compares hosts lower-cased, without a
		// port, and refuses non-ASCII ones).
		reqHost, hostOK := requestHost(host)
		if hostOK && path != "" {
			switch pathName {
			case rule.Path:
				require.True(t, e.Match(reqHost, path), "%s should match %q %q", got, reqHost, path)
				if path != "" {
					require.False(t, e.Match(reqHost, path+"x"), "%s should not match %q %q", got, reqHost, path+"x")
				}
			case rule.PathPrefix:
				require.True(t, e.Match(reqHost, path+"/x"), "%s should match %q %q", got, reqHost, path+"/x")
			}
			if host != "" {
				require.False(t, e.Match("not-"+reqHost+".invalid", path), "%s should not match another host", got)
			}
		}

		// Strict prefix matching: a Prefix path matches element by element.
		prefix := netv1.HTTPIngressPath{Path: path, PathType: new(netv1.PathTypePrefix)}
		strict := buildRule(host, prefix, matcher, true)
		var strictPath rule.Expr
		if trimmed := strings.TrimRight(path, "/"); path == "" {
			strictPath = nil
		} else if trimmed == "" {
			strictPath = &rule.Matcher{Name: rule.PathPrefix, Value: "/"}
		} else {
			strictPath = &rule.Or{
				Left:  &rule.Matcher{Name: rule.Path, Value: trimmed},
				Right: &rule.Matcher{Name: rule.PathPrefix, Value: trimmed + "/"},
			}
		}
		wantStrict := joinAnd(hostM, strictPath)
		if host == "" && path == "" {
			wantStrict = &rule.Matcher{Name: rule.PathPrefix, Value: "/"}
		}
		es := parseBuiltRule(t, strict, host, path, rule.PathPrefix)
		require.True(t, rule.Equal(wantStrict, es), "strict buildRule(%q, %q) = %s\nparses as %s\nwant %s", host, path, strict, es, wantStrict)
		if trimmed := strings.TrimRight(path, "/"); hostOK && trimmed != "" {
			require.True(t, es.Match(reqHost, trimmed), "%s should match %q", strict, trimmed)
			require.True(t, es.Match(reqHost, trimmed+"/x"), "%s should match %q", strict, trimmed+"/x")
			require.False(t, es.Match(reqHost, trimmed+"x"), "%s should not match %q", strict, trimmed+"x")
		}
	})
}

// parseBuiltRule parses a rule buildRule made. It skips the inputs that
// are outside what the check covers, none of them a bug: a rule longer than
// the rule package accepts, a wildcard host that translation refuses before
// building a rule (checkHost), and a PathRegexp path that is not a regexp,
// whose rule does not parse (nor load in Traefik) and which translation
// reports (see TestTranslatedRulesParse).
func parseBuiltRule(t *testing.T, built, host, path, pathName string) rule.Expr {
	t.Helper()
	if len(built) > rule.MaxLength {
		t.Skipf("the rule is %d bytes long, more than rule.MaxLength", len(built))
	}
	e, err := rule.Parse(built)
	if err == nil {
		return e
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok && !utf8.ValidString(rest) {
		// Translation refuses such a host before building its rule.
		require.Error(t, checkHost(host))
		t.Skip("translation refuses this host (checkHost)")
	}
	if pathName == rule.PathRegexp {
		if _, reErr := regexp.Compile(path); reErr != nil {
			require.ErrorContains(t, err, "PathRegexp: invalid regular expression")
			t.Skip("the PathRegexp path is not a regexp")
		}
	}
	require.NoError(t, err, "the rule %s does not parse", built)
	return nil
}

// requestHost is a request host that Host(host) or a wildcard host must
// match, and whether there is one: hosts that are not plain lower-case
// ASCII names (ports, brackets, spaces, trailing dots, upper case in a
// wildcard) are compared in ways this check does not model.
func requestHost(host string) (string, bool) {
	if host == "" {
		return "any.example", true
	}
	name := host
	wildcard := strings.HasPrefix(host, "*.")
	if wildcard {
		name = host[2:]
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || c == ':' || c == '[' || c == ']' || wildcard && 'A' <= c && c <= 'Z' {
			return "", false
		}
	}
	if strings.HasSuffix(name, ".") {
		return "", false
	}
	if wildcard {
		return "label." + name, true
	}
	return strings.ToUpper(name), true
}

// webServiceAndSlice is Service default/web (port http, 80) with one slice
// of one ready endpoint.
func webServiceAndSlice() (*corev1.Service, *discoveryv1.EndpointSlice) {
	return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec:       corev1.ServiceSpec{ClusterIP: "10.96.0.1", Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
		}, &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: "web-1", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(8080))}},
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}},
		}
}

// TestTranslatedRulesParse: every rule in a translated configuration is
// one Traefik (and the rule package) can load. An Ingress path whose rule
// could not be loaded must be reported, naming the Ingress and the field,
// and left out, not handed to the proxy, which refuses the router.
func TestTranslatedRulesParse(t *testing.T) {
	svc, slice := webServiceAndSlice()
	backend := netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: "web", Port: netv1.ServiceBackendPort{Number: 80}}}
	ing := func(name, host, path string, annotations map[string]string) *netv1.Ingress {
		return &netv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: annotations},
			Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{
				Host: host,
				IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{
					{Path: path, PathType: new(netv1.PathTypeImplementationSpecific), Backend: backend},
				}}},
			}}},
		}
	}
	regexpMatcher := map[string]string{AnnotationPrefix + "router.pathmatcher": "PathRegexp"}
	snap := newMemSnapshot(svc, slice,
		ing("good", "a.example", "/ok", nil),
		ing("bad-regexp", "b.example", "/(", regexpMatcher),
		ing("bad-wildcard", "*.\xff.example", "/", nil),
	)
	opts := &Provider{}
	opts.SetDefaults()
	res := Translate(snap, opts)

	for name, r := range res.Configuration.HTTP.Routers {
		_, err := rule.Parse(r.Rule)
		assert.NoError(t, err, "router %s", name)
	}
	assert.Contains(t, res.Configuration.HTTP.Routers, "default-good-a-example-ok")
	var errs []string
	for _, e := range res.Errors {
		errs = append(errs, e.Error())
	}
	for _, want := range []string{"Ingress default/bad-regexp: spec.rules[0].http.paths[0].path", "Ingress default/bad-wildcard: spec.rules[0].host"} {
		assert.True(t, strings.Contains(strings.Join(errs, "\n"), want), "want an error %q in %q", want, errs)
	}
}

// TestAnnotationErrorsNameTheInput: an annotation error names the
// annotation as the user wrote it. Annotation names are read
// case-insensitively (router.PathMatcher is router.pathmatcher), and the
// indices of router.tls.domains.N need not start at 0 or be contiguous.
// Found by FuzzAnnotations.
func TestAnnotationErrorsNameTheInput(t *testing.T) {
	for _, tc := range []struct {
		annotations map[string]string
		want        string
	}{
		{map[string]string{ann("router.PathMatcher"): "Bogus"}, ann("router.PathMatcher")},
		{map[string]string{ann("service.ServersScheme"): "ftp"}, ann("service.ServersScheme")},
		{map[string]string{ann("service.sticky.cookie.SameSite"): "sometimes"}, ann("service.sticky.cookie.SameSite")},
		// The error names the annotation's own index: domains.5, not domains.1.
		{map[string]string{ann("router.tls.domains.0.sans"): "a.example", ann("router.tls.domains.5.main"): ""}, ann("router.tls.domains.5")},
	} {
		t.Run(fmt.Sprint(tc.annotations), func(t *testing.T) {
			_, routerErr := parseRouterAnnotations(tc.annotations)
			_, serviceErr := parseServiceAnnotations(tc.annotations)
			err := routerErr
			if err == nil {
				err = serviceErr
			}
			var ae *annotationError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.want, ae.Annotation)
		})
	}
}

// TestAnnotationErrorIsDeterministic: with several bad annotations, the
// same one is reported every time (the output, errors included, depends on
// the cluster only). Found by FuzzAnnotations.
func TestAnnotationErrorIsDeterministic(t *testing.T) {
	annotations := map[string]string{
		ann("router.tls"):            "maybe",
		ann("service.sticky"):        "perhaps",
		ann("service.sticky.cookie"): "no way",
	}
	_, first := parseServiceAnnotations(annotations)
	require.Error(t, first)
	for range 50 {
		_, err := parseServiceAnnotations(annotations)
		require.EqualError(t, err, first.Error())
	}
}

// TestTranslateErrorsSortedNaturally: the problems of one slice keep the
// order Select gives them, indices compared as numbers (addresses[2] before
// addresses[10]), as the errors of a fixture with many bad addresses show
// (fixtures/hostile-addresses/errors.txt).
func TestTranslateErrorsSortedNaturally(t *testing.T) {
	svc, slice := webServiceAndSlice()
	for i := range 11 {
		slice.Endpoints[0].Addresses = append(slice.Endpoints[0].Addresses, fmt.Sprintf("bad-%d", i))
	}
	ing := &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "default"},
		Spec: netv1.IngressSpec{DefaultBackend: &netv1.IngressBackend{
			Service: &netv1.IngressServiceBackend{Name: "web", Port: netv1.ServiceBackendPort{Number: 80}},
		}},
	}
	opts := &Provider{}
	opts.SetDefaults()
	res := Translate(newMemSnapshot(svc, slice, ing), opts)
	var fields []string
	for _, e := range res.Errors {
		if e.Kind == "EndpointSlice" {
			fields = append(fields, e.Field)
		}
	}
	require.Len(t, fields, 11)
	for i, f := range fields {
		assert.Equal(t, fmt.Sprintf("endpoints[0].addresses[%d]", i+1), f)
	}
}
