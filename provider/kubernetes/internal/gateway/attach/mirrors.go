package attach

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// MirrorRef is a RequestMirror filter's backend reference, and where the
// filter is.
type MirrorRef struct {
	Rule int
	// Field is the filter's requestMirror field, e.g.
	// spec.rules[0].filters[1].requestMirror, as filter.Mirror names it.
	Field string
	Ref   gatewayv1.BackendObjectReference
}

// HTTPRouteMirrorRefs returns the mirror references of an HTTPRoute's
// rules and of their backendRefs, for CheckMirrors.
func HTTPRouteMirrorRefs(r *gatewayv1.HTTPRoute) []MirrorRef {
	var out []MirrorRef
	rules := field.NewPath("spec", "rules")
	for i, rule := range r.Spec.Rules {
		out = appendMirrors(out, i, rules.Index(i).Child("filters"), rule.Filters)
		for j, b := range rule.BackendRefs {
			out = appendMirrors(out, i, rules.Index(i).Child("backendRefs").Index(j).Child("filters"), b.Filters)
		}
	}
	return out
}

// GRPCRouteMirrorRefs returns the mirror references of a GRPCRoute.
func GRPCRouteMirrorRefs(r *gatewayv1.GRPCRoute) []MirrorRef {
	var out []MirrorRef
	rules := field.NewPath("spec", "rules")
	for i, rule := range r.Spec.Rules {
		for j, f := range rule.Filters {
			if f.Type == gatewayv1.GRPCRouteFilterRequestMirror && f.RequestMirror != nil {
				out = append(out, MirrorRef{Rule: i, Field: rules.Index(i).Child("filters").Index(j).Child("requestMirror").String(), Ref: f.RequestMirror.BackendRef})
			}
		}
		for k, b := range rule.BackendRefs {
			for j, f := range b.Filters {
				if f.Type == gatewayv1.GRPCRouteFilterRequestMirror && f.RequestMirror != nil {
					out = append(out, MirrorRef{Rule: i, Field: rules.Index(i).Child("backendRefs").Index(k).Child("filters").Index(j).Child("requestMirror").String(),
						Ref: f.RequestMirror.BackendRef})
				}
			}
		}
	}
	return out
}

func appendMirrors(out []MirrorRef, rule int, list *field.Path, filters []gatewayv1.HTTPRouteFilter) []MirrorRef {
	for j, f := range filters {
		if f.Type == gatewayv1.HTTPRouteFilterRequestMirror && f.RequestMirror != nil {
			out = append(out, MirrorRef{Rule: rule, Field: list.Index(j).Child("requestMirror").String(), Ref: f.RequestMirror.BackendRef})
		}
	}
	return out
}

// CheckMirrors resolves the mirror references of the route c checked, as
// backendRefs are resolved, into c's rules. An unusable one makes
// ResolvedRefs False as an unusable backendRef does; the rule is served
// without that mirror (the API asks that it be dropped, not the rule).
func (c *BackendCheck) CheckMirrors(route Route, mirrors []MirrorRef, look Lookups) {
	for _, m := range mirrors {
		if m.Rule >= len(c.Rules) {
			continue
		}
		b := CheckBackendRef(route, m.Ref, look)
		if !b.Usable {
			c.unresolved(b, m.Field+".backendRef")
		}
		rb := &c.Rules[m.Rule]
		if rb.Mirrors == nil {
			rb.Mirrors = map[string]Backend{}
		}
		rb.Mirrors[m.Field] = b
	}
}
