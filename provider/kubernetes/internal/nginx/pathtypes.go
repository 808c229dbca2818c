package nginx

import (
	"fmt"
	"strconv"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// Strict path types, as ingress-nginx's strict-validate-path-type (on by
// default since its v1.12) and Traefik's strictValidatePathType: a path
// of type Prefix or Exact (or none) may hold letters, digits and
// / . _ - only; a regular expression needs ImplementationSpecific. An
// Ingress with another such path is refused whole, as ingress-nginx's
// admission refuses it: none of its paths is served, and it claims no
// host (it decides nothing for the other Ingresses of its hosts).

// strictPath says whether p is what a Prefix or Exact path may be: a
// slash, then ASCII letters, digits and / . _ - (ingress-nginx's
// (?i)^/[[:alnum:]._\-/]*$). The host index asks it of every path on
// every full render.
func strictPath(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	for _, c := range []byte(p) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-', c == '/':
		default:
			return false
		}
	}
	return true
}

// pathTypeProblem is a path that strict path types refuse.
type pathTypeProblem struct {
	field string
	err   error
}

// pathTypeProblems are the paths of ing that o's strict path types
// refuse; none when o lets such paths be.
func (o *Options) pathTypeProblems(ing *netv1.Ingress) []pathTypeProblem {
	if o != nil && o.LoosePathTypes {
		return nil
	}
	var out []pathTypeProblem
	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for j, path := range rule.HTTP.Paths {
			if path.Path == "" || isType(path, netv1.PathTypeImplementationSpecific) || strictPath(path.Path) {
				continue
			}
			pathType := "<none>"
			if path.PathType != nil {
				pathType = string(*path.PathType)
			}
			out = append(out, pathTypeProblem{
				field: "spec.rules[" + strconv.Itoa(i) + "].http.paths[" + strconv.Itoa(j) + "].path",
				err: fmt.Errorf("path %q cannot be used with pathType %s: as ingress-nginx's strict path-type validation, strictValidatePathType lets a Prefix or Exact path hold only letters, digits and / . _ - (a regular expression needs ImplementationSpecific) (the Ingress is not served)",
					path.Path, pathType),
			})
		}
	}
	return out
}

// refusePathTypes files the problems of ing's refused paths, and says
// whether there were any.
func (o *Options) refusePathTypes(p *translate.Part, ing *netv1.Ingress) bool {
	problems := o.pathTypeProblems(ing)
	for _, pr := range problems {
		p.Problem(pr.field, translate.SeverityError, pr.err)
	}
	return len(problems) > 0
}
