// Package natural compares strings with their runs of digits as numbers, so
// that "addresses[2]" sorts before "addresses[10]".
package natural

import (
	"cmp"
	"strings"
)

// Compare returns -1, 0 or +1 as a sorts before, with or after b. Runs of
// digits compare by value, then by length (so "01" after "1").
func Compare(a, b string) int {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			na, nb := digitRun(a), digitRun(b)
			da, db := strings.TrimLeft(a[:na], "0"), strings.TrimLeft(b[:nb], "0")
			if c := cmp.Or(cmp.Compare(len(da), len(db)), strings.Compare(da, db), cmp.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[na:], b[nb:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}
