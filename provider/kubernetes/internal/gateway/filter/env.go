package filter

import (
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Target is the set of Traefik middleware types a translation may use,
// chosen by how the configuration reaches Traefik.
type Target int

const (
	// Portable uses only middlewares that Traefik v3.7 reads from every
	// delivery: its file and HTTP providers (paerser's file decoding)
	// and a provider plugin (encoding/json). A filter they cannot
	// express exactly is refused with an Error.
	Portable Target = iota
	// Plugin may also use Traefik's own Gateway API middlewares
	// (requestHeaderModifier, responseHeaderModifier, requestRedirect,
	// URLRewrite). Their fields are tagged file:"-" in Traefik, so its
	// file and HTTP providers drop them and every router naming such a
	// middleware fails ("invalid middleware type"); only JSON handed
	// over by a provider plugin, which Traefik decodes with
	// encoding/json, carries them.
	Plugin
)

// Listener is what the Gateway listener of the router says about the
// requests it gets; redirects need it to choose the port of Location.
type Listener struct {
	// Scheme is "http" for an HTTP listener, "https" for an HTTPS one;
	// empty when unknown: a redirect then keeps the request's scheme.
	Scheme string
	// Port is the listener's port, not Traefik's entry point's; 0 when
	// unknown: a redirect then keeps the port of the request's Host.
	Port int32
}

// ListenerOf is what l says about its requests: an HTTP listener's are
// http, an HTTPS one's https; other protocols carry no HTTPRoute or
// GRPCRoute, and leave the scheme unknown.
func ListenerOf(l gwapiv1.Listener) Listener {
	out := Listener{Port: l.Port}
	switch l.Protocol {
	case gwapiv1.HTTPProtocolType:
		out.Scheme = "http"
	case gwapiv1.HTTPSProtocolType:
		out.Scheme = "https"
	}
	return out
}

// Env is what every translation of one router's filters shares.
type Env struct {
	Target   Target
	Listener Listener
}

// NamedMiddleware is a middleware definition and the name the caller
// files it under in http.middlewares.
type NamedMiddleware struct {
	Name       string
	Middleware dynamic.Middleware
}

// Result is what one list of filters (a rule's, or one backendRef's)
// adds to the configuration.
type Result struct {
	// Middlewares are the definitions, in the order the requests go
	// through them: the filters' order. For a rule, their names are the
	// router's middlewares; for a backendRef, the middlewares of the
	// service its weighted entry names (Traefik's service middlewares),
	// which run after the router's, as backendRef filters run after the
	// rule's.
	Middlewares []NamedMiddleware
	// Mirrors are the RequestMirror filters, in order. They are no
	// middleware: the caller resolves each backendRef to a service and
	// puts MirroringService in front of the rule's (or backendRef's)
	// service. Mirrors get the request as the middlewares left it,
	// whatever the filter's place in the list.
	Mirrors []Mirror
}

// Names are the names of r's middlewares, in order.
func (r Result) Names() []string {
	if len(r.Middlewares) == 0 {
		return nil
	}
	names := make([]string, len(r.Middlewares))
	for i, m := range r.Middlewares {
		names[i] = m.Name
	}
	return names
}
