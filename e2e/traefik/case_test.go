package traefike2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Case is one behaviour, proven with requests through Traefik. All cases
// live in one configuration: a case has its own namespace (its name) and
// its own host (<name>.e2e.test), so it must not route anyone else's.
type Case struct {
	// Name is a DNS label: the case's namespace, the first label of its
	// host, its manifest file and its subtest.
	Name string
	// Manifests is a text/template of YAML documents (see caseData for
	// what it can use), written before sliceway and Traefik start.
	Manifests string
	// Requests are sent in order once Traefik runs the whole
	// configuration.
	Requests []Request
	// Updates, in order after Requests: each replaces the case's
	// manifests, waits until Traefik runs the new configuration, then
	// sends its requests.
	Updates []Update
	// Errors are what sliceway must report about the case's objects once
	// it has the case's first manifests: each is part of the field and
	// message of one error or warning `sliceway render` logs for the
	// case's namespace.
	Errors []string
}

// Update is a later version of a case's manifests and what must hold
// once Traefik has it.
type Update struct {
	Manifests string
	Requests  []Request
}

func (c *Case) host() string { return c.Name + ".e2e.test" }

// Request is a request and what its answer must be. Fields left zero
// are not checked, except Status (0 means 200).
type Request struct {
	// Method defaults to GET.
	Method string
	// URL is http://host/path (to entry point web) or https://host/path
	// (websecure, with the host as SNI): the client dials Traefik whatever
	// the host. A bare path is http://<case host><path>.
	URL string
	// Host, when set, is the Host header instead of the URL's host.
	Host   string
	Header map[string]string
	Body   string
	// ClientCert, "namespace/name" or "name" in the case's namespace,
	// names a caSecret: the request presents a client certificate that
	// Secret's CA signed (https only).
	ClientCert string
	// From is the client's address, another loopback one than 127.0.0.1
	// (127.0.0.2...): what Traefik's allow lists see.
	From string
	// Burst sends the request that many times at once, each on its own
	// connection, with the Host headers of BurstHosts in turn when set;
	// Statuses then say how many answers must have each status
	// (AtLeastOne: one or more), and no other check is made. A backend
	// holds a request whose path has a segment "hold" until every other
	// request of the burst has been answered or is held too.
	Burst      int
	BurstHosts []string
	Statuses   map[int]int

	// TLSAlert is the TLS alert Traefik must end the handshake with
	// ("certificate required", "unknown certificate authority"): there
	// is then no answer to check.
	TLSAlert string

	// Status is the response's status; 0 means 200.
	Status int
	// Location is the response's Location header.
	Location string
	// Headers are response headers and their (first) value; NoHeaders
	// must be absent.
	Headers   map[string]string
	NoHeaders []string
	// Cookies are cookies the response sets, by name, and their value
	// ("*": any value).
	Cookies map[string]string

	// Backend is the echo backend that must answer ("": any, or none).
	Backend string
	// Backends must all answer, and no other: the request is sent again
	// (at most balanceTries times) until each has; every answer must
	// pass the other checks.
	Backends []string
	// Path, RawPath, RequestURI, Query and UpstreamHost are the request
	// as the backend saw it (r.URL.Path, r.URL.RawPath, r.RequestURI,
	// r.URL.RawQuery, r.Host). Checking any of them needs an echo answer.
	Path         string
	RawPath      string
	RequestURI   string
	Query        string
	UpstreamHost string
	// UpstreamHeaders are request headers the backend must have received
	// with that (first) value; NoUpstreamHeaders it must not have.
	UpstreamHeaders   map[string]string
	NoUpstreamHeaders []string

	// CertDNSNames are the DNS names the served certificate must hold
	// (https only); CertSecret, "namespace/name" or "name" in the case's
	// namespace, is the Secret whose certificate must be served.
	// NotCertSecret is a Secret whose certificate must not be served.
	CertDNSNames  []string
	CertSecret    string
	NotCertSecret string

	// Check is anything else to assert; it returns what is wrong.
	Check func(*Response) error
}

// balanceTries bounds the requests sent for Request.Backends.
const balanceTries = 20

// check lists what is wrong with one answer to r. The Backends set is
// checked by the caller across answers.
func (r *Request) check(res *Response, certs *certificates, ns string) []string {
	var wrong []string
	bad := func(format string, args ...any) { wrong = append(wrong, fmt.Sprintf(format, args...)) }
	status := r.Status
	if status == 0 {
		status = 200
	}
	if res.Status != status {
		bad("status %d, want %d", res.Status, status)
	}
	if r.Location != "" && res.Header.Get("Location") != r.Location {
		bad("Location %q, want %q", res.Header.Get("Location"), r.Location)
	}
	for _, k := range sortedKeys(r.Headers) {
		v := r.Headers[k]
		if got, ok := res.Header[http.CanonicalHeaderKey(k)]; !ok {
			bad("no response header %s, want %q", k, v)
		} else if got[0] != v {
			bad("response header %s: %q, want %q", k, got[0], v)
		}
	}
	for _, k := range r.NoHeaders {
		if got, ok := res.Header[http.CanonicalHeaderKey(k)]; ok {
			bad("response header %s: %q, want none", k, got)
		}
	}
	for _, name := range sortedKeys(r.Cookies) {
		v := r.Cookies[name]
		i := slices.IndexFunc(res.Cookies, func(c *http.Cookie) bool { return c.Name == name })
		if i < 0 {
			bad("no cookie %s set", name)
		} else if v != "*" && res.Cookies[i].Value != v {
			bad("cookie %s=%q, want %q", name, res.Cookies[i].Value, v)
		}
	}
	wrong = append(wrong, r.checkUpstream(res)...)
	wrong = append(wrong, r.checkCertificate(res, certs, ns)...)
	if r.Check != nil {
		if err := r.Check(res); err != nil {
			bad("%v", err)
		}
	}
	return wrong
}

func (r *Request) checkUpstream(res *Response) []string {
	var wrong []string
	bad := func(format string, args ...any) { wrong = append(wrong, fmt.Sprintf(format, args...)) }
	if r.Backend != "" && res.Backend != r.Backend {
		bad("answered by %s, want backend %s", answeredBy(res), r.Backend)
	}
	needsEcho := r.Path != "" || r.RawPath != "" || r.RequestURI != "" || r.Query != "" || r.UpstreamHost != "" ||
		len(r.UpstreamHeaders) > 0 || len(r.NoUpstreamHeaders) > 0
	if !needsEcho {
		return wrong
	}
	e := res.Echo
	if e == nil {
		return append(wrong, fmt.Sprintf("answered by %s, which does not echo the request", answeredBy(res)))
	}
	for _, f := range []struct{ name, got, want string }{
		{"path", e.Path, r.Path}, {"raw path", e.RawPath, r.RawPath}, {"request URI", e.RequestURI, r.RequestURI},
		{"query", e.Query, r.Query}, {"Host", e.Host, r.UpstreamHost},
	} {
		if f.want != "" && f.got != f.want {
			bad("upstream %s %q, want %q", f.name, f.got, f.want)
		}
	}
	for _, k := range sortedKeys(r.UpstreamHeaders) {
		v := r.UpstreamHeaders[k]
		if got, ok := e.Header[http.CanonicalHeaderKey(k)]; !ok {
			bad("no upstream header %s, want %q", k, v)
		} else if got[0] != v {
			bad("upstream header %s: %q, want %q", k, got[0], v)
		}
	}
	for _, k := range r.NoUpstreamHeaders {
		if got, ok := e.Header[http.CanonicalHeaderKey(k)]; ok {
			bad("upstream header %s: %q, want none", k, got)
		}
	}
	return wrong
}

func (r *Request) checkCertificate(res *Response, certs *certificates, ns string) []string {
	if len(r.CertDNSNames) == 0 && r.CertSecret == "" && r.NotCertSecret == "" {
		return nil
	}
	if res.Certificate == nil {
		return []string{"no certificate served (not https?)"}
	}
	var wrong []string
	for _, n := range r.CertDNSNames {
		if !slices.Contains(res.Certificate.DNSNames, n) {
			wrong = append(wrong, fmt.Sprintf("served certificate's DNS names %v lack %s", res.Certificate.DNSNames, n))
		}
	}
	for _, s := range []struct {
		name   string
		served bool
	}{{r.CertSecret, true}, {r.NotCertSecret, false}} {
		if s.name == "" {
			continue
		}
		key := s.name
		if !strings.Contains(key, "/") {
			key = ns + "/" + key
		}
		want := certs.get(key)
		switch {
		case want == nil:
			wrong = append(wrong, "no case wrote the tlsSecret "+key)
		case s.served && !want.Equal(res.Certificate):
			wrong = append(wrong, fmt.Sprintf("served certificate %q (DNS names %v), not Secret %s's",
				res.Certificate.Subject.CommonName, res.Certificate.DNSNames, key))
		case !s.served && want.Equal(res.Certificate):
			wrong = append(wrong, "served Secret "+key+"'s certificate, which is not for this name")
		}
	}
	return wrong
}

func answeredBy(res *Response) string {
	if res.Backend != "" {
		return "backend " + res.Backend
	}
	return "Traefik itself (no echo backend)"
}
