package translate

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
)

// TestBuildRuleInjection checks that no host or path can add a matcher or
// change the meaning of a rule: each value comes back intact from its
// Go-quoted argument, and the rule has exactly the expected matchers.
func TestBuildRuleInjection(t *testing.T) {
	nasty := []string{
		`a") || Host("evil.com`,
		"a`) || Host(`evil.com",
		`a" && PathPrefix("/`,
		`"`,
		`\`,
		`\"`,
		`a\") || Host(\"evil`,
		"`",
		"a\nb",
		"a\r\nHost(\"x\")",
		"a\x00b",
		"\x00",
		"a\tb",
		"a\xffb",
		"ünïcödé",
		"a\u2028b",
		`) || Path("/`,
		`PathPrefix("/")`,
		"$(x)",
		"%s%q%v",
		"a'b",
		"/a/../b",
	}
	exact := pathTypePtr(netv1.PathTypeExact)
	prefix := pathTypePtr(netv1.PathTypePrefix)

	for i, v := range nasty {
		host := "h" + v
		path := "/" + v
		// Strict prefix matching ignores the trailing slashes of a path.
		strictPath := strings.TrimRight(path, "/")
		t.Run(fmt.Sprintf("%d %q", i, v), func(t *testing.T) {
			tests := []struct {
				desc      string
				host      string
				path      netv1.HTTPIngressPath
				matcher   string
				strict    bool
				wantCalls []string
				wantArgs  []string
			}{
				{desc: "host", host: host, wantCalls: []string{"Host"}, wantArgs: []string{host}},
				{desc: "exact path", path: netv1.HTTPIngressPath{Path: path, PathType: exact}, wantCalls: []string{"Path"}, wantArgs: []string{path}},
				{desc: "prefix path", path: netv1.HTTPIngressPath{Path: path, PathType: prefix}, wantCalls: []string{"PathPrefix"}, wantArgs: []string{path}},
				{desc: "matcher annotation", path: netv1.HTTPIngressPath{Path: path}, matcher: "PathRegexp", wantCalls: []string{"PathRegexp"}, wantArgs: []string{path}},
				{desc: "host and path", host: host, path: netv1.HTTPIngressPath{Path: path, PathType: exact},
					wantCalls: []string{"Host", "Path"}, wantArgs: []string{host, path}},
				{desc: "host and strict prefix", host: host, path: netv1.HTTPIngressPath{Path: path, PathType: prefix}, strict: true,
					wantCalls: []string{"Host", "Path", "PathPrefix"}, wantArgs: []string{host, strictPath, strictPath + "/"}},
			}
			for _, tc := range tests {
				rule := buildRule(tc.host, tc.path, tc.matcher, tc.strict)
				assert.Equal(t, tc.wantArgs, quotedArgs(t, rule), "%s: rule %s", tc.desc, rule)
				assert.Equal(t, tc.wantCalls, matcherCalls(t, rule), "%s: rule %s", tc.desc, rule)
				assertParsesAsMatchers(t, rule)
			}

			// A wildcard host: the regexp argument must be a quoted regexp
			// that matches the literal rest of the host and nothing else.
			rule := buildRule("*."+v, netv1.HTTPIngressPath{}, "", false)
			args := quotedArgs(t, rule)
			require.Len(t, args, 1, rule)
			assert.Equal(t, []string{"HostRegexp"}, matcherCalls(t, rule))
			if !strings.Contains(v, "\xff") {
				re, err := regexp.Compile(args[0])
				require.NoError(t, err, rule)
				assert.True(t, re.MatchString("x."+v), "%s should match %q", re, "x."+v)
				assert.False(t, re.MatchString("evil.com"), "%s should not match evil.com", re)
			}
		})
	}
}
