package main

import (
	"slices"
	"strings"

	"github.com/sliceway/sliceway/internal/editdistance"
)

// maxSuggestionDistance is how far a name may be from a candidate to be
// suggested: one edit for short names, up to three for long ones, so
// that "foo" suggests nothing while a letter missing from a 40-character
// flag still finds it.
func maxSuggestionDistance(name string) int {
	return max(1, min(3, len(name)/6))
}

// closest returns the candidates nearest to name (case aside), when
// they are near enough to be the name meant; failing that, those whose
// last dot-separated elements are name ("allowfqdnendpoints" for
// providers.kubernetesingress.allowfqdnendpoints), which a user who left
// out the section writes. Sorted; nil when none fits.
func closest(name string, candidates []string) []string {
	name = strings.ToLower(name)
	best, found := maxSuggestionDistance(name)+1, []string(nil)
	for _, c := range candidates {
		d := editdistance.Between(name, strings.ToLower(c))
		switch {
		case d < best:
			best, found = d, []string{c}
		case d == best:
			found = append(found, c)
		}
	}
	if found == nil && name != "" {
		for _, c := range candidates {
			if strings.HasSuffix(strings.ToLower(c), "."+name) {
				found = append(found, c)
			}
		}
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// didYouMean is the end of an error that names an unknown thing: "; did
// you mean X?" (or "X or Y"), or nothing when no candidate is near.
func didYouMean(name string, candidates []string, prefix string) string {
	found := closest(name, candidates)
	if len(found) == 0 {
		return ""
	}
	if len(found) > 3 {
		found = found[:3]
	}
	for i := range found {
		found[i] = prefix + found[i]
	}
	return "; did you mean " + strings.Join(found, " or ") + "?"
}
