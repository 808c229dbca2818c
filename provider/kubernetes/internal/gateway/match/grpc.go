package match

import (
	"regexp"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GRPC turns one match of a GRPCRoute rule into the rules of its routers
// on one listener, as HTTP does for an HTTPRoute's (hostnames, the Rules
// and the errors alike). A GRPCRoute rule without matches matches every
// request: the caller passes gatewayv1.GRPCRouteMatch{}.
//
// gRPC calls are HTTP requests to /<service>/<method>, so the method
// match becomes a match on the path:
//
//   - none: any path;
//   - Exact service and method: that path;
//   - Exact service: the paths under /<service>/;
//   - Exact method: /<any service>/<method>;
//   - RegularExpression: /<service>/<method>, each expression matching
//     its part whole, a missing one matching any part (without a "/"),
//     both missing any path.
//
// The rule has no Method("POST"), though gRPC calls are POSTs: the
// specification matches on service, method and headers only (Traefik's
// own gateway provider adds none either), and a client that sends
// another method to a gRPC path is better answered by the backend than
// by a 404 from the proxy.
func GRPC(hostnames []string, m gatewayv1.GRPCRouteMatch) ([]Rule, error) {
	method, err := grpcMethod(m.Method)
	if err != nil {
		return nil, err
	}
	headers := make([]valueMatch, len(m.Headers))
	for i, h := range m.Headers {
		headers[i] = valueMatch{name: string(h.Name), value: h.Value}
		if h.Type != nil {
			headers[i].typ = string(*h.Type)
		}
	}
	headerMatchers, err := headerTerms(headers)
	if err != nil {
		return nil, err
	}
	p := Precedence{GRPCService: method.service, GRPCMethod: method.method, Headers: len(headerMatchers)}
	return rules(hostnames, append([]term{method.term}, headerMatchers...), p)
}

// grpcMatch is the path term of a GRPCRoute's method match, and the
// lengths of its service and method, which rank it.
type grpcMatch struct {
	term            term
	service, method int
}

// The API's patterns for an Exact service and method: with them a
// service or method never holds a "/", which would move it to another
// part of the path.
var (
	validService = regexp.MustCompile(`^(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*$`)
	validMethod  = regexp.MustCompile(`^[A-Za-z_][A-Za-z_0-9]*$`)
)

// anyPart matches a service or method that the match leaves out.
const anyPart = `[^/]+`

func grpcMethod(mm *gatewayv1.GRPCMethodMatch) (grpcMatch, *FieldError) {
	if mm == nil {
		return grpcMatch{term: call("PathPrefix", "/")}, nil
	}
	var service, method string
	if mm.Service != nil {
		service = *mm.Service
	}
	if mm.Method != nil {
		method = *mm.Method
	}
	lengths := grpcMatch{service: len(service), method: len(method)}
	typ := gatewayv1.GRPCMethodMatchExact
	if mm.Type != nil {
		typ = *mm.Type
	}
	switch typ {
	case gatewayv1.GRPCMethodMatchExact:
		if service != "" && !validService.MatchString(service) {
			return grpcMatch{}, fieldError("method.service", service, "not a gRPC service name")
		}
		if method != "" && !validMethod.MatchString(method) {
			return grpcMatch{}, fieldError("method.method", method, "not a gRPC method name")
		}
		switch {
		case service != "" && method != "":
			lengths.term = call("Path", "/"+service+"/"+method)
		case service != "":
			lengths.term = call("PathPrefix", "/"+service+"/")
		case method != "":
			lengths.term = call("PathRegexp", "^/"+anyPart+"/"+regexp.QuoteMeta(method)+"$")
		default:
			return grpcMatch{}, fieldError("method", "", "an Exact match needs a service, a method or both")
		}
		return lengths, nil
	case gatewayv1.GRPCMethodMatchRegularExpression:
		if service == "" && method == "" {
			lengths.term = call("PathPrefix", "/")
			return lengths, nil
		}
		servicePart, methodPart := anyPart, anyPart
		var err error
		if service != "" {
			if servicePart, err = group(service); err != nil {
				return grpcMatch{}, &FieldError{Field: "method.service", Value: service, Err: err}
			}
		}
		if method != "" {
			if methodPart, err = group(method); err != nil {
				return grpcMatch{}, &FieldError{Field: "method.method", Value: method, Err: err}
			}
		}
		lengths.term = call("PathRegexp", "^/"+servicePart+"/"+methodPart+"$")
		return lengths, nil
	}
	return grpcMatch{}, unsupported("method.type", string(typ), "want Exact or RegularExpression")
}
