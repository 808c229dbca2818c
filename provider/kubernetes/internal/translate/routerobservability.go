package translate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// routerObservability is what router.observability.* say, Traefik's
// names: accessLogs, metrics, tracing, traceVerbosity.
type routerObservability struct {
	AccessLogs     *bool  `json:"accessLogs,omitempty"`
	Metrics        *bool  `json:"metrics,omitempty"`
	Tracing        *bool  `json:"tracing,omitempty"`
	TraceVerbosity string `json:"traceVerbosity,omitempty"`
}

// observe puts the router.observability.* settings into rt's
// observability (its own, which setObservability made).
func (ra *routerAnnotations) observe(rt *dynamic.Router) {
	if o := ra.Observability; o != nil {
		rt.Observability.AccessLogs, rt.Observability.Metrics, rt.Observability.Tracing = o.AccessLogs, o.Metrics, o.Tracing
		rt.Observability.TraceVerbosity = o.TraceVerbosity
		if o.TraceVerbosity == "" {
			// Traefik's default, which its label parser writes as soon
			// as one observability annotation is given.
			rt.Observability.TraceVerbosity = "minimal"
		}
	}
}

// traceVerbosities are Traefik's values of router.observability.traceVerbosity.
var traceVerbosities = []string{"minimal", "detailed"}

// checkObservability checks router.observability.traceVerbosity and
// router.rulesyntax. sliceway writes its rules in Traefik v3's syntax, so
// a ruleSyntax of v2 cannot be honoured for them: it is ignored with a
// warning (a v2 parse of those rules would match other requests).
func checkObservability(r *routerAnnotations, annotations map[string]string) error {
	if o := r.Observability; o != nil && o.TraceVerbosity != "" && !slices.Contains(traceVerbosities, o.TraceVerbosity) {
		return &annotationError{
			Annotation: asWritten(annotations, "router.observability.traceverbosity"),
			Err:        fmt.Errorf("%s is not one of %s", excerpt.Quote(o.TraceVerbosity), strings.Join(traceVerbosities, ", ")),
		}
	}
	switch r.RuleSyntax {
	case "", "v3":
	case "v2":
		r.ignored = append(r.ignored, &annotationError{Annotation: asWritten(annotations, "router.rulesyntax"),
			Err: errors.New(`"v2": ignored: sliceway writes its rules in Traefik v3's syntax, which a v2 reading would misread`)})
		r.RuleSyntax = ""
	default:
		return &annotationError{Annotation: asWritten(annotations, "router.rulesyntax"),
			Err: fmt.Errorf("%s is not one of v2, v3", excerpt.Quote(r.RuleSyntax))}
	}
	return nil
}
