package nginx

import (
	"fmt"
	"time"

	netv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// ControllerDefaultBackend is the Ingress the engine translates the
// controller's default backend from (ingress-nginx's
// --default-backend-service, the Service namespace/name): no object of
// the cluster, but rendered as a part like an Ingress's, so that the
// Service's changes reach it as they reach an Ingress's.
//
// What must hold: its name cannot be an Ingress's (Kubernetes names are
// lower case), so no router, middleware or error of a real Ingress is
// confused with it; and it is younger than any Ingress, so that the
// catch-all of an Ingress without rules, which ingress-nginx puts in the
// controller's default backend's place, wins (the oldest catch-all does).
func ControllerDefaultBackend(namespace, name string) *netv1.Ingress {
	return &netv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: controllerDefaultName,
			CreationTimestamp: metav1.NewTime(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC))},
		Spec: netv1.IngressSpec{DefaultBackend: &netv1.IngressBackend{Service: &netv1.IngressServiceBackend{Name: name}}},
	}
}

const controllerDefaultName = "DefaultBackendService"

// translateControllerDefault makes p the catch-all of the controller's
// default backend: every request no router matches, as ingress-nginx's
// default server sends it, with the ConfigMap's settings as any location
// (its allow lists, block-cidrs, global authentication), but not the
// ConfigMap's custom-http-errors, whose pages it gives. Its problems name
// the Service and the option.
func translateControllerDefault(env *translate.IngressEnv, opts *Options, p *translate.Part, ing *netv1.Ingress) {
	if opts.controller().closes() {
		// Every Ingress is closed: the catch-all is not served either.
		return
	}
	parsed, _ := opts.ParseAnnotations(nil)
	// It is where error pages come from: its own errors are its answers.
	// (A copy: what ParseAnnotations gives is shared.)
	cfg := *parsed
	cfg.Backend.CustomErrors = nil
	t := &translation{env: env, opts: opts, p: p, ing: ing, cfg: &cfg, controllerDefault: true}
	name := ing.Spec.DefaultBackend.Service.Name
	t.defaultBackend(netv1.IngressBackend{Service: &netv1.IngressServiceBackend{
		Name: name, Port: t.firstPort(ing.Namespace, name).Port}})
}

// firstPort is the Service port ingress-nginx takes of a default
// backend (the default-backend annotation's, the controller's): the
// Service's first. No port when the Service is missing: its load balancer
// then says so, and its arrival translates again.
func (t *translation) firstPort(namespace, name string) translate.PortKey {
	key := translate.PortKey{Service: translate.Key{Namespace: namespace, Name: name}}
	if svc := t.env.Snapshot.Service(namespace, name); svc != nil && len(svc.Spec.Ports) > 0 {
		key.Port.Number = svc.Spec.Ports[0].Port
	}
	return key
}

// controllerDefaultBackend is the load balancer of the controller's
// default backend and its service's name, for an Ingress that sends its
// error responses there; nil when it cannot take them (the Service is
// missing, or has no servers).
func (t *translation) controllerDefaultBackend() (*translate.LoadBalancer, string) {
	d := t.opts.ControllerDefault
	key := t.firstPort(d.Namespace, d.Spec.DefaultBackend.Service.Name)
	name := serviceName(key)
	lb := t.env.LoadBalancer(key, name)
	if lb.Err != nil || (lb.NoServers() && !t.env.AllowEmptyServices) {
		return nil, ""
	}
	return lb, name
}

// controllerDefaultProblem is a problem of the controller's default
// backend: of its Service, through the option that names it.
func (t *translation) controllerDefaultProblem(err error) *translate.ObjectError {
	return &translate.ObjectError{Kind: "Service", Namespace: t.ing.Namespace, Name: t.ing.Spec.DefaultBackend.Service.Name,
		Severity: translate.SeverityError, Err: fmt.Errorf("defaultBackendService: %w (requests no router matches get Traefik's 404)", err)}
}
