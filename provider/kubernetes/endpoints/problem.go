package endpoints

import (
	"strings"

	"github.com/sliceway/sliceway/internal/natural"
)

// Problem is a non-fatal defect found in one slice: the bad part is dropped, the rest is used.
type Problem struct {
	Slice string // "namespace/name" of the EndpointSlice
	Field string // e.g. "endpoints[3].addresses[0]", "ports[1].port", "addressType"
	Err   error
}

// Error returns e.g. `endpointslice ns/name: endpoints[3].addresses[0]: "10.0.0.999" is not a valid IPv4 address`.
func (p *Problem) Error() string {
	if p == nil {
		return "<nil>"
	}
	msg := "<nil>"
	if p.Err != nil {
		msg = p.Err.Error()
	}
	return "endpointslice " + p.Slice + ": " + p.Field + ": " + msg
}

// Unwrap returns the underlying error.
func (p *Problem) Unwrap() error {
	if p == nil {
		return nil
	}
	return p.Err
}

// compareProblems is the order Select returns problems in: by slice, then
// field with indices compared as numbers, so that it depends on the
// cluster alone and "addresses[2]" comes before "addresses[10]".
func compareProblems(a, b *Problem) int {
	if c := strings.Compare(a.Slice, b.Slice); c != 0 {
		return c
	}
	if c := natural.Compare(a.Field, b.Field); c != 0 {
		return c
	}
	// Only reached for identical Slice and Field (e.g. the same slice listed twice).
	return strings.Compare(a.Error(), b.Error())
}
