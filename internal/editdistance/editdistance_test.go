package editdistance

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBetween(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"abc", "abc", 0},
		{"rewrite-targets", "rewrite-target", 1}, // one too many
		{"rewrite-tagret", "rewrite-target", 1},  // two swapped
		{"limit-rps", "limit-rpm", 1},            // one replaced
		{"kitten", "sitting", 3},
	} {
		assert.Equal(t, tc.want, Between(tc.a, tc.b), "%q %q", tc.a, tc.b)
		assert.Equal(t, tc.want, Between(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
}
