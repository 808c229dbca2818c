package engine

import (
	"cmp"
	"slices"

	"github.com/sliceway/sliceway/internal/natural"
)

// collectErrors returns the problems of the current state: the previous
// list while nothing that reports changed, else those of this proxy's
// Node, the dialect's settings, the assembly, every part and every entry
// in use, sorted.
func (r *Renderer) collectErrors() []*ObjectError {
	if r.res != nil && !r.st.errsDirty && !r.asm.dirty {
		return r.res.Errors
	}
	r.st.errsDirty, r.asm.dirty = false, false
	errs := slices.Concat(r.loc.Errs, r.settingErrs, r.asm.errors())
	for p := range r.st.errParts {
		errs = append(errs, p.Errs...)
	}
	for en := range r.st.errEntries {
		errs = append(errs, en.lb.Errs...)
	}
	errs = r.errs.sort(errs)
	if r.res != nil && slices.Equal(errs, r.res.Errors) {
		return r.res.Errors // the same problems: the same list, which readers can tell at a glance
	}
	return errs
}

// errorSorter puts errors in a total order (kind, namespace, name, field
// in natural order, text) and drops repeats, so that the list does not
// depend on the order objects were read in. It keeps the texts across
// renders: the problems of parts that did not change are the same objects.
type errorSorter struct {
	texts map[*ObjectError]string
}

func (s *errorSorter) sort(errs []*ObjectError) []*ObjectError {
	if s.texts == nil || len(s.texts) > 2*len(errs)+64 {
		s.texts = make(map[*ObjectError]string, len(errs))
	}
	for _, oe := range errs {
		if _, ok := s.texts[oe]; !ok {
			s.texts[oe] = oe.Error()
		}
	}
	texts := s.texts
	slices.SortFunc(errs, func(a, b *ObjectError) int {
		if c := cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name)); c != 0 {
			return c
		}
		if c := natural.Compare(a.Field, b.Field); c != 0 {
			return c
		}
		return cmp.Compare(texts[a], texts[b])
	})
	return slices.CompactFunc(errs, func(a, b *ObjectError) bool { return texts[a] == texts[b] })
}
