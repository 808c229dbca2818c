package nginx

import (
	"errors"
	"fmt"
	"math"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// defaultBackend makes spec.defaultBackend of an Ingress without rules
// the part's default-backend candidate: the catch-all of every request no
// router matches, as ingress-nginx's default server sends it (the oldest
// Ingress's wins). An Ingress with rules has its hosts' fallbacks instead
// (hostdefault.go).
func (t *translation) defaultBackend(db netv1.IngressBackend) {
	c := &translate.DefaultCandidate{}
	t.p.Default = c
	fail := func(field string, err error) {
		if t.controllerDefault {
			c.Errs = []*translate.ObjectError{t.controllerDefaultProblem(err)}
			return
		}
		c.Errs = []*translate.ObjectError{{Kind: "Ingress", Namespace: t.ing.Namespace, Name: t.ing.Name, Field: field, Severity: translate.SeverityError, Err: err}}
	}
	if db.Service == nil {
		fail("spec.defaultBackend.service", errors.New("no service is given"))
		return
	}
	key := translate.BackendPort(t.ing.Namespace, db.Service)
	lb := t.env.LoadBalancer(key, serviceName(key))
	switch {
	case lb.Err != nil:
		fail("spec.defaultBackend.service", lb.Err)
		return
	case lb.NoServers() && !t.env.AllowEmptyServices:
		fail("spec.defaultBackend.service", fmt.Errorf("service %s/%s port %s has no servers", t.ing.Namespace, db.Service.Name, key.Text()))
		return
	}
	// ingress-nginx applies the Ingress's annotations to the catch-all,
	// its access control included: built as a path's, or not served.
	pc := t.pathContext(hostFacts{}, "", translate.NewPathRef(-1, 0), defaultBackendPath(db))
	mark := markPart(t.p)
	rs, ok := pc.service()
	var mws []string
	if ok {
		mws, ok = pc.catchAllMiddlewares()
	}
	if !ok {
		mark.rollback(t.p)
		fail("spec.defaultBackend", errors.New("its annotations cannot be applied to the catch-all (the Ingress's other errors say why), so it is not served"))
		return
	}
	service, svc := DefaultBackendName, lb.Service
	if rs.name != pc.lbName {
		service, svc = rs.name, nil // derived by the backend annotations: the part's own
	}
	rt := &dynamic.Router{Rule: `PathPrefix("/")`, Priority: math.MinInt32, Service: service, Middlewares: mws}
	if t.env.PlanOptions.PinRuleSyntax {
		rt.RuleSyntax = translate.PinnedRuleSyntax
	}
	translate.SetObservability(rt, t.ing, db.Service.Name, key.Text())
	if t.controllerDefault {
		rt.Observability.Metadata.Ingress.IngressName = "" // no Ingress's
	}
	c.Router, c.Service = rt, svc
}
