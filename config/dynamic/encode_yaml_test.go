package dynamic

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
)

func checkEncodeYAML(t *testing.T, e *YAMLEncoder, c *Configuration) {
	t.Helper()
	want, err := MarshalYAML(c)
	require.NoError(t, err)
	got, err := e.Encode(c)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

func TestYAMLEncoderWritesWhatMarshalYAMLWrites(t *testing.T) {
	var e YAMLEncoder
	for _, c := range encoderEdgeCases() {
		checkEncodeYAML(t, &e, c)
		checkEncodeYAML(t, &e, c)
		checkEncodeYAML(t, &YAMLEncoder{}, c)
	}
}

func TestYAMLEncoderFollowsChanges(t *testing.T) {
	var e YAMLEncoder
	followChanges(t, &e.texts, func(c *Configuration) { checkEncodeYAML(t, &e, c) })
}

// yamlKeyOrder is the order the YAML library writes the keys in.
func yamlKeyOrder(t *testing.T, keys []string) []string {
	t.Helper()
	m := map[string]int{}
	for _, k := range keys {
		m[k] = 0
	}
	text, err := yaml.Marshal(m)
	require.NoError(t, err)
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(text, &doc))
	var order []string
	content := doc.Content[0].Content
	for i := 0; i < len(content); i += 2 {
		order = append(order, content[i].Value)
	}
	return order
}

func TestYAMLKeyCompareIsTheYAMLLibrarysOrder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	// What names of routers and services are made of (letters, digits,
	// dashes; Unicode letters and numbers), zeros and longer numbers.
	alphabet := []string{"a", "b", "z", "A", "Z", "-", "0", "1", "2", "9", "00", "10", "007", "é", "ß", "²", "٣", "x1", "r"}
	for round := range 300 {
		set := map[string]bool{}
		for range 2 + rnd.IntN(40) {
			var b strings.Builder
			for range rnd.IntN(6) {
				b.WriteString(alphabet[rnd.IntN(len(alphabet))])
			}
			set[b.String()] = true
		}
		keys := slices.Collect(maps.Keys(set))
		want := yamlKeyOrder(t, keys)
		got := slices.SortedFunc(slices.Values(keys), yamlKeyCompare)
		require.Equal(t, want, got, "round %d", round)
	}
}

// Keys and values with line breaks, quotes and control characters, at every
// place a fragment is indented to: the text is MarshalYAML's.
func TestYAMLEncoderOddCharacters(t *testing.T) {
	odd := []string{"\u2028", "\u2029", "\u0085", "\r", "\r\n", "\n", "\n\n", " \n ", "\t", "\u2028\u2028", "a\u2028 b", "a\u2028\n", "#", ": ", "- x", "\"'", "\u00a0", "\ufeff", "\x00", "\x7f"}
	for _, a := range odd {
		for _, b := range odd {
			key := "k" + a + "x" + b
			c := &Configuration{HTTP: &HTTPConfiguration{Routers: map[string]*Router{
				key:     {Rule: "r" + b + "y" + a, Service: a, EntryPoints: []string{b, a + b}},
				"plain": {Rule: b},
			}}, TLS: &TLSConfiguration{Certificates: []*CertAndStores{{Certificate: Certificate{CertFile: "-----\n" + a + "\nx" + b + "\n", KeyFile: a}}}}}
			want, _ := MarshalYAML(c)
			var e YAMLEncoder
			got, err := e.Encode(c)
			if err != nil || string(got) != string(want) {
				t.Errorf("%q %q:\n%q\n%q", a, b, want, got)
			}
		}
	}
}
