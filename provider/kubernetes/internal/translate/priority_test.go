package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	netv1 "k8s.io/api/networking/v1"
)

func TestSpecPriorityOrder(t *testing.T) {
	exact, prefix, impl := netv1.PathTypeExact, netv1.PathTypePrefix, netv1.PathTypeImplementationSpecific
	for _, strict := range []bool{false, true} {
		p := func(host, path string, pt netv1.PathType) int {
			return specPriority(host, netv1.HTTPIngressPath{Path: path, PathType: &pt}, strict)
		}
		// Each pair: the first must be tried before the second.
		for _, tc := range []struct {
			name          string
			before, after int
		}{
			{"Exact before Prefix on the same path", p("a.example", "/foo", exact), p("a.example", "/foo", prefix)},
			{"Prefix before ImplementationSpecific on the same path", p("a.example", "/foo", prefix), p("a.example", "/foo", impl)},
			{"a short Exact path before Prefix /", p("a.example", "/x", exact), p("a.example", "/", prefix)},
			{"longer Prefix before shorter", p("a.example", "/foo/bar", prefix), p("a.example", "/foo", prefix)},
			{"longer Prefix before shorter Exact", p("a.example", "/foo/bar", prefix), p("a.example", "/foo", exact)},
			{"longer ImplementationSpecific before shorter Exact", p("a.example", "/foo/bar", impl), p("a.example", "/foo", exact)},
			{"exact host before wildcard host", p("a.example", "/", prefix), p("*.example", "/very/long/path", exact)},
			{"wildcard host before no host", p("*.example", "/", impl), p("", "/very/long/path", exact)},
			{"exact host before no host", p("a.example", "/", prefix), p("", "/x", exact)},
		} {
			assert.Greater(t, tc.before, tc.after, "%s (strictPrefixMatching=%t)", tc.name, strict)
		}
		assert.Positive(t, p("", "", impl), "never 0, which means no priority")
		assert.Less(t, p("a.example", string(make([]byte, 1<<22)), exact), 1<<22, "bounded for very long paths")
	}
	prefixPath := func(path string, strict bool) int {
		pt := netv1.PathTypePrefix
		return specPriority("a.example", netv1.HTTPIngressPath{Path: path, PathType: &pt}, strict)
	}
	assert.Equal(t, prefixPath("/foo", true), prefixPath("/foo/", true), "matched by element, a trailing slash does not count")
	assert.Greater(t, prefixPath("/foo/", false), prefixPath("/foo", false), "a literal prefix: /foo/ is the longer one")
}
