package ingress

import (
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// The types and names of the translation (package translate) that are
// this package's API.
type (
	// Snapshot is the read-only view of the cluster that translation reads.
	// The informer client implements it with listers; tests may implement
	// it with maps. Returned objects are shared with the cache and must
	// not be modified.
	//
	// The informer client's snapshots also give what its handlers built
	// when the objects arrived (serviceReader, planReader): a render takes
	// it when it was built with the render's options, from the same
	// builders.
	Snapshot = translate.Snapshot
	// ObjectError is a problem with one Kubernetes object. Translation
	// reports it and goes on: the rest of the configuration is still built.
	ObjectError = translate.ObjectError
	// Severity tells how bad an ObjectError is.
	Severity = translate.Severity
	// TranslationPanic is the error of an Ingress whose translation
	// panicked: a bug in sliceway. The Ingress is skipped; the others are
	// served.
	TranslationPanic = translate.TranslationPanic
)

// How bad an ObjectError is.
const (
	// SeverityError: a part of the configuration could not be built.
	SeverityError = translate.SeverityError
	// SeverityWarning: something was dropped or ignored; what is left is still correct.
	SeverityWarning = translate.SeverityWarning
)

// Names Traefik gives the default backend.
const (
	DefaultRouterName  = translate.DefaultRouterName
	DefaultBackendName = translate.DefaultBackendName
)

// Ingress class names and annotations.
const (
	// ControllerName is the controller an IngressClass must name to be ours.
	ControllerName = translate.ControllerName
	// AnnotationIngressClass is the legacy class annotation.
	AnnotationIngressClass = translate.AnnotationIngressClass
	// AnnotationDefaultClass marks the cluster's default IngressClass.
	AnnotationDefaultClass = translate.AnnotationDefaultClass
)

// AnnotationPrefix starts every annotation the provider reads.
const AnnotationPrefix = translate.AnnotationPrefix

// The errors an ObjectError wraps (errors.Is) when a router.middlewares,
// router.tls.options or service.serversTransport annotation names what it
// may not.
var (
	// ErrIngressNGINXObject: an object of the ingress-nginx provider
	// (nginx_...), never named from the Traefik-style annotations.
	ErrIngressNGINXObject = translate.ErrIngressNGINXObject
	// ErrCrossProviderNamespace: another provider's object, named from a
	// namespace crossProviderNamespaces leaves out.
	ErrCrossProviderNamespace = translate.ErrCrossProviderNamespace
)

// DefaultMaxIngressOutput is the default of the maxIngressOutput option,
// 8 MiB: some eighteen times what an Ingress of 1,000 paths with a few
// middlewares, entry points and TLS adds (about 470 KB).
const DefaultMaxIngressOutput = translate.DefaultMaxIngressOutput

// Normalize joins the runs of letters and digits of name with single dashes:
// every run of other characters becomes one "-", and none is left at either end.
func Normalize(name string) string { return translate.Normalize(name) }
