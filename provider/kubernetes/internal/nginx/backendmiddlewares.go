package nginx

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// backendMiddlewares are the middlewares that change the request on its
// way to the backend, or the response, outermost first: the error pages
// (which also replace a 413 of the body size limit, as nginx's
// error_page does), the body size limit, the Host header.
func (pc *pathContext) backendMiddlewares(names []string) ([]string, bool) {
	c := &pc.cfg.Backend
	if b := pc.build(); b.errorPages != "" {
		names = append(names, b.errorPages)
	}
	// Built once per set of annotations (BackendConfig.computeMiddlewares).
	if c.bodySize != nil {
		name := pc.ingressName("body-size")
		pc.addMiddlewareRef(name, c.bodySize)
		names = append(names, name)
	}
	if c.upstreamVHost != nil {
		name := pc.ingressName("upstream-vhost")
		pc.addMiddlewareRef(name, c.upstreamVHost)
		names = append(names, name)
	}
	return names, true
}

// buildDefaultBackend reads the default-backend annotation's Service (its
// first port, as ingress-nginx takes) and, with custom-http-errors,
// defines the error pages middleware that sends to it.
//
// The Service's load balancer is asked for even when the Service is
// missing, so that its arrival translates the Ingress again. A default
// backend without servers takes no requests, as in ingress-nginx.
func (t *translation) buildDefaultBackend(b *ingressBuild) {
	c := &t.cfg.Backend
	if c.DefaultBackend != "" {
		key := t.firstPort(t.ing.Namespace, c.DefaultBackend)
		name := serviceName(key)
		lb := t.env.LoadBalancer(key, name)
		switch {
		case lb.Err != nil:
			t.annotationProblem("default-backend", translate.SeverityError, fmt.Errorf("%w (the Ingress is served without it)", lb.Err))
		case lb.NoServers() && !t.env.AllowEmptyServices:
			t.annotationProblem("default-backend", translate.SeverityWarning, fmt.Errorf("service %s/%s has no servers: it takes no requests until it has", t.ing.Namespace, c.DefaultBackend))
		default:
			b.fallback, b.fallbackName = lb, name
		}
	}
	if len(c.CustomErrors) == 0 {
		return
	}
	// The error pages come from the default-backend annotation's Service,
	// else from the controller's default backend, as in ingress-nginx.
	pages, pagesName := b.fallback, b.fallbackName
	switch {
	case c.DefaultBackend != "":
		if pages == nil {
			t.customErrorsProblem(errors.New("the default-backend annotation's Service cannot take the error responses (the Ingress is served without them)"))
			return
		}
	case t.opts.ControllerDefault != nil:
		pages, pagesName = t.controllerDefaultBackend()
		if pages == nil {
			t.customErrorsProblem(errors.New("the controller's default backend (defaultBackendService) cannot take the error responses (the Ingress is served without them)"))
			return
		}
	default:
		// The ConfigMap's list without a default backend is said once, of
		// the ConfigMap.
		t.customErrorsProblem(errors.New("needs the default-backend annotation or the controller's default backend (defaultBackendService) to send the error responses to (the Ingress is served without them)"))
		return
	}
	// Traefik's errors middleware asks the default backend for "/" with
	// the client's request headers, and answers with the error's status
	// code and the default backend's body. ingress-nginx sends X-Code,
	// X-Format (the Accept header), X-Original-URI, X-Namespace,
	// X-Ingress-Name, X-Service-Name, X-Service-Port and X-Request-ID
	// instead, and answers with the default backend's status code: a
	// default backend written for ingress-nginx that reads X-Code sees
	// none here.
	status := make([]string, len(c.CustomErrors))
	for i, code := range c.CustomErrors {
		status[i] = strconv.Itoa(code)
	}
	identity := func(s *dynamic.Service) *dynamic.Service { return s }
	t.p.Services = append(t.p.Services, translate.NamedService{Name: pagesName, Service: pages.Service, Base: pages.Service, Derive: identity})
	b.errorPages = t.ingressName("custom-http-errors")
	t.addMiddleware(b.errorPages, dynamic.Middleware{"errors": map[string]any{"status": status, "service": pagesName, "query": "/"}})
}

// customErrorsProblem files a problem of custom-http-errors: of the
// Ingress's annotation when it has one; the ConfigMap's list, which
// applies only where there is a default backend, is said once, of the
// ConfigMap (ParseConfigMap).
func (t *translation) customErrorsProblem(err error) {
	if t.cfg.Backend.CustomErrorsOwn {
		t.annotationProblem("custom-http-errors", translate.SeverityError, err)
	}
}

// annotationProblem files a problem of one of the Ingress's annotations.
func (t *translation) annotationProblem(annotation string, severity translate.Severity, err error) {
	t.p.Problem("metadata.annotations["+AnnotationPrefix+annotation+"]", severity, err)
}
