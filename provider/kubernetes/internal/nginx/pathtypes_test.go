package nginx

import (
	"regexp"
	"testing"
)

// strictPath is ingress-nginx's rule, a regular expression there.
func TestStrictPathIsIngressNGINXsRule(t *testing.T) {
	rule := regexp.MustCompile(`(?i)^/[[:alnum:]._\-/]*$`)
	for _, p := range []string{"", "/", "/a", "/A.b_c-d/e", "a", "/a b", "/v[0-9]+", "/x(y)?", "/é", "/a$", "/a*", "//", "/~", "/a%20", "/a\n"} {
		if got, want := strictPath(p), rule.MatchString(p); got != want {
			t.Errorf("strictPath(%q) = %t, ingress-nginx's rule says %t", p, got, want)
		}
	}
}
