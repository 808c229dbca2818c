package nginx

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// forwardAuthConfig is what the external authentication annotations say.
type forwardAuthConfig struct {
	url             string
	responseHeaders []string
	signin          string
	requestRedirect string
	// noGlobal: enable-global-auth "false", the ConfigMap's global
	// authentication is not asked.
	noGlobal bool
}

// External authentication is Traefik's forwardAuth. Differences:
//   - nginx values may hold nginx variables ($host, $escaped_request_uri);
//     Traefik has none, so a value with $ is refused (auth-url: the paths
//     are closed and answer 403);
//   - a host of auth-url or auth-signin that is loopback, link-local,
//     unspecified or localhost, in any spelling, is refused and closes the
//     paths unless allowedAuthHosts names it (authhost.go); nginx asks it;
//   - the auth service is asked with GET, as nginx's subrequest is, and
//     told the request in X-Forwarded-Method, -Proto, -Host, -Uri and -For
//     where nginx sends X-Original-URL, X-Original-Method and X-Sent-From;
//     the X-Forwarded-* headers of the client are not trusted
//     (trustForwardHeader false);
//   - Traefik hands every answer of the auth service but 2xx to the client
//     as is; nginx answers 401 and 403 as such and 500 for the others;
//   - auth-signin: on a 401 Traefik redirects (302) to the URL as given;
//     nginx adds the original URL in an rd parameter, which Traefik cannot;
//   - auth-request-redirect's X-Auth-Request-Redirect header is set by a
//     headers middleware before forwardAuth, so the backend sees it too;
//   - auth-cache-key is ignored: Traefik asks the auth service for every
//     request, nothing is cached;
//   - nginx never reads the auth service's body; Traefik reads it whole
//     (to hand a refusal to the client) unless told a limit, so a limit
//     is set (authMaxResponseBody): an answer with a longer body is a 401.
var forwardAuthAnnotations = []annotation{
	{name: "auth-url", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.Forward.url, err = parseAuthURL(v, c.opts, "it is never an auth service: Traefik would ask it about every request and copy headers of its answers to the backend")
		return
	}},
	{name: "auth-method", access: true, parse: func(v string, c *Config) error {
		if m := strings.TrimSpace(v); m != "GET" {
			return errors.New("not supported: Traefik asks the auth service with GET (or the request's own method), only GET can be honoured")
		}
		return nil
	}},
	{name: "auth-response-headers", access: true, parse: func(v string, c *Config) (err error) {
		c.Access.Forward.responseHeaders, err = parseHeaderNames(v)
		return
	}},
	// Not an access annotation: without it a refused client gets the auth
	// service's 401 rather than a redirect. A host it may not name closes
	// the Ingress all the same (closingError): the Ingress's author asked
	// to send clients' browsers there.
	{name: "auth-signin", parse: func(v string, c *Config) (err error) {
		c.Access.Forward.signin, err = parseAuthURL(v, c.opts, "it is never a sign-in page: refused clients would be sent to their own machine or network")
		return
	}},
	{name: "auth-request-redirect", parse: func(v string, c *Config) (err error) {
		c.Access.Forward.requestRedirect, err = parseRequestRedirect(v)
		return
	}},
	// Only turns the ConfigMap's global authentication off (an Ingress
	// cannot turn it on where it has its own auth-url).
	{name: "enable-global-auth", parse: func(v string, c *Config) error {
		on, err := parseBool(v)
		c.Access.Forward.noGlobal = err == nil && !on
		return err
	}},
	// The headers a ConfigMap lists may be what the auth service decides
	// by: without them it might let in what it would keep out.
	{name: "auth-proxy-set-headers", access: true, parse: func(string, *Config) error {
		return errors.New("not supported: Traefik's forwardAuth cannot add headers to the request to the auth service")
	}},
	{name: "auth-signin-redirect-param", parse: func(string, *Config) error {
		return errors.New("not supported: Traefik redirects to auth-signin as given, without the original URL")
	}},
	{name: "auth-cache-key", parse: ignoredAuth("Traefik caches no answer of the auth service: every request asks it")},
	{name: "auth-cache-duration", parse: ignoredAuth("Traefik caches no answer of the auth service: every request asks it")},
	{name: "auth-keepalive", parse: ignoredAuth("Traefik keeps its own connections to the auth service")},
	{name: "auth-keepalive-requests", parse: ignoredAuth("Traefik keeps its own connections to the auth service")},
	{name: "auth-keepalive-timeout", parse: ignoredAuth("Traefik keeps its own connections to the auth service")},
	{name: "auth-keepalive-share-vars", parse: ignoredAuth("Traefik has no nginx variables to share")},
	{name: "auth-always-set-cookie", parse: ignoredAuth("Traefik's forwardAuth copies only named cookies of the auth service's answer")},
}

// ignoredAuth is the parser of an annotation that tunes nginx's auth
// request in a way that changes nothing of who gets in.
func ignoredAuth(why string) func(string, *Config) error {
	return func(string, *Config) error { return errors.New("ignored: " + why) }
}

var headerName = regexp.MustCompile(`^[A-Za-z0-9_\-]+$`)

// parseHeaderNames reads a comma-separated list of header names.
func parseHeaderNames(v string) ([]string, error) {
	headers := parseList(v)
	for _, h := range headers {
		if !headerName.MatchString(h) {
			return nil, errors.New("must be a comma-separated list of header names (letters, digits, _ and -)")
		}
	}
	return headers, nil
}

// parseRequestRedirect reads the value of the X-Auth-Request-Redirect
// header.
func parseRequestRedirect(v string) (string, error) {
	v = strings.TrimSpace(v)
	if strings.ContainsAny(v, "$\r\n") {
		return "", errors.New("must not hold nginx variables ($...) or line breaks: Traefik has none")
	}
	return v, nil
}

// parseAuthURL reads an absolute http or https URL without nginx
// variables, whose host o allows (authhost.go; role says why such a host
// cannot be the annotation's, and the refusal closes the Ingress). An
// empty role is the operator's own URL (the ConfigMap's), whose host is
// not checked: it may well be an auth service beside Traefik.
func parseAuthURL(v string, o *Options, role string) (string, error) {
	v = strings.TrimSpace(v)
	if strings.Contains(v, "$") {
		return "", errors.New("must not hold nginx variables ($...): Traefik has none")
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("must be an absolute http or https URL")
	}
	// ingress-nginx refuses a host with an empty label (invalid..host);
	// Traefik would ask it and answer 500 to every request.
	if h := u.Hostname(); h == "" || strings.Contains(h, "..") || strings.HasPrefix(h, ".") {
		return "", errors.New("must be an absolute http or https URL with a valid host")
	}
	if role == "" {
		return v, nil
	}
	if err := o.checkAuthHost(u.Hostname()); err != nil {
		return "", closingError{err: fmt.Errorf("%w; %s; allowedAuthHosts lists hosts allowed anyway", err, role)}
	}
	return v, nil
}

// authMaxResponseBody is the longest body of the auth service's answer
// Traefik reads, in bytes: enough for a refusal's page, and a bound on
// what one request can make Traefik hold (it allocates the limit for
// each answer).
const authMaxResponseBody = 64 << 10

// forwardAuth is the path's forwardAuth middleware (after the header of
// auth-request-redirect). It needs nothing but the annotations, so it
// is always built.
//
// Without an auth-url of its own, the path asks the ConfigMap's global
// authentication, unless the Ingress turns it off (enable-global-auth)
// or the path is one no-auth-locations names; those middlewares are the
// same for every Ingress, and shared.
func (pc *pathContext) forwardAuth(names []string) ([]string, bool) {
	f := &pc.cfg.Access.Forward
	if f.url == "" && (f.signin != "" || f.responseHeaders != nil) {
		pc.annotationProblem("auth-url", translate.SeverityWarning, errors.New("auth-signin and auth-response-headers need auth-url: ignored without it"))
	}
	name := func(suffix string) string { return pc.ingressName(suffix) }
	ctl := pc.opts.controller()
	if g := ctl.globalAuth(f); g != nil && !slices.Contains(ctl.NoAuthLocations, pc.path.Path) {
		f, name = g, controllerName
	}
	if f.url == "" {
		return names, true
	}
	if f.requestRedirect != "" {
		name := name("auth-request-redirect")
		pc.addMiddleware(name, dynamic.Middleware{"headers": map[string]any{
			"customRequestHeaders": map[string]string{"X-Auth-Request-Redirect": f.requestRedirect},
		}})
		names = append(names, name)
	}
	mw := map[string]any{"address": f.url, "trustForwardHeader": false, "maxResponseBodySize": authMaxResponseBody}
	if f.responseHeaders != nil {
		mw["authResponseHeaders"] = f.responseHeaders
	}
	if f.signin != "" {
		mw["authSigninURL"] = f.signin
	}
	auth := name("forward-auth")
	pc.addMiddleware(auth, dynamic.Middleware{"forwardAuth": mw})
	return append(names, auth), true
}
