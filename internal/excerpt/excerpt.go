// Package excerpt shortens the values that error messages echo. A value
// comes from whoever wrote the object (an annotation, a host, a path, a
// manifest), and may be as long as the object: an error quotes its first
// few hundred bytes and says how long it is, so that one bad value never
// makes a log line of a quarter megabyte.
package excerpt

import (
	"strconv"
	"unicode/utf8"
)

// Max is the most bytes of a value a message shows; a longer value is cut
// (at a rune boundary) and followed by its length.
const Max = 256

// maxQuoted bounds the quoted text of the part shown, whose escapes
// (\x00 for a NUL) may make it four times as long as the value.
const maxQuoted = 2 * Max

// Quote is strconv.Quote(s) for a value of up to Max bytes whose quoted
// text is not much longer; else the quoted start of s, ending in "...",
// and the length of s: "m00000@file,m00001@f..." (252,000 bytes).
func Quote(s string) string {
	if len(s) <= Max {
		if q := strconv.Quote(s); len(q) <= maxQuoted {
			return q
		}
	}
	for cut := min(len(s), Max); ; cut /= 2 {
		cut = runeStart(s, cut)
		if q := strconv.Quote(s[:cut]); len(q) <= maxQuoted || cut == 0 {
			return q[:len(q)-1] + `..."` + length(len(s))
		}
	}
}

// Text is s when it has at most Max bytes, else its first Max bytes (at
// a rune boundary), "..." and its length: for a text a message shows as
// it is (a rule, a kind), without quotes.
func Text(s string) string {
	if len(s) <= Max {
		return s
	}
	return s[:runeStart(s, Max)] + "..." + length(len(s))
}

// runeStart moves cut back to the start of the rune it falls in.
func runeStart(s string, cut int) int {
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return cut
}

// length is " (n bytes)", n written with a comma every three digits.
func length(n int) string {
	digits := strconv.Itoa(n)
	b := make([]byte, 0, len(digits)+len(digits)/3+len(" ( bytes)"))
	b = append(b, " ("...)
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, digits[i])
	}
	return string(append(b, " bytes)"...))
}
