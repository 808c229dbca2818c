package rule

import (
	"net/http"
	"net/url"
)

// Request is what a rule looks at in a request.
type Request struct {
	// Host is the Host header or the URL's authority, with or without a
	// port.
	Host string
	// Path is the URL's path, decoded, as net/http's URL.Path.
	Path string
	// Method is the request's method, as the client sent it (net/http's
	// Request.Method); "" is a request whose method is not known, which no
	// Method matcher matches.
	Method string
	// RawQuery is the URL's query, without the "?" and still encoded, as
	// net/http's URL.RawQuery.
	RawQuery string
	// Header holds the request's headers, as net/http keeps them (names
	// canonical, as http.CanonicalHeaderKey writes them); nil is a request
	// without headers.
	Header http.Header
}

// NewRequest is what a rule looks at in req: its host (req.Host), decoded
// path, method, query and headers.
func NewRequest(req *http.Request) Request {
	r := Request{Host: req.Host, Method: req.Method, Header: req.Header}
	if req.URL != nil {
		r.Path, r.RawQuery = req.URL.Path, req.URL.RawQuery
	}
	return r
}

// headerValues are the values of the header named key, in any case, as
// Traefik finds them: by the canonical form of the name.
func (r Request) headerValues(key string) []string {
	if r.Header == nil {
		return nil
	}
	return r.Header[http.CanonicalHeaderKey(key)]
}

// queryValues are the values of the query parameter named key, exactly
// as Traefik reads them: through url.ParseQuery, which decodes them and
// skips the pairs it cannot parse (URL.Query drops its error too).
func (r Request) queryValues(key string) []string {
	if r.RawQuery == "" {
		return nil
	}
	values, _ := url.ParseQuery(r.RawQuery)
	return values[key]
}
