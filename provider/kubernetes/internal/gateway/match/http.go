package match

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// HTTP turns one match of an HTTPRoute rule into the rules of its
// routers on one listener: hostnames are the route's hostnames that the
// listener's hostname admits, as the caller intersected them (empty for
// any host). It returns one Rule for each rank of hostname (see
// HostRank), at least one. A match whose fields the API would default
// (a nil path, type or value) is read as the API defaults it. An
// HTTPRoute rule without matches has one match that is all defaults,
// which the caller passes as gatewayv1.HTTPRouteMatch{}.
//
// Its errors are a *FieldError for a field of the match (whose Field the
// caller prefixes with the match's place, FieldError.Under), which wraps
// ErrUnsupported for a value the API may add or Traefik cannot match,
// and a *HostnameError for a hostname that is not one.
func HTTP(hostnames []string, m gatewayv1.HTTPRouteMatch) ([]Rule, error) {
	path, err := httpPath(m.Path)
	if err != nil {
		return nil, err
	}
	terms := []term{path.term}
	p := Precedence{Path: path.kind, PathLength: path.length}
	if m.Method != nil {
		method := *m.Method
		if !httpMethods[method] {
			return nil, unsupported("method", string(method), "want one of GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE or PATCH")
		}
		terms = append(terms, call("Method", string(method)))
		p.Method = true
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
	params := make([]valueMatch, len(m.QueryParams))
	for i, q := range m.QueryParams {
		params[i] = valueMatch{name: string(q.Name), value: q.Value}
		if q.Type != nil {
			params[i].typ = string(*q.Type)
		}
	}
	queryMatchers, err := queryTerms(params)
	if err != nil {
		return nil, err
	}
	p.Headers, p.QueryParams = len(headerMatchers), len(queryMatchers)
	terms = append(append(terms, headerMatchers...), queryMatchers...)
	return rules(hostnames, terms, p)
}

// httpMethods are the methods the API's enumeration allows. Traefik's
// Method compares the request's method with the value upper-cased, and
// the API's values are upper-case already.
var httpMethods = map[gatewayv1.HTTPMethod]bool{
	gatewayv1.HTTPMethodGet: true, gatewayv1.HTTPMethodHead: true, gatewayv1.HTTPMethodPost: true,
	gatewayv1.HTTPMethodPut: true, gatewayv1.HTTPMethodDelete: true, gatewayv1.HTTPMethodConnect: true,
	gatewayv1.HTTPMethodOptions: true, gatewayv1.HTTPMethodTrace: true, gatewayv1.HTTPMethodPatch: true,
}
