package rule

import "net/http"

// Request is what a rule looks at in a request.
type Request struct {
	// Host is the Host header or the URL's authority, with or without a
	// port.
	Host string
	// Path is the URL's path, decoded, as net/http's URL.Path.
	Path string
	// Header holds the request's headers, as net/http keeps them (names
	// canonical, as http.CanonicalHeaderKey writes them); nil is a request
	// without headers.
	Header http.Header
}

// headerValues are the values of the header named key, in any case, as
// Traefik finds them: by the canonical form of the name.
func (r Request) headerValues(key string) []string {
	if r.Header == nil {
		return nil
	}
	return r.Header[http.CanonicalHeaderKey(key)]
}
