package natural

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompare(t *testing.T) {
	in := []string{"a[10]", "a[2]", "a[1]", "b", "a[01]", "a", "a[1].x[10]", "a[1].x[9]"}
	slices.SortFunc(in, Compare)
	assert.Equal(t, []string{"a", "a[1]", "a[1].x[9]", "a[1].x[10]", "a[01]", "a[2]", "a[10]", "b"}, in)
	assert.Zero(t, Compare("x[3]", "x[3]"))
}

func TestCompareCases(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"endpoints[2]", "endpoints[10]", -1},
		{"endpoints[10]", "endpoints[2]", 1},
		{"endpoints[10].addresses[1]", "endpoints[10].addresses[0]", 1},
		{"e[02]", "e[2]", 1},
		{"addressType", "endpoints[0]", -1},
		{"endpoints[1]", "ports[0]", -1},
		{"x9", "x10", -1},
		{"same", "same", 0},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, Compare(tc.a, tc.b), "%q vs %q", tc.a, tc.b)
		assert.Equal(t, -tc.want, Compare(tc.b, tc.a), "%q vs %q", tc.b, tc.a)
	}
}
