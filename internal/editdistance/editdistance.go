// Package editdistance measures how far apart two names are, for the
// "did you mean" of a misspelt flag or annotation.
package editdistance

// Between is the optimal string alignment distance between a and b: an
// insertion, a deletion, a substitution or the swap of two neighbouring
// bytes each count one, so that the usual typos (a letter missing, one
// too many, two swapped) are one step away. The names it is given are
// ASCII, so bytes are letters.
func Between(a, b string) int {
	// Three rows of the table: the swap looks two rows back.
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
