package attach

import (
	"maps"
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Equal says whether a and b attach the same route the same way: to the
// same listeners with the same hostnames and outcome. A full render takes
// a route's last part again only while its attachment is Equal, so every
// field counts (TestEqualReadsEveryField); nil hostnames (every host) differ
// from none.
func (a *RouteAttachment) Equal(b *RouteAttachment) bool {
	return a.Route.equal(&b.Route) && slices.EqualFunc(a.Parents, b.Parents, ParentAttachment.equal)
}

func (r *Route) equal(s *Route) bool {
	return r.Kind == s.Kind && r.Namespace == s.Namespace && r.Name == s.Name && r.Generation == s.Generation &&
		r.CreationTimestamp.Equal(&s.CreationTimestamp) && slices.Equal(r.Hostnames, s.Hostnames) &&
		slices.EqualFunc(r.ParentRefs, s.ParentRefs, identicalParentRef)
}

func (p ParentAttachment) equal(q ParentAttachment) bool {
	return p.Index == q.Index && identicalParentRef(p.ParentRef, q.ParentRef) && p.GatewayNamespace == q.GatewayNamespace &&
		p.GatewayName == q.GatewayName && p.Accepted == q.Accepted && p.Reason == q.Reason && p.Message == q.Message &&
		slices.EqualFunc(p.Listeners, q.Listeners, ListenerAttachment.equal) &&
		p.PartiallyInvalid == q.PartiallyInvalid && p.partialReason == q.partialReason
}

func (l ListenerAttachment) equal(m ListenerAttachment) bool {
	return l.Listener == m.Listener && l.EntryPoint == m.EntryPoint && l.Programmed == m.Programmed &&
		(l.Hostnames == nil) == (m.Hostnames == nil) && slices.Equal(l.Hostnames, m.Hostnames)
}

// identicalParentRef compares two parentRefs as written (sameParentRef, with
// the defaults applied, matches more).
func identicalParentRef(a, b gatewayv1.ParentReference) bool {
	return samePointee(a.Group, b.Group) && samePointee(a.Kind, b.Kind) && samePointee(a.Namespace, b.Namespace) &&
		a.Name == b.Name && samePointee(a.SectionName, b.SectionName) && samePointee(a.Port, b.Port)
}

func samePointee[T comparable](a, b *T) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// Equal says whether c and d resolved a route's references alike: the
// same backends with the same outcome, the same condition. Every field
// counts (TestEqualReadsEveryField).
func (c *BackendCheck) Equal(d *BackendCheck) bool {
	return c.ResolvedRefs == d.ResolvedRefs && c.Reason == d.Reason && c.Message == d.Message && c.ErrorStatus == d.ErrorStatus &&
		slices.EqualFunc(c.Rules, d.Rules, RuleBackends.equal) && slices.Equal(c.problems, d.problems)
}

func (r RuleBackends) equal(s RuleBackends) bool {
	return slices.Equal(r.Backends, s.Backends) && r.UsableWeight == s.UsableWeight && r.UnusableWeight == s.UnusableWeight &&
		maps.Equal(r.Mirrors, s.Mirrors)
}
