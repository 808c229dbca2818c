package main

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// regexpSample is a short string the regular expression expr matches,
// written from its syntax tree: literals as written (in lower case where
// the case does not matter), the first printable
// character of a class, the first alternative, the fewest repetitions.
// It is only a sample to try a rule with: ok is false when none was found
// (the expression does not compile, or the sample does not match it,
// as an anchor in the middle makes it).
func regexpSample(expr string) (string, bool) {
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !writeSample(&b, tree.Simplify(), 0) {
		return "", false
	}
	s := b.String()
	return s, re.MatchString(s)
}

// maxSampleDepth bounds the walk of a syntax tree.
const maxSampleDepth = 100

func writeSample(b *strings.Builder, re *syntax.Regexp, depth int) bool {
	if depth > maxSampleDepth {
		return false
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		lit := string(re.Rune)
		if re.Flags&syntax.FoldCase != 0 {
			lit = strings.ToLower(lit) // the parser keeps a case-folded literal in upper case
		}
		b.WriteString(lit)
		return true
	case syntax.OpCharClass:
		r, ok := printableIn(re.Rune)
		if ok {
			b.WriteRune(r)
		}
		return ok
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
		return true
	case syntax.OpCapture, syntax.OpPlus:
		return writeSample(b, re.Sub[0], depth+1)
	case syntax.OpRepeat:
		for range re.Min {
			if !writeSample(b, re.Sub[0], depth+1) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !writeSample(b, sub, depth+1) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return writeSample(b, re.Sub[0], depth+1)
	}
	return false // OpNoMatch, and any operator added later
}

// printableIn is the first printable ASCII character (no space) of a
// class, given as pairs of bounds: what a header value or a path can
// carry as it is.
func printableIn(ranges []rune) (rune, bool) {
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := max(ranges[i], '!'), min(ranges[i+1], '~')
		if lo <= hi {
			return lo, true
		}
	}
	return 0, false
}
