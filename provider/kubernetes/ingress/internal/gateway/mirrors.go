package gateway

import (
	"fmt"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/filter"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/translate"
)

// mirrored is svc, the service of rule ri, behind Traefik's mirroring
// service when the rule's RequestMirror filters have backends to copy
// requests to: the routers name the mirroring service
// ("<rule>-mirror"), which answers with svc's answer and sends each
// mirror its share of copies, made after the router's middlewares. A
// mirror whose backend did not resolve (the route's ResolvedRefs says
// why) or has no load balancer is left out, and the rule served without
// it, as the Gateway API asks; with none left, svc is used as it is.
func (t *routeTranslation) mirrored(ri int, svc ruleService, mirrors []filter.Mirror, rb attach.RuleBackends, h2c bool) ruleService {
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
		name := key.ServiceName()
		lb := t.env.LoadBalancer(key, name)
		if lb.Err != nil {
			t.p.Problem(m.Field+".backendRef", translate.SeverityError, fmt.Errorf("%w (the rule is served without this mirror)", lb.Err))
			continue
		}
		target := t.tweaked(ri, -1, ruleService{name: name, svc: lb.Service}, h2c || speaksH2C(b.AppProtocol), backendTweaks{}, tls)
		t.place(target)
		targets = append(targets, filter.MirrorTarget{Service: target.name, Percent: m.Percent})
	}
	mirroring := filter.MirroringService(svc.name, targets)
	if mirroring == nil {
		return svc
	}
	t.place(svc)
	name := t.names.rule(ri) + "-mirror"
	out := &dynamic.Service{Mirroring: mirroring}
	t.p.Services = append(t.p.Services, translate.NamedService{Name: name, Service: out})
	return ruleService{name: name, svc: out, failing: svc.failing}
}
