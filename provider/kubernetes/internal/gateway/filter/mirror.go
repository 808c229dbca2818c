package filter

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Mirror is a RequestMirror filter: where to send a copy of the requests
// and how many of them. Traefik mirrors with a service, not a
// middleware: the caller resolves BackendRef to a service (checking the
// reference as for any backendRef, with ResolvedRefs conditions naming
// Field), then calls MirroringService.
type Mirror struct {
	// Field is the filter's requestMirror field, e.g.
	// spec.rules[0].filters[2].requestMirror.
	Field string
	// BackendRef is the backend the copies go to, as the route says it.
	BackendRef gwapiv1.BackendObjectReference
	// Percent is the share of requests copied, 0 to 100: Gateway API's
	// percent, or its fraction as a whole percentage (Traefik mirrors
	// whole percentages), 100 when the filter gives neither.
	Percent int
}

// readMirror checks a RequestMirror filter. A fraction must be a whole
// percentage: Traefik's mirroring takes an integer percent, and rounding
// would mirror a share the route did not ask for (1/1000 would be 0 or
// ten times too many).
func readMirror(p *field.Path, f *gwapiv1.HTTPRequestMirrorFilter) (Mirror, *Error) {
	m := Mirror{Field: p.String(), BackendRef: f.BackendRef, Percent: 100}
	switch {
	case f.Percent != nil && f.Fraction != nil:
		return Mirror{}, unsupported(p, "give percent or fraction, not both")
	case f.Percent != nil:
		if *f.Percent < 0 || *f.Percent > 100 {
			return Mirror{}, unsupported(p.Child("percent"), "%d is not a percentage (0 to 100)", *f.Percent)
		}
		m.Percent = int(*f.Percent)
	case f.Fraction != nil:
		num, den := int64(f.Fraction.Numerator), int64(100)
		if f.Fraction.Denominator != nil {
			den = int64(*f.Fraction.Denominator)
		}
		fp := p.Child("fraction")
		switch {
		case den < 1:
			return Mirror{}, unsupported(fp.Child("denominator"), "%d is not a denominator (1 or more)", den)
		case num < 0 || num > den:
			return Mirror{}, unsupported(fp.Child("numerator"), "%d is not a numerator (0 to the denominator, %d)", num, den)
		case num*100%den != 0:
			return Mirror{}, unsupported(fp, "%d/%d is not a whole percentage, and Traefik mirrors whole percentages", num, den)
		}
		m.Percent = int(num * 100 / den)
	}
	return m, nil
}

// MirrorTarget is a mirror once its backend is a service.
type MirrorTarget struct {
	// Service is the name of the service the copies go to.
	Service string
	// Percent is Mirror.Percent.
	Percent int
}

// MirroringService is Traefik's mirroring service the caller puts in
// front of main (the rule's service, or a backendRef's): the router or
// the weighted entry names it in place of main, it answers with main's
// answer and sends copies to the targets, whose answers are dropped.
// Targets of 0 percent are left out; nil when none is left, and main is
// then used as is. Traefik's defaults hold for the rest: the body is
// copied too (mirrorBody), however large (maxBodySize -1), which
// buffers whole request bodies in Traefik's memory.
func MirroringService(main string, targets []MirrorTarget) *dynamic.Mirroring {
	var mirrors []dynamic.MirrorService
	for _, t := range targets {
		if t.Percent > 0 {
			mirrors = append(mirrors, dynamic.MirrorService{Name: t.Service, Percent: min(t.Percent, 100)})
		}
	}
	if len(mirrors) == 0 {
		return nil
	}
	return &dynamic.Mirroring{Service: main, Mirrors: mirrors}
}
