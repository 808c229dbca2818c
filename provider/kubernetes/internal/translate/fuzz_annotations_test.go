package translate

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/testobjects"
)

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
		{"router.middlewares", "a@file, NGINX_b@http", "router.tls.options", "nginx_", "service.serverstransport", " nginx_t@x@y"},
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
		{map[string]string{testobjects.Annotation("router.PathMatcher"): "Bogus"}, testobjects.Annotation("router.PathMatcher")},
		{map[string]string{testobjects.Annotation("service.ServersScheme"): "ftp"}, testobjects.Annotation("service.ServersScheme")},
		{map[string]string{testobjects.Annotation("service.sticky.cookie.SameSite"): "sometimes"}, testobjects.Annotation("service.sticky.cookie.SameSite")},
		// The error names the annotation's own index: domains.5, not domains.1.
		{map[string]string{testobjects.Annotation("router.tls.domains.0.sans"): "a.example", testobjects.Annotation("router.tls.domains.5.main"): ""}, testobjects.Annotation("router.tls.domains.5")},
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
		testobjects.Annotation("router.tls"):            "maybe",
		testobjects.Annotation("service.sticky"):        "perhaps",
		testobjects.Annotation("service.sticky.cookie"): "no way",
	}
	_, first := parseServiceAnnotations(annotations)
	require.Error(t, first)
	for range 50 {
		_, err := parseServiceAnnotations(annotations)
		require.EqualError(t, err, first.Error())
	}
}
