package gateway

import (
	"fmt"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// mirrored is svc, the service of a rule or of one of its backendRefs,
// behind Traefik's mirroring service, named name, when the RequestMirror
// filters of that rule or backendRef have backends to copy requests to:
// the routers (or the rule's weighted service) name the mirroring
// service ("<rule>-mirror", "<rule>-b<backendRef>-mirror"), which answers
// with svc's answer and sends each mirror its share of copies, made
// after the router's middlewares (a backendRef's own middlewares run on
// svc's side, after the copy). A
// mirror whose backend did not resolve (the route's ResolvedRefs says
// why) or has no load balancer is left out, and the rule served without
// it, as the Gateway API asks; with none left, svc is used as it is.
func (t *routeTranslation) mirrored(ri int, name string, svc ruleService, mirrors []filter.Mirror, rb attach.RuleBackends, h2c bool) ruleService {
	if len(mirrors) == 0 {
		return svc
	}
	var targets []filter.MirrorTarget
	for _, m := range mirrors {
		b, ok := rb.Mirrors[m.Field]
		if !ok || !b.Usable {
			continue
		}
		tls := t.env.backendTLS(b)
		if tls != nil && !tls.Accepted {
			continue
		}
		key := translate.PortKey{Service: translate.Key{Namespace: b.Namespace, Name: b.Name}, Port: netv1.ServiceBackendPort{Number: b.Port}}
		lbName := key.ServiceName()
		lb := t.env.LoadBalancer(key, lbName)
		if lb.Err != nil {
			t.p.Problem(m.Field+".backendRef", translate.SeverityError, fmt.Errorf("%w (the rule is served without this mirror)", lb.Err))
			continue
		}
		target := t.tweaked(ri, -1, ruleService{name: lbName, svc: lb.Service}, h2c || speaksH2C(b.AppProtocol), backendTweaks{}, tls)
		t.place(target)
		targets = append(targets, filter.MirrorTarget{Service: target.name, Percent: m.Percent})
	}
	mirroring := filter.MirroringService(svc.name, targets)
	if mirroring == nil {
		return svc
	}
	t.place(svc)
	out := &dynamic.Service{Mirroring: mirroring}
	t.p.Services = append(t.p.Services, translate.NamedService{Name: name, Service: out})
	return ruleService{name: name, svc: out, failing: svc.failing}
}
