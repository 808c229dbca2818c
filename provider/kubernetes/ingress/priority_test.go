package ingress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	netv1 "k8s.io/api/networking/v1"
)

func TestSpecPriorityOrder(t *testing.T) {
	exact, prefix, impl := netv1.PathTypeExact, netv1.PathTypePrefix, netv1.PathTypeImplementationSpecific
	p := func(host, path string, pt netv1.PathType) int {
		return specPriority(host, netv1.HTTPIngressPath{Path: path, PathType: &pt})
	}
	// Each pair: the first must be tried before the second.
	for _, tc := range []struct {
		name          string
		before, after int
	}{
		{"Exact before Prefix on the same path", p("a.example", "/foo", exact), p("a.example", "/foo", prefix)},
		{"longer Prefix before shorter", p("a.example", "/foo/bar", prefix), p("a.example", "/foo", prefix)},
		{"longer Prefix before shorter Exact", p("a.example", "/foo/bar", prefix), p("a.example", "/foo", exact)},
		{"exact host before wildcard host", p("a.example", "/", prefix), p("*.example", "/very/long/path", prefix)},
		{"wildcard host before no host", p("*.example", "/", prefix), p("", "/very/long/path", exact)},
		{"exact host before no host", p("a.example", "/", prefix), p("", "/x", exact)},
	} {
		assert.Greater(t, tc.before, tc.after, tc.name)
	}
	assert.Equal(t, p("a.example", "/foo", prefix), p("a.example", "/foo/", prefix), "a trailing slash does not count for Prefix")
	assert.Equal(t, p("a.example", "/foo", prefix), p("a.example", "/foo", impl), "ImplementationSpecific ranks as Prefix")
	assert.Positive(t, p("", "", prefix), "never 0, which means no priority")
	assert.Less(t, p("a.example", string(make([]byte, 1<<22)), exact), 1<<22, "bounded for very long paths")
}
