package nginx

import (
	"errors"
	"fmt"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// spec.defaultBackend, as ingress-nginx uses it:
//   - of an Ingress with rules, it is the fallback of the hosts of its
//     rules: nginx's "/" location of each server the Ingress creates (it
//     is the host's first Ingress), with every annotation of the
//     Ingress. Here: routers that match the host alone, below every path
//     of the host, made as a path's (middlewares, derived service, TLS,
//     closed and unavailable alike), on the hosts the Ingress owns
//     (hostfacts.go: the oldest Ingress of the host), so an Ingress
//     never takes another's unmatched requests, nor any other host's;
//   - of an Ingress without rules, it is the catch-all of every request
//     no router matches (defaultbackend.go), the oldest such Ingress's.

// hostDefault serves db as the fallback of host, one of the Ingress's
// rule hosts, when the Ingress owns it. db has a Service
// (defaultBackendService said so).
func (t *translation) hostDefault(facts hostFacts, host string, db netv1.IngressBackend) {
	if host == "" {
		return
	}
	if o := facts.owner; o != nil && (o.Namespace != t.ing.Namespace || o.Name != t.ing.Name) {
		t.p.Problem("spec.defaultBackend", translate.SeverityWarning, fmt.Errorf(
			"not the fallback of host %q: that is Ingress %s/%s's, the host's oldest, as ingress-nginx keeps the first Ingress's server", host, o.Namespace, o.Name))
		return
	}
	pc := t.pathContext(facts, host, translate.NewPathRef(-1, 0), defaultBackendPath(db))
	pc.fallback = true
	pc.key = fallbackKey(t.ing, host)
	if r, ok := pc.serve(); ok {
		pc.aliasRouters(r) // nginx's server holds its aliases too
	}
}

// defaultBackendService files the problem of a spec.defaultBackend
// without a Service, and says whether it has one.
func (t *translation) defaultBackendService(db netv1.IngressBackend) bool {
	if db.Service != nil {
		return true
	}
	field, err := "spec.defaultBackend.service", errors.New("no service is given")
	if db.Resource != nil {
		field, err = "spec.defaultBackend.resource", errors.New("resource backends are not supported")
	}
	t.p.Problem(field, translate.SeverityError, err)
	return false
}

// defaultBackendPath is spec.defaultBackend as the path the annotations
// are applied to: nginx's location "/".
func defaultBackendPath(db netv1.IngressBackend) netv1.HTTPIngressPath {
	pathType := netv1.PathTypeImplementationSpecific
	return netv1.HTTPIngressPath{Path: "/", PathType: &pathType, Backend: db}
}

// fallbackKey is the router key of the fallback of host.
func fallbackKey(ing *netv1.Ingress, host string) string {
	return NamePrefix + translate.RouterKey(ing.Namespace, ing.Name, host, "") + "_default-backend"
}

// fallbackRoute is the route of a host's fallback (its rule's host or an
// alias): the host alone, with the lowest priority of the host's paths
// (a path of length 0).
func (pc *pathContext) fallbackRoute(host string, to routedService) route {
	return route{
		key: fallbackKey(pc.ing, host), host: host, rule: translate.HostRule(host),
		priority: pathPriority(host, netv1.HTTPIngressPath{}, false, pc.ownerOf(host)),
		to:       to,
	}
}

// defaultBackendProblem files a problem of spec.defaultBackend (whose
// backend is spec.defaultBackend itself), once for all the hosts it
// serves.
func (pc *pathContext) defaultBackendProblem(field string, err error) {
	field = "spec.defaultBackend" + strings.TrimPrefix(field, ".backend")
	text := err.Error()
	for _, e := range pc.p.Errs {
		if e.Field == field && e.Err.Error() == text {
			return
		}
	}
	pc.p.Problem(field, translate.SeverityError, err)
}
