package nginx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A misspelt annotation is named as one, with the annotation meant; one
// ingress-nginx has and sliceway lacks is still "not supported". Either
// way the Ingress is closed exactly as before: when the name looks like
// access control.
func TestUnknownAnnotationSaysWhetherItIsAMisspelling(t *testing.T) {
	for _, tc := range []struct {
		name   string
		want   string
		closed bool
	}{
		{"rewrite-targets", "not an ingress-nginx annotation; did you mean rewrite-target?", false},
		{"rewrite-tagret", "not an ingress-nginx annotation; did you mean rewrite-target?", false},
		{"Rewrite-Target", "not an ingress-nginx annotation; did you mean rewrite-target?", false},
		{"ssl-redirects", "not an ingress-nginx annotation; did you mean ssl-redirect?", false},
		{"whitelist-source-ranges", "not an ingress-nginx annotation; did you mean whitelist-source-range?", true},
		{"auth-urll", "not an ingress-nginx annotation; did you mean auth-url?", true},
		{"configuration-snipet", "not an ingress-nginx annotation; did you mean configuration-snippet?", false},
		// ingress-nginx documents them; sliceway lacks them.
		{"enable-access-log", "not supported by sliceway's ingress-nginx dialect", false},
		{"satisfy", "not supported by sliceway's ingress-nginx dialect", true},
		{"proxy-cookie-path", "not supported by sliceway's ingress-nginx dialect", false},
		// An annotation of an earlier ingress-nginx, near a current one.
		{"session-cookie-hash", "not supported by sliceway's ingress-nginx dialect", false},
		// Near nothing.
		{"my-own-idea", "not supported by sliceway's ingress-nginx dialect", false},
		{"rpm", "not supported by sliceway's ingress-nginx dialect", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := ParseAnnotations(map[string]string{AnnotationPrefix + tc.name: "x"})
			require.Len(t, problems, 1)
			assert.Equal(t, AnnotationPrefix+tc.name, problems[0].Annotation)
			assert.Contains(t, problems[0].Err.Error(), tc.want)
			assert.Equal(t, tc.closed, problems[0].Closed, "closed as looksLikeAccess says")
			assert.Equal(t, looksLikeAccess(tc.name), problems[0].Closed)
		})
	}
}
