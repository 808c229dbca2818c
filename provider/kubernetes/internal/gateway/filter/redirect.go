package filter

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// preciseHostname is Gateway API's PreciseHostname: lower-case DNS
// labels, no wildcard.
var preciseHostname = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func checkHostname(p *field.Path, h *gwapiv1.PreciseHostname) *Error {
	if h == nil {
		return nil
	}
	if len(*h) > 253 || !preciseHostname.MatchString(string(*h)) {
		return unsupported(p, "%s is not a host name (lower-case DNS labels)", excerpt.Quote(string(*h)))
	}
	return nil
}

// location is what a redirect's Location header says before any request
// is seen; an empty field there is taken from the request.
type location struct {
	scheme   string // http or https; "": the request's
	host     string // "": the request's, without its port
	keepPort bool   // the port of the request's Host
	port     string // when !keepPort: the port, "" for none
	path     *pathChange
}

// wellKnownPort is the port a URL of the scheme need not spell.
func wellKnownPort(scheme string) int32 {
	if scheme == "https" {
		return 443
	}
	return 80
}

// redirectLocation applies Gateway API's rules to f. The scheme is f's,
// else the request's, which is the listener's (an HTTPS listener's
// requests are https). The port is f's; else the well-known port of f's
// scheme; else the listener's port. A port that is the well-known one
// of the resulting scheme is left out of Location.
func redirectLocation(f *gwapiv1.HTTPRequestRedirectFilter, l Listener) location {
	loc := location{scheme: l.Scheme}
	if f.Scheme != nil {
		loc.scheme = *f.Scheme
	}
	if f.Hostname != nil {
		loc.host = string(*f.Hostname)
	}
	var port int32
	switch {
	case f.Port != nil:
		port = *f.Port
	case f.Scheme != nil:
		port = wellKnownPort(*f.Scheme)
	case l.Port != 0:
		port = l.Port
	default:
		loc.keepPort = true
		return loc
	}
	if loc.scheme == "" || port != wellKnownPort(loc.scheme) {
		loc.port = strconv.Itoa(int(port))
	}
	return loc
}

// readRedirect checks f and reads its location and status code.
func readRedirect(p *field.Path, f *gwapiv1.HTTPRequestRedirectFilter, l Listener, matches []gwapiv1.HTTPRouteMatch) (location, int, Errors) {
	var errs Errors
	if f.Scheme != nil && *f.Scheme != "http" && *f.Scheme != "https" {
		errs = append(errs, unsupported(p.Child("scheme"), "%s is not a scheme (http, https)", excerpt.Quote(*f.Scheme)))
	}
	if err := checkHostname(p.Child("hostname"), f.Hostname); err != nil {
		errs = append(errs, err)
	}
	if f.Port != nil && (*f.Port < 1 || *f.Port > 65535) {
		errs = append(errs, unsupported(p.Child("port"), "%d is not a port (1 to 65535)", *f.Port))
	}
	code := http.StatusFound // Gateway API's default
	if f.StatusCode != nil {
		code = *f.StatusCode
	}
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		errs = append(errs, unsupported(p.Child("statusCode"), "%d is not a redirect status code (301, 302, 303, 307, 308)", code))
	}
	var change *pathChange
	if f.Path != nil {
		c, err := readPathModifier(p.Child("path"), f.Path, matches)
		if err != nil {
			errs = append(errs, err)
		}
		change = &c
	}
	if len(errs) > 0 {
		return location{}, 0, errs
	}
	loc := redirectLocation(f, l)
	loc.path = change
	return loc, code, nil
}

// requestRedirect is a RequestRedirect filter as a middleware.
//
// Portable: Traefik's redirectRegex, whose regular expression runs on
// scheme://host[:port]/path?query of the request (scheme https when
// Traefik terminated TLS) and whose replacement is the Location. It
// answers 301 (permanent) or 302 to GET, and 308 or 307 to any other
// method, and has no other code: statusCode 303, 307 and 308 are
// refused, and a non-GET request to a 301 or 302 redirect gets 308 or
// 307.
//
// Plugin: Traefik's requestRedirect, which sends the filter's code.
func requestRedirect(env Env, p *field.Path, f *gwapiv1.HTTPRequestRedirectFilter, matches []gwapiv1.HTTPRouteMatch) (dynamic.Middleware, Errors) {
	loc, code, errs := readRedirect(p, f, env.Listener, matches)
	if len(errs) > 0 {
		return nil, errs
	}
	if env.Target == Plugin {
		return dynamic.Middleware{"requestRedirect": gatewayRedirect(loc, code)}, nil
	}
	var permanent bool
	switch code {
	case http.StatusMovedPermanently:
		permanent = true
	case http.StatusFound:
	default:
		return nil, Errors{unsupported(p.Child("statusCode"),
			"%d needs Traefik's Gateway API redirect, which only the provider plugin delivers; "+
				"the redirectRegex middleware the other deliveries carry answers 301 or 302 only", code)}
	}
	regex, replacement := loc.regex()
	rr := map[string]any{"regex": regex, "replacement": replacement}
	if permanent {
		rr["permanent"] = true
	}
	return dynamic.Middleware{"redirectRegex": rr}, nil
}

// regex is loc as the regular expression and replacement of Traefik's
// redirectRegex. The expression matches every URL Traefik builds for a
// request whose path the rule matched; its groups are the parts a
// Location takes from the request.
//
// A known scheme is written in capitals. Traefik redirects only when
// the replacement differs, as a string, from the request's URL, and
// parses it before writing Location, which puts the scheme in lower
// case: the capitals make every such redirect happen, a redirect to the
// request's own URL included (Gateway API's conformance test sends one,
// to an HTTPS listener), and the client still reads "https://". An
// unknown scheme is the request's, and a redirect to the request's own
// URL then passes the request on.
func (loc location) regex() (regex, replacement string) {
	regex = `^(?P<scheme>https?)://(?P<host>\[[^\]]*\]|[^/:]*)(?P<port>:[0-9]*)?`
	replacement = "${scheme}"
	if loc.scheme != "" {
		replacement = strings.ToUpper(loc.scheme)
	}
	replacement += "://"
	if loc.host != "" {
		replacement += loc.host
	} else {
		replacement += "${host}"
	}
	switch {
	case loc.keepPort:
		replacement += "${port}"
	case loc.port != "":
		replacement += ":" + loc.port
	}
	switch {
	case loc.path == nil:
		regex += `(?P<path>/[^?]*)?`
		replacement += "${path}"
	case loc.path.prefixed != nil:
		re, rep := loc.path.prefixed.pattern(`[^?]`)
		regex += re
		replacement += rep
	default:
		regex += `(?:/[^?]*)?`
		replacement += literal(loc.path.full)
	}
	return regex + `(?P<query>\?.*)?$`, replacement + "${query}"
}

// gatewayRedirect is Traefik's RequestRedirect for loc. Traefik's
// middleware joins path and what follows pathPrefix in the request's
// path (path.Join, keeping a trailing slash), so both are given without
// a trailing slash, and "/" for an empty one: /foo with pathPrefix /foo
// and path / becomes /, as Gateway API asks.
func gatewayRedirect(loc location, code int) map[string]any {
	rr := map[string]any{"statusCode": code}
	if loc.scheme != "" {
		rr["scheme"] = loc.scheme
	}
	if loc.host != "" {
		rr["hostname"] = loc.host
	}
	if !loc.keepPort {
		rr["port"] = loc.port // "" drops the request's port
	}
	addGatewayPath(rr, loc.path)
	return rr
}

// addGatewayPath sets the path and pathPrefix of Traefik's
// RequestRedirect or URLRewrite for c.
func addGatewayPath(m map[string]any, c *pathChange) {
	switch {
	case c == nil:
	case c.prefixed != nil:
		m["path"] = orRoot(c.prefixed.replacement)
		m["pathPrefix"] = orRoot(c.prefixed.prefix)
	default:
		m["path"] = c.full
	}
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
