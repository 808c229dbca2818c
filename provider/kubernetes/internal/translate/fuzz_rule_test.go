package translate

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/rule"
)

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
