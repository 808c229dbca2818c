package ingress

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/gateway/attach"
)

// gatewayStatus writes the status of the Gateway API objects of the last
// render's outcome: each GatewayClass of our controllerName (Accepted),
// each Gateway of such a class (its conditions, addresses, and per
// listener its conditions, supported kinds and attached routes), each
// route naming one (a parent entry per parentRef to a Gateway of ours,
// other controllers' entries kept), each BackendTLSPolicy applying
// through such a Gateway (an ancestor entry per Gateway). The computed conditions are merged
// into what the object has, so that an unchanged condition keeps its
// lastTransitionTime, and an object is written only when its status
// differs. The statusWriter runs it, while this replica leads.
type gatewayStatus struct {
	gw         gatewayclient.Interface
	objects    func() (GatewaySnapshot, bool) // the objects as the informers have them
	controller gatewayv1.GatewayController
	log        zerolog.Logger
	retry      func() // asks for another pass, after a write that failed

	mu     sync.Mutex
	wanted *gatewayOutcome
}

// update hands it the outcome of the latest render.
func (g *gatewayStatus) update(out *gatewayOutcome) {
	g.mu.Lock()
	g.wanted = out
	g.mu.Unlock()
}

// writeAll writes every status that differs from the wanted one.
func (g *gatewayStatus) writeAll(ctx context.Context) {
	g.mu.Lock()
	out := g.wanted
	g.mu.Unlock()
	objs, ok := g.objects()
	if out == nil || !ok {
		return
	}
	now := metav1.Now()
	failed := false
	write := func(what string, err error) {
		if err != nil && !apierrors.IsNotFound(err) { // a deleted object: the next render drops it
			failed = true
			g.log.Error().Err(err).Str("object", what).Msg("cannot update the status")
		}
	}
	classes := map[string]*gatewayv1.GatewayClass{}
	for _, c := range objs.GatewayClasses() {
		classes[c.Name] = c
	}
	for _, c := range out.classes {
		cur := classes[c.Name]
		if cur == nil || ctx.Err() != nil {
			continue
		}
		if st := attach.ClassStatus(cur.Status, c, now); !equality.Semantic.DeepEqual(cur.Status, st) {
			next := cur.DeepCopy()
			next.Status = st
			_, err := g.gw.GatewayV1().GatewayClasses().UpdateStatus(ctx, next, metav1.UpdateOptions{})
			write("GatewayClass "+c.Name, err)
		}
	}
	gateways := map[string]*gatewayv1.Gateway{}
	for _, gw := range objs.Gateways() {
		gateways[gw.Namespace+"/"+gw.Name] = gw
	}
	for _, gw := range out.gateways {
		cur := gateways[gw.Namespace+"/"+gw.Name]
		if cur == nil || ctx.Err() != nil {
			continue
		}
		if st := attach.GatewayStatus(cur.Status, gw, now); !equality.Semantic.DeepEqual(cur.Status, st) {
			next := cur.DeepCopy()
			next.Status = st
			_, err := g.gw.GatewayV1().Gateways(gw.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{})
			write("Gateway "+gw.Namespace+"/"+gw.Name, err)
		}
	}
	g.writeRoutes(ctx, objs, out.routes, now, write)
	g.writePolicies(ctx, objs, out.policies, now, write)
	if failed && g.retry != nil {
		time.AfterFunc(time.Second, g.retry)
	}
}

// writeRoutes writes the routes' status, telling write how each went.
func (g *gatewayStatus) writeRoutes(ctx context.Context, objs GatewaySnapshot, routes []routeOutcome, now metav1.Time, write func(string, error)) {
	https := map[string]*gatewayv1.HTTPRoute{}
	for _, r := range objs.HTTPRoutes() {
		https[r.Namespace+"/"+r.Name] = r
	}
	grpcs := map[string]*gatewayv1.GRPCRoute{}
	for _, r := range objs.GRPCRoutes() {
		grpcs[r.Namespace+"/"+r.Name] = r
	}
	for _, r := range routes {
		if ctx.Err() != nil {
			return
		}
		key := r.att.Route.Namespace + "/" + r.att.Route.Name
		what := fmt.Sprintf("%s %s", r.att.Route.Kind, key)
		if cur := https[key]; r.att.Route.Kind == attach.KindHTTPRoute && cur != nil {
			if st, changed := g.routeStatus(cur.Status.RouteStatus, r, now); changed {
				next := cur.DeepCopy()
				next.Status.RouteStatus = st
				_, err := g.gw.GatewayV1().HTTPRoutes(cur.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{})
				write(what, err)
			}
		}
		if cur := grpcs[key]; r.att.Route.Kind == attach.KindGRPCRoute && cur != nil {
			if st, changed := g.routeStatus(cur.Status.RouteStatus, r, now); changed {
				next := cur.DeepCopy()
				next.Status.RouteStatus = st
				_, err := g.gw.GatewayV1().GRPCRoutes(cur.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{})
				write(what, err)
			}
		}
	}
}

// routeStatus is the status of the route r has now, and whether it
// differs from cur, the one it has.
func (g *gatewayStatus) routeStatus(cur gatewayv1.RouteStatus, r routeOutcome, now metav1.Time) (gatewayv1.RouteStatus, bool) {
	st := attach.RouteStatus(cur, *r.att, r.backends, g.controller, now)
	return st, !equality.Semantic.DeepEqual(cur, st)
}

// outcomeOf is the Gateway front end's outcome of res, nil when res is
// another front end's.
func outcomeOf(res *Result) *gatewayOutcome {
	out, _ := res.Outcome.(*gatewayOutcome)
	return out
}

// newGatewayStatus is the status writer of the Gateway API provider p,
// reading the objects' current status from client's informers.
func newGatewayStatus(p *Provider, client *Client, log zerolog.Logger) *gatewayStatus {
	d, _ := p.dialect.(*gatewayDialect)
	return &gatewayStatus{
		gw:         p.gatewayClient,
		controller: d.controller,
		log:        log.With().Str("component", "status").Logger(),
		objects: func() (GatewaySnapshot, bool) {
			s, ok := client.Snapshot().(GatewaySnapshot)
			return s, ok
		},
	}
}

// writePolicies writes the BackendTLSPolicies' status, telling write how
// each went: an ancestor entry per Gateway of ours the policy applies
// through, and none for a policy that applies through none any more.
func (g *gatewayStatus) writePolicies(ctx context.Context, objs GatewaySnapshot, policies []policyOutcome, now metav1.Time, write func(string, error)) {
	tls, ok := objs.(BackendTLSSnapshot)
	if !ok {
		return
	}
	wanted := map[string]*policyOutcome{}
	for i := range policies {
		wanted[policies[i].policy.Namespace+"/"+policies[i].policy.Name] = &policies[i]
	}
	for _, cur := range tls.BackendTLSPolicies() {
		if ctx.Err() != nil {
			return
		}
		key := cur.Namespace + "/" + cur.Name
		var st gatewayv1.PolicyStatus
		if po := wanted[key]; po != nil {
			st = attach.PolicyStatus(cur.Status, po.policy, po.ancestors, g.controller, now)
		} else if slices.ContainsFunc(cur.Status.Ancestors, func(a gatewayv1.PolicyAncestorStatus) bool { return a.ControllerName == g.controller }) {
			st = attach.PolicyStatus(cur.Status, nil, nil, g.controller, now)
		} else {
			continue
		}
		if !equality.Semantic.DeepEqual(cur.Status, st) {
			next := cur.DeepCopy()
			next.Status = st
			_, err := g.gw.GatewayV1().BackendTLSPolicies(cur.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{})
			write("BackendTLSPolicy "+key, err)
		}
	}
}
