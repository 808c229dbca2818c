package nginx

import (
	"slices"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// How a canary finds its main Ingress: as ingress-nginx merges a canary
// into the location of the same host, the same path string and the same
// path type (mergeAlternativeBackends). Differences from ingress-nginx,
// both on the safe side:
//   - the canary and its main Ingress must be in one namespace (there, a
//     canary of any namespace takes its share, so a namespace could take
//     another's traffic);
//   - the share is of the canary's host and path alone (there, the
//     canary joins the main Service port's upstream, so every path that
//     sends to that Service port is split too).

// canaryPath is a host's path as canaries and main Ingresses meet on it.
type canaryPath struct {
	path     string
	pathType netv1.PathType // "" when none is given
}

// pathOf is the canaryPath of p; an empty path is "/", as ingress-nginx
// reads it.
func pathOf(p netv1.HTTPIngressPath) canaryPath {
	cp := canaryPath{path: p.Path}
	if cp.path == "" {
		cp.path = "/"
	}
	if p.PathType != nil {
		cp.pathType = *p.PathType
	}
	return cp
}

// canaryRef is the path of a canary Ingress on a host.
type canaryRef struct {
	ing     *netv1.Ingress
	cfg     *CanaryConfig
	backend translate.PortKey
}

// canaryPaths are the canaries of one host by path, oldest first (the
// order of env.Hosts).
type canaryPaths map[canaryPath][]canaryRef

// add records the paths of the canary Ingress ing on host, unless an
// annotation closed it or it is over maxOutput (it is not used:
// checkCanary never runs for it, its part says why). Paths without a
// Service backend are not canaries (checkCanary reports them); a second
// path of ing with the same path and type adds nothing.
func (m *canaryPaths) add(host string, ing *netv1.Ingress, cfg *Config, problems []Problem, maxOutput int64) {
	if closedBy(problems) || checkOutput(ing, maxOutput) != nil {
		return // its own part says why
	}
	for _, rule := range ing.Spec.Rules {
		if rule.Host != host || rule.HTTP == nil {
			continue
		}
		for _, p := range rule.HTTP.Paths {
			if p.Backend.Service == nil {
				continue
			}
			cp := pathOf(p)
			if slices.ContainsFunc((*m)[cp], func(r canaryRef) bool { return r.ing == ing }) {
				continue
			}
			if *m == nil {
				*m = canaryPaths{}
			}
			(*m)[cp] = append((*m)[cp], canaryRef{ing: ing, cfg: &cfg.Canary, backend: translate.BackendPort(ing.Namespace, p.Backend.Service)})
		}
	}
}

// choose is the canary of a main path of namespace ns on cp that sends
// to main: ingress-nginx adds every canary of the path to the main
// backend's alternatives, oldest first, skips one whose backend is the
// main's own, and uses the first alone.
func (m canaryPaths) choose(cp canaryPath, ns string, main translate.PortKey) (canaryRef, bool) {
	for _, c := range m[cp] {
		if c.ing.Namespace == ns && c.backend != main {
			return c, true
		}
	}
	return canaryRef{}, false
}

// closedBy says whether one of the problems closes its Ingress.
func closedBy(problems []Problem) bool {
	return slices.ContainsFunc(problems, func(p Problem) bool { return p.Closed })
}
