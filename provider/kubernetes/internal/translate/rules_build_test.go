package translate

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
)

func TestHostRule(t *testing.T) {
	tests := []struct {
		desc     string
		host     string
		want     string
		matches  []string // for HostRegexp
		excludes []string
	}{
		{desc: "plain host", host: "foo.com", want: `Host("foo.com")`},
		{desc: "plain subdomain", host: "a.b.foo.com", want: `Host("a.b.foo.com")`},
		{
			desc:     "wildcard",
			host:     "*.foo.com",
			want:     `HostRegexp("^[a-zA-Z0-9-]+\\.foo\\.com$")`,
			matches:  []string{"bar.foo.com", "BAR-1.foo.com", "x.foo.com"},
			excludes: []string{"foo.com", ".foo.com", "a.b.foo.com", "barxfooxcom", "bar.foo.com.evil", "evil.bar.foo.com", "bar_x.foo.com"},
		},
		{
			desc:     "wildcard with regexp metacharacters",
			host:     "*.a+b(c).com",
			want:     `HostRegexp("^[a-zA-Z0-9-]+\\.a\\+b\\(c\\)\\.com$")`,
			matches:  []string{"x.a+b(c).com"},
			excludes: []string{"x.aab(c).com", "x.abc.com"},
		},
		{desc: "star not followed by a dot is not a wildcard", host: "*foo.com", want: `Host("*foo.com")`},
		{desc: "inner star is not a wildcard", host: "a.*.foo.com", want: `Host("a.*.foo.com")`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got := hostRule(tc.host)
			assert.Equal(t, tc.want, got)
			if tc.matches == nil && tc.excludes == nil {
				return
			}
			args := quotedArgs(t, got)
			require.Len(t, args, 1)
			re, err := regexp.Compile(args[0])
			require.NoError(t, err)
			for _, h := range tc.matches {
				assert.True(t, re.MatchString(h), "%s should match %q", re, h)
			}
			for _, h := range tc.excludes {
				assert.False(t, re.MatchString(h), "%s should not match %q", re, h)
			}
		})
	}
}

func pathTypePtr(pt netv1.PathType) *netv1.PathType { return &pt }

func TestPathRule(t *testing.T) {
	exact := pathTypePtr(netv1.PathTypeExact)
	prefix := pathTypePtr(netv1.PathTypePrefix)
	implSpecific := pathTypePtr(netv1.PathTypeImplementationSpecific)
	empty := pathTypePtr("")

	tests := []struct {
		desc     string
		pathType *netv1.PathType
		path     string
		matcher  string
		strict   bool
		want     string
	}{
		{desc: "exact", pathType: exact, path: "/foo", want: `Path("/foo")`},
		{desc: "exact ignores the matcher annotation", pathType: exact, path: "/foo", matcher: "PathRegexp", want: `Path("/foo")`},
		{desc: "exact ignores strict prefix", pathType: exact, path: "/foo/", strict: true, want: `Path("/foo/")`},
		{desc: "prefix", pathType: prefix, path: "/foo", want: `PathPrefix("/foo")`},
		{desc: "prefix keeps a trailing slash when not strict", pathType: prefix, path: "/foo/", want: `PathPrefix("/foo/")`},
		{desc: "prefix ignores the matcher annotation", pathType: prefix, path: "/foo", matcher: "Path", want: `PathPrefix("/foo")`},
		{desc: "prefix root", pathType: prefix, path: "/", want: `PathPrefix("/")`},
		{desc: "strict prefix", pathType: prefix, path: "/foo", strict: true, want: `(Path("/foo") || PathPrefix("/foo/"))`},
		{desc: "strict prefix, trailing slash", pathType: prefix, path: "/foo/", strict: true, want: `(Path("/foo") || PathPrefix("/foo/"))`},
		{desc: "strict prefix, several trailing slashes", pathType: prefix, path: "/foo//", strict: true, want: `(Path("/foo") || PathPrefix("/foo/"))`},
		{desc: "strict prefix, nested", pathType: prefix, path: "/foo/bar", strict: true, want: `(Path("/foo/bar") || PathPrefix("/foo/bar/"))`},
		{desc: "strict prefix, root", pathType: prefix, path: "/", strict: true, want: `PathPrefix("/")`},
		{desc: "strict prefix, double slash root", pathType: prefix, path: "//", strict: true, want: `PathPrefix("/")`},
		{desc: "strict prefix ignores the matcher annotation", pathType: prefix, path: "/foo", matcher: "Path", strict: true, want: `(Path("/foo") || PathPrefix("/foo/"))`},
		{desc: "implementation specific defaults to PathPrefix", pathType: implSpecific, path: "/foo", want: `PathPrefix("/foo")`},
		{desc: "implementation specific is not strict", pathType: implSpecific, path: "/foo", strict: true, want: `PathPrefix("/foo")`},
		{desc: "implementation specific with Path", pathType: implSpecific, path: "/foo", matcher: "Path", want: `Path("/foo")`},
		{desc: "implementation specific with PathPrefix", pathType: implSpecific, path: "/foo", matcher: "PathPrefix", want: `PathPrefix("/foo")`},
		{desc: "implementation specific with PathRegexp", pathType: implSpecific, path: "^/foo/[0-9]+$", matcher: "PathRegexp", want: `PathRegexp("^/foo/[0-9]+$")`},
		{desc: "nil path type is implementation specific", pathType: nil, path: "/foo", want: `PathPrefix("/foo")`},
		{desc: "nil path type with the matcher annotation", pathType: nil, path: "/foo", matcher: "Path", want: `Path("/foo")`},
		{desc: "empty path type is implementation specific", pathType: empty, path: "/foo", matcher: "PathRegexp", want: `PathRegexp("/foo")`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			assert.Equal(t, tc.want, pathRule(tc.pathType, tc.path, tc.matcher, tc.strict))
		})
	}
}

func TestBuildRule(t *testing.T) {
	exact := pathTypePtr(netv1.PathTypeExact)
	prefix := pathTypePtr(netv1.PathTypePrefix)

	tests := []struct {
		desc    string
		host    string
		path    netv1.HTTPIngressPath
		matcher string
		strict  bool
		want    string
	}{
		{desc: "nothing matches everything", want: `PathPrefix("/")`},
		{desc: "host only", host: "foo.com", want: `Host("foo.com")`},
		{desc: "path only", path: netv1.HTTPIngressPath{Path: "/bar", PathType: exact}, want: `Path("/bar")`},
		{desc: "host and exact path", host: "foo.com", path: netv1.HTTPIngressPath{Path: "/bar", PathType: exact}, want: `Host("foo.com") && Path("/bar")`},
		{desc: "host and prefix path", host: "foo.com", path: netv1.HTTPIngressPath{Path: "/bar", PathType: prefix}, want: `Host("foo.com") && PathPrefix("/bar")`},
		{desc: "wildcard host and strict prefix", host: "*.foo.com", path: netv1.HTTPIngressPath{Path: "/bar/", PathType: prefix}, strict: true,
			want: `HostRegexp("^[a-zA-Z0-9-]+\\.foo\\.com$") && (Path("/bar") || PathPrefix("/bar/"))`},
		{desc: "host and matcher annotation", host: "foo.com", path: netv1.HTTPIngressPath{Path: "/b.r"}, matcher: "PathRegexp", want: `Host("foo.com") && PathRegexp("/b.r")`},
		{desc: "host, path type without a path", host: "foo.com", path: netv1.HTTPIngressPath{PathType: exact}, want: `Host("foo.com")`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got := buildRule(tc.host, tc.path, tc.matcher, tc.strict)
			assert.Equal(t, tc.want, got)
			assertParsesAsMatchers(t, got)
		})
	}
}

// TestAppendQuoted: the quick path quotes as strconv.Quote does, every
// byte alone and random texts.
func TestAppendQuoted(t *testing.T) {
	for c := range 256 {
		s := "a" + string([]byte{byte(c)}) + "b"
		require.Equal(t, strconv.Quote(s), string(appendQuoted(nil, s)), "byte %#x", c)
	}
	rnd := rand.New(rand.NewPCG(5, 8))
	for range 5000 {
		b := make([]byte, rnd.IntN(12))
		for i := range b {
			b[i] = byte(' ' + rnd.IntN(96))
		}
		require.Equal(t, strconv.Quote(string(b)), string(appendQuoted([]byte("x"), string(b))[1:]))
	}
}
