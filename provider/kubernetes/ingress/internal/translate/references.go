package translate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// The Traefik-style annotations router.middlewares, router.tls.options
// and service.serversTransport name objects this dialect never defines:
// a middleware, a TLS option, a servers transport of another provider
// (name@file, ns-name@kubernetescrd) or of the configuration that reads
// sliceway's output. This rule holds for them, fail-closed: a refused
// router annotation skips the whole Ingress (as any invalid router
// annotation does), so that no router is served without the middleware
// or TLS option it asked for; a refused servers transport makes the
// Service port unusable, so that its paths are skipped rather than
// served over another transport.
//
//   - A name starting with nginx_ is the ingress-nginx provider's, which
//     runs in the same process and whose configuration is merged with this
//     one: its transports hold another namespace's proxy-ssl-secret client
//     certificate, its TLS options and middlewares another Ingress's
//     access rules. Such a name is refused whatever its @provider suffix
//     (none, @kubernetesingressnginx, or @file, @http, @plugin-... when
//     Traefik reads sliceway's output through that provider: sliceway
//     cannot know under which name it is read), so the nginx provider's
//     allowCrossNamespaceSecrets guard cannot be bypassed from here.

// NGINXNamePrefix starts every name the ingress-nginx dialect gives a
// router, service, middleware, servers transport or TLS option.
const NGINXNamePrefix = "nginx_"

// ErrIngressNGINXObject is the error of an annotation naming an object of
// the ingress-nginx provider.
var ErrIngressNGINXObject = errors.New("names an object of the ingress-nginx provider (its names start with " + NGINXNamePrefix +
	"), which traefik.ingress.kubernetes.io annotations may never use: it may carry another namespace's credentials")

// isNGINXName says whether a reference (name or name@provider) names an
// ingress-nginx object. The case is ignored and spaces trimmed: the check
// must not be narrower than any lookup of the name.
func isNGINXName(ref string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(ref), "@")
	return len(name) >= len(NGINXNamePrefix) && strings.EqualFold(name[:len(NGINXNamePrefix)], NGINXNamePrefix)
}

// checkRouterReferences refuses router annotations naming an ingress-nginx
// object, naming the annotation and the object.
func checkRouterReferences(r *routerAnnotations, annotations map[string]string) error {
	for _, m := range r.Middlewares {
		if isNGINXName(m) {
			return &annotationError{Annotation: asWritten(annotations, "router.middlewares"),
				Err: fmt.Errorf("middleware %s %w", excerpt.Quote(m), ErrIngressNGINXObject)}
		}
	}
	if r.TLS != nil && isNGINXName(r.TLS.Options) {
		return &annotationError{Annotation: asWritten(annotations, "router.tls.options"),
			Err: fmt.Errorf("TLS option %s %w", excerpt.Quote(r.TLS.Options), ErrIngressNGINXObject)}
	}
	return nil
}

// checkServiceReferences refuses a service.serversTransport annotation
// naming an ingress-nginx object.
func checkServiceReferences(s *serviceAnnotations, annotations map[string]string) error {
	if isNGINXName(s.ServersTransport) {
		return &annotationError{Annotation: asWritten(annotations, "service.serverstransport"),
			Err: fmt.Errorf("servers transport %s %w", excerpt.Quote(s.ServersTransport), ErrIngressNGINXObject)}
	}
	return nil
}
