package gateway

import (
	"fmt"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/gateway/attach"
	"github.com/sliceway/sliceway/provider/kubernetes/ingress/internal/translate"
)

// ruleService is where a rule's routers send: the name of a service and
// the service itself.
type ruleService struct {
	name string
	svc  *dynamic.Service
}

// service is the service of rule ri, whose backendRefs resolved as rb:
// the load balancer of its one usable backend, or a weighted service of
// its usable backends by weight, in which the share of the unusable ones
// goes to a load balancer without servers, as does everything when none
// is usable (Traefik answers 503 where the Gateway API asks for 500: a
// weighted service's member that answers a status of its own cannot be
// written in a configuration Traefik reads). A backend whose Service
// port has no load balancer (a port the Service lacks, an ExternalName
// Service refused) counts as unusable, with a problem naming it.
func (t *routeTranslation) service(ri int, rb attach.RuleBackends) ruleService {
	var members []dynamic.WRRService
	var lbs []ruleService // the load balancers of members
	unusable := rb.UnusableWeight
	for bi, b := range rb.Backends {
		if !b.Usable {
			continue
		}
		key := translate.PortKey{Service: translate.Key{Namespace: b.Namespace, Name: b.Name}, Port: netv1.ServiceBackendPort{Number: b.Port}}
		name := key.ServiceName()
		lb := t.env.LoadBalancer(key, name)
		if lb.Err != nil {
			t.p.Problem(fmt.Sprintf("spec.rules[%d].backendRefs[%d]", ri, bi), translate.SeverityError,
				fmt.Errorf("%w (its share of the requests answers 503)", lb.Err))
			unusable += int64(b.Weight)
			continue
		}
		if b.Weight == 0 {
			continue // takes no request
		}
		w := int(b.Weight)
		members = append(members, dynamic.WRRService{Name: name, Weight: &w})
		lbs = append(lbs, ruleService{name: name, svc: lb.Service})
	}
	switch {
	case len(lbs) == 1 && unusable == 0:
		return lbs[0]
	case len(lbs) == 0:
		return t.unavailable(ri)
	}
	for _, lb := range lbs {
		t.place(lb)
	}
	if unusable > 0 {
		w := int(min(unusable, int64(maxWeight)))
		members = append(members, dynamic.WRRService{Name: t.unavailable(ri).name, Weight: &w})
	}
	name := t.names.rule(ri)
	svc := &dynamic.Service{Weighted: &dynamic.WeightedRoundRobin{Services: members}}
	t.p.Services = append(t.p.Services, translate.NamedService{Name: name, Service: svc})
	return ruleService{name: name, svc: svc}
}

// maxWeight bounds the error share's weight: backendRef weights are at
// most 1,000,000 each and at most 64 per rule (the API's limits), so the
// sum stays far below it, and an int of 32 bits holds it.
const maxWeight = 1 << 30

// place puts the load balancer a weighted service names in the part, as
// a service that follows the load balancer when it is rebuilt in place
// (a change of its EndpointSlices swaps it in the part too).
func (t *routeTranslation) place(lb ruleService) {
	for _, ns := range t.p.Services {
		if ns.Name == lb.name {
			return
		}
	}
	t.p.Services = append(t.p.Services, translate.NamedService{Name: lb.name, Service: lb.svc, Base: lb.svc, Derive: sameService})
}

func sameService(s *dynamic.Service) *dynamic.Service { return s }

// unavailable is the service of the rule's unusable share: a load
// balancer without servers, which Traefik answers 503 with.
func (t *routeTranslation) unavailable(ri int) ruleService {
	name := t.names.rule(ri) + "-unavailable"
	for _, ns := range t.p.Services {
		if ns.Name == name {
			return ruleService{name: name, svc: ns.Service}
		}
	}
	svc := dynamic.NewServersService()
	t.p.Services = append(t.p.Services, translate.NamedService{Name: name, Service: svc})
	return ruleService{name: name, svc: svc}
}
