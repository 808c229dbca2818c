package translate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// The Traefik-style annotations router.middlewares, router.tls.options
// and service.serversTransport name objects this dialect never defines:
// a middleware, a TLS option, a servers transport of another provider
// (name@file, ns-name@kubernetescrd) or of the configuration that reads
// sliceway's output. Two rules hold for them, each fail-closed: a refused
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
//   - crossProviderNamespaces (Traefik's option of that name): when set,
//     only the Ingresses and Services of the listed namespaces may use
//     these annotations at all; every value is another provider's object.

// NGINXNamePrefix starts every name the ingress-nginx dialect gives a
// router, service, middleware, servers transport or TLS option.
const NGINXNamePrefix = "nginx_"

// ErrIngressNGINXObject is the error of an annotation naming an object of
// the ingress-nginx provider.
var ErrIngressNGINXObject = errors.New("names an object of the ingress-nginx provider (its names start with " + NGINXNamePrefix +
	"), which traefik.ingress.kubernetes.io annotations may never use: it may carry another namespace's credentials")

// ErrCrossProviderNamespace is the error of an annotation naming another
// provider's object from a namespace crossProviderNamespaces does not list.
var ErrCrossProviderNamespace = errors.New("is not in crossProviderNamespaces, so its objects may not name another provider's objects")

// CrossProviderNamespaces is the crossProviderNamespaces option: unset,
// every namespace may name other providers' objects; set (even empty),
// only the listed ones. It is a comparable value, so that the options a
// plan or a load balancer was made with compare with ==.
type CrossProviderNamespaces struct {
	set   bool
	names string // the namespaces, sorted, each between NULs (no name holds one)
}

// NewCrossProviderNamespaces is the option of names: nil is unset, an
// empty list allows no namespace.
func NewCrossProviderNamespaces(names []string) CrossProviderNamespaces {
	if names == nil {
		return CrossProviderNamespaces{}
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	var b strings.Builder
	for _, n := range slices.Compact(sorted) {
		b.WriteByte(0)
		b.WriteString(n)
	}
	if b.Len() > 0 {
		b.WriteByte(0)
	}
	return CrossProviderNamespaces{set: true, names: b.String()}
}

// Allows says whether objects of namespace may name other providers'
// objects.
func (c CrossProviderNamespaces) Allows(namespace string) bool {
	if !c.set {
		return true
	}
	return strings.IndexByte(namespace, 0) < 0 && strings.Contains(c.names, "\x00"+namespace+"\x00")
}

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
	for _, m := range s.Middlewares {
		if isNGINXName(m) {
			return &annotationError{Annotation: asWritten(annotations, "service.middlewares"),
				Err: fmt.Errorf("middleware %s %w", excerpt.Quote(m), ErrIngressNGINXObject)}
		}
	}
	return nil
}

// crossProviderRouter is the annotation (as its field) and error of an
// Ingress of namespace whose router annotations name another provider's
// middleware or TLS option, when crossProviderNamespaces does not allow
// its namespace; "" and nil otherwise.
func crossProviderRouter(namespace string, ra *routerAnnotations, annotations map[string]string, c CrossProviderNamespaces) (string, error) {
	if c.Allows(namespace) {
		return "", nil
	}
	var ae *annotationError
	switch {
	case len(ra.Middlewares) > 0:
		ae = &annotationError{Annotation: asWritten(annotations, "router.middlewares"),
			Err: fmt.Errorf("middleware %s: namespace %q %w", excerpt.Quote(ra.Middlewares[0]), namespace, ErrCrossProviderNamespace)}
	case ra.TLS != nil && ra.TLS.Options != "":
		ae = &annotationError{Annotation: asWritten(annotations, "router.tls.options"),
			Err: fmt.Errorf("TLS option %s: namespace %q %w", excerpt.Quote(ra.TLS.Options), namespace, ErrCrossProviderNamespace)}
	default:
		return "", nil
	}
	return ae.field(), fmt.Errorf("%w (the Ingress is skipped)", ae.Err)
}

// crossProviderTransport is the annotation error of a Service whose
// service.serversTransport names another provider's servers transport,
// when crossProviderNamespaces does not allow its namespace; nil
// otherwise.
//
// service.middlewares names other providers' middlewares as well, and is
// refused the same way.
func crossProviderTransport(namespace string, sa *serviceAnnotations, annotations map[string]string, c CrossProviderNamespaces) *annotationError {
	if c.Allows(namespace) {
		return nil
	}
	switch {
	case len(sa.Middlewares) > 0:
		return &annotationError{Annotation: asWritten(annotations, "service.middlewares"),
			Err: fmt.Errorf("middleware %s: namespace %q %w", excerpt.Quote(sa.Middlewares[0]), namespace, ErrCrossProviderNamespace)}
	case sa.ServersTransport != "":
		return &annotationError{Annotation: asWritten(annotations, "service.serverstransport"),
			Err: fmt.Errorf("servers transport %s: namespace %q %w", excerpt.Quote(sa.ServersTransport), namespace, ErrCrossProviderNamespace)}
	}
	return nil
}
