package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	netv1 "k8s.io/api/networking/v1"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{in: "", want: ""},
		{in: "abc", want: "abc"},
		{in: "Abc123", want: "Abc123"},
		{in: "default-whoami-80", want: "default-whoami-80"},
		{in: "default-foo-bar.example.com/api", want: "default-foo-bar-example-com-api"},
		{in: "a--b", want: "a-b"},
		{in: "a._/~b", want: "a-b"},
		{in: "a \t\nb", want: "a-b"},
		{in: "-abc", want: "abc"},
		{in: "abc-", want: "abc"},
		{in: "//a//b//", want: "a-b"},
		{in: "-", want: ""},
		{in: "/", want: ""},
		{in: "!@#$%^&*()", want: ""},
		{in: "ns-ing-/", want: "ns-ing"},
		{in: "héllo.wörld", want: "héllo-wörld"},
		{in: "ns/例え.テスト", want: "ns-例え-テスト"},
		{in: "Ωmega_σ", want: "Ωmega-σ"},
		{in: "a😀b", want: "a-b"},
		{in: "٣٤", want: "٣٤"}, // Arabic-Indic digits are digits
		{in: "a\x00b", want: "a-b"},
		{in: "a\xffb", want: "a-b"}, // invalid UTF-8 is not a letter
	}
	for _, tc := range tests {
		t.Run(strconv.Quote(tc.in), func(t *testing.T) {
			got := Normalize(tc.in)
			assert.Equal(t, tc.want, got)
			assert.False(t, strings.HasPrefix(got, "-"), "leading dash")
			assert.False(t, strings.HasSuffix(got, "-"), "trailing dash")
			assert.NotContains(t, got, "--")
			assert.Equal(t, got, Normalize(got), "Normalize must be idempotent")
		})
	}
}

func TestRouterKey(t *testing.T) {
	tests := []struct {
		desc                  string
		namespace, name, host string
		path                  string
		want                  string
	}{
		{desc: "host and path", namespace: "default", name: "whoami", host: "foo.example.com", path: "/api/v1", want: "default-whoami-foo-example-com-api-v1"},
		{desc: "no host, no path", namespace: "default", name: "whoami", want: "default-whoami"},
		{desc: "root path only", namespace: "default", name: "whoami", path: "/", want: "default-whoami"},
		{desc: "wildcard host", namespace: "team-a", name: "web", host: "*.foo.com", path: "/", want: "team-a-web-foo-com"},
		{desc: "host without path", namespace: "ns", name: "ing", host: "bar.com", want: "ns-ing-bar-com"},
		{desc: "host and path are concatenated", namespace: "ns", name: "ing", host: "a", path: "b", want: "ns-ing-ab"},
		{desc: "runs of symbols", namespace: "ns", name: "ing", host: "x.com", path: "/a//b/_c", want: "ns-ing-x-com-a-b-c"},
		{desc: "unicode", namespace: "ns", name: "ing", host: "bücher.de", path: "/straße", want: "ns-ing-bücher-de-straße"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			assert.Equal(t, tc.want, routerKey(tc.namespace, tc.name, tc.host, tc.path))
		})
	}
}

func TestServiceKey(t *testing.T) {
	tests := []struct {
		namespace, name, port string
		want                  string
	}{
		{namespace: "default", name: "whoami", port: "80", want: "default-whoami-80"},
		{namespace: "default", name: "whoami", port: "http", want: "default-whoami-http"},
		{namespace: "default", name: "whoami", port: "https-web", want: "default-whoami-https-web"},
		{namespace: "team.a", name: "svc_b", port: "web", want: "team-a-svc-b-web"},
		{namespace: "ns", name: "svc", port: "", want: "ns-svc"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, serviceKey(tc.namespace, tc.name, tc.port))
		})
	}
}

func TestHashedRouterKey(t *testing.T) {
	tests := []struct {
		desc string
		key  string
		rule string
		want string // when set, a known SHA-256 vector
	}{
		// sha256("") = e3b0c44298fc1c149afbf4c8996fb924...
		{desc: "empty rule", key: "k", rule: "", want: "k-e3b0c44298fc1c149afb"},
		// sha256("abc") = ba7816bf8f01cfea414140de5dae2223...
		{desc: "abc", key: "default-ing", rule: "abc", want: "default-ing-ba7816bf8f01cfea4141"},
		{desc: "path rule", key: "default-ing-foo", rule: `Path("/foo")`},
		{desc: "prefix rule", key: "default-ing-foo", rule: `PathPrefix("/foo")`},
		{desc: "host and path", key: "default-ing-foo-com-bar", rule: `Host("foo.com") && PathPrefix("/bar")`},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			sum := sha256.Sum256([]byte(tc.rule))
			want := tc.key + "-" + hex.EncodeToString(sum[:])[:20]
			if tc.want != "" {
				require.Equal(t, tc.want, want, "test vector")
			}
			got := HashedRouterKey(tc.key, tc.rule)
			assert.Equal(t, want, got)

			suffix, ok := strings.CutPrefix(got, tc.key+"-")
			require.True(t, ok, "the key must be kept as the prefix")
			assert.Regexp(t, `^[0-9a-f]{20}$`, suffix)
			assert.Equal(t, got, HashedRouterKey(tc.key, tc.rule), "stable")
			if other, dup := seen[got]; dup {
				t.Errorf("rules %q and %q give the same key %q", other, tc.rule, got)
			}
			seen[got] = tc.rule
		})
	}
}

// normalizeReference is normalizeParts rune by rune, as it was written
// first: what the faster one must give.
func normalizeReference(parts ...string) string {
	var out []rune
	pendingDash := false
	for _, r := range strings.Join(parts, "") {
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r)) {
			if pendingDash && len(out) > 0 {
				out = append(out, '-')
			}
			pendingDash = false
			out = append(out, r)
			continue
		}
		pendingDash = true
	}
	return string(out)
}

// TestNormalizePartsMatchesReference: random parts of names, hosts and
// paths, with other bytes and runes among them, normalise as the reference
// does, however they are split into parts.
func TestNormalizePartsMatchesReference(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 3))
	pieces := []string{"a", "Z", "9", "shop", "-", ".", "/", "_", " ", "é", "例", "😀", "٣", "\xff", "\x00", "--", "api/v1", "*."}
	for range 20000 {
		parts := make([]string, 1+rnd.IntN(5))
		for i := range parts {
			var b strings.Builder
			for range rnd.IntN(6) {
				b.WriteString(pieces[rnd.IntN(len(pieces))])
			}
			parts[i] = b.String()
		}
		require.Equal(t, normalizeReference(parts...), normalizeParts(parts...), "%q", parts)
	}
}

// BenchmarkRouterName is what every path of a full render spends on its
// router's key and rule.
func BenchmarkRouterName(b *testing.B) {
	prefix := netv1.PathTypePrefix
	path := netv1.HTTPIngressPath{Path: "/", PathType: &prefix}
	b.ReportAllocs()
	for b.Loop() {
		_ = routerKey("default", "shop-01234", "shop-01234.example.com", path.Path)
		_ = buildRule("shop-01234.example.com", path, "", false)
	}
}
