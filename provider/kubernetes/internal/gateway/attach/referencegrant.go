package attach

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ReferenceFrom is the object making a reference: its group, kind and
// namespace (a route for a backendRef, a Gateway for a certificateRef).
type ReferenceFrom struct {
	Group     gatewayv1.Group
	Kind      gatewayv1.Kind
	Namespace string
}

// ReferenceTo is the object referred to.
type ReferenceTo struct {
	Group     gatewayv1.Group
	Kind      gatewayv1.Kind
	Namespace string
	Name      string
}

// GrantAllows reports whether one ReferenceGrant lets from refer to to. A
// grant only speaks for its own namespace, which must be the target's; it
// allows the reference when one of its from entries names the referrer's
// group, kind and namespace and one of its to entries names the target's
// group and kind and either leaves the name out (every object of that kind)
// or names the target. Entries combine with OR, groups compare exactly ("" is
// the core group).
func GrantAllows(grant *gatewayv1.ReferenceGrant, from ReferenceFrom, to ReferenceTo) bool {
	if grant == nil || grant.Namespace != to.Namespace {
		return false
	}
	fromOK := false
	for _, f := range grant.Spec.From {
		if f.Group == from.Group && f.Kind == from.Kind && string(f.Namespace) == from.Namespace {
			fromOK = true
			break
		}
	}
	if !fromOK {
		return false
	}
	for _, t := range grant.Spec.To {
		if t.Group != to.Group || t.Kind != to.Kind {
			continue
		}
		// An empty name cannot pass validation; taking it literally keeps a
		// malformed grant from widening into "every object".
		if t.Name == nil || string(*t.Name) == to.Name {
			return true
		}
	}
	return false
}

// GrantsAllow reports whether any of grants lets from refer to to.
func GrantsAllow(grants []*gatewayv1.ReferenceGrant, from ReferenceFrom, to ReferenceTo) bool {
	for _, g := range grants {
		if GrantAllows(g, from, to) {
			return true
		}
	}
	return false
}

// GrantLookup returns a Lookups.ReferencePermitted over grants, indexed by
// namespace once so that each question reads only the target namespace's
// grants.
func GrantLookup(grants []*gatewayv1.ReferenceGrant) func(ReferenceFrom, ReferenceTo) bool {
	byNamespace := make(map[string][]*gatewayv1.ReferenceGrant)
	for _, g := range grants {
		if g != nil {
			byNamespace[g.Namespace] = append(byNamespace[g.Namespace], g)
		}
	}
	return func(from ReferenceFrom, to ReferenceTo) bool {
		return GrantsAllow(byNamespace[to.Namespace], from, to)
	}
}

// referencePermitted reports whether from may refer to to: always within a
// namespace, across namespaces only with a grant.
func (l Lookups) referencePermitted(from ReferenceFrom, to ReferenceTo) bool {
	if from.Namespace == to.Namespace {
		return true
	}
	return l.ReferencePermitted != nil && l.ReferencePermitted(from, to)
}
