package excerpt

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("m00000@file,", 21_000)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"short", "web,websecure", `"web,websecure"`},
		{"escapes", "a\"b\x00", `"a\"b\x00"`},
		{"exactly Max", strings.Repeat("a", Max), strconv.Quote(strings.Repeat("a", Max))},
		{"one more", strings.Repeat("a", Max+1), `"` + strings.Repeat("a", Max) + `..." (257 bytes)`},
		{"annotation", long, `"` + long[:Max] + `..." (252,000 bytes)`},
		{"rune boundary", strings.Repeat("a", Max-1) + "é" + "b", `"` + strings.Repeat("a", Max-1) + `..." (258 bytes)`},
		{"escapes that grow", strings.Repeat("\x00", 200), `"` + strings.Repeat(`\x00`, 100) + `..." (200 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Quote(tc.in)
			assert.Equal(t, tc.want, got)
			assert.LessOrEqual(t, len(got), maxQuoted+len(`... (1,000,000,000 bytes)`))
		})
	}
}

func TestText(t *testing.T) {
	assert.Equal(t, "example.com/v1 Gadget", Text("example.com/v1 Gadget"))
	assert.Equal(t, strings.Repeat("k", Max)+"... (1,000,000 bytes)", Text(strings.Repeat("k", 1_000_000)))
	assert.Equal(t, strings.Repeat("k", Max-2)+"... (1,007 bytes)", Text(strings.Repeat("k", Max-2)+strings.Repeat("€", 251)))
}
