package nginx

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
)

// rewritten is the path Traefik's replacePathRegex sends for path, with
// the middleware the rewrite-target of ingPath builds.
func rewritten(t *testing.T, ingPath, target, path string) string {
	t.Helper()
	re, err := regexp.Compile("(?i)^(?:" + ingPath + ").*")
	require.NoError(t, err)
	return re.ReplaceAllString(path, goReplacement(target))
}

// nginx's rewrite replaces the whole URI with the target, its groups
// expanded (ingress-nginx's e2e: /foo/bar/bar with /foo/bar/(.+) and
// /new/backend/$1 is sent as /new/backend/bar).
func TestRewriteTarget(t *testing.T) {
	assert.Equal(t, "/new/backend/bar", rewritten(t, "/foo/bar/(.+)", "/new/backend/$1", "/foo/bar/bar"))
	assert.Equal(t, "/", rewritten(t, "/something", "/", "/something/else"))
	assert.Equal(t, "/new/backend", rewritten(t, "/foo.+", "/new/backend", "/FOO/bar"))
	assert.Equal(t, "/x", rewritten(t, "/v1(/|$)(.*)", "/$2", "/v1/x"))
	assert.Equal(t, "/v/a2", rewritten(t, "/(a)", "/v/$12", "/a"), "nginx reads one digit: $12 is group 1 and 2")
	assert.Equal(t, "/a", rewritten(t, "/(a)|/(b)", "/$1$2", "/a/z"), "an alternation stays within the path's group")
}

func TestRewriteTargetValues(t *testing.T) {
	for _, ok := range []string{"/", "/new/$1/x", "$1", "/a-b_c.d~e:f"} {
		_, err := parseRewriteTarget(ok)
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{"/$host", "/x$", "/a b", "/a?b=1", `/a"`} {
		_, err := parseRewriteTarget(bad)
		assert.Error(t, err, bad)
	}
}

func TestRegexModeNeedsARewrite(t *testing.T) {
	ing := testIngress("h.example", "/same")
	c := PathConfig{RewriteTarget: "/same"}
	assert.False(t, c.regexMode(ing, "h.example"), "a target equal to the path is no rewrite")
	c.RewriteTarget = "/other"
	assert.True(t, c.regexMode(ing, "h.example"))
	assert.False(t, c.regexMode(ing, "other.example"), "only the paths of the host count")
}

func TestAliases(t *testing.T) {
	got, err := parseAliases(" b.example, A.example,b.example,, *.c.example ")
	require.NoError(t, err)
	assert.Equal(t, []string{"*.c.example", "a.example", "b.example"}, got)
	for _, bad := range []string{"~^www\\d+\\.example$", " , ", "a b.example"} {
		_, err := parseAliases(bad)
		assert.Error(t, err, bad)
	}
	ing := testIngress("shop.example", "/")
	ing.Annotations = map[string]string{AnnotationPrefix + "server-alias": "b.example", AnnotationPrefix + "from-to-www-redirect": "true"}
	assert.Equal(t, []string{"shop.example", "www.shop.example", "b.example"}, (*Options)(nil).Hosts(ing))
}

func testIngress(host, path string) *netv1.Ingress {
	return &netv1.Ingress{Spec: netv1.IngressSpec{Rules: []netv1.IngressRule{{Host: host,
		IngressRuleValue: netv1.IngressRuleValue{HTTP: &netv1.HTTPIngressRuleValue{Paths: []netv1.HTTPIngressPath{{Path: path}}}}}}}}
}
