package filter

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// defaultCORSMaxAge is Gateway API's default Access-Control-Max-Age.
const defaultCORSMaxAge = 5

// corsMethods are the values allowMethods takes.
var corsMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "*"}

// corsOrigin is Gateway API's CORSOrigin: "*", or scheme://host[:port]
// where the host may be "*" or start with "*.".
var corsOrigin = regexp.MustCompile(`^(?:\*|https?://(?:(?:\*\.)?(?:[a-zA-Z0-9-]+\.)*[a-zA-Z0-9-]+|\*)(?::[0-9]{1,5})?)$`)

// cors is a CORS filter as Traefik's headers middleware, whichever the
// target: it is the only CORS Traefik has, and every delivery carries
// it. Gateway API's answers need Traefik v3.7.6 or later, which echoes
// the origin, the requested method and the requested headers in place
// of "*" when credentials are allowed, and sends
// Access-Control-Expose-Headers on preflights too; v3.7.0 to v3.7.5
// answer "*" and leave it out, and fail the conformance test there.
// What a request sees:
//   - a preflight (OPTIONS with Origin and Access-Control-Request-Method)
//     is answered 200 by Traefik, never sent to the backend; an origin
//     not allowed gets no Access-Control-Allow-Origin;
//   - another request goes on, and its answer gets
//     Access-Control-Allow-Origin when its origin is allowed;
//   - exact origins are compared as browsers write them (lower case, no
//     well-known port); a host starting with "*." matches one or more
//     labels in its place; the origin "*" alone allows any origin;
//   - Vary: Origin is added whenever the answer depends on the origin.
func cors(p *field.Path, f *gwapiv1.HTTPCORSFilter) (dynamic.Middleware, Errors) {
	var errs Errors
	var exact, patterns []string
	anyOrigin := false
	for i, o := range f.AllowOrigins {
		op := p.Child("allowOrigins").Index(i)
		switch {
		case o == "*":
			anyOrigin = true
		case !corsOrigin.MatchString(string(o)):
			errs = append(errs, unsupported(op, "%s is not an origin (scheme://host[:port], or *)", excerpt.Quote(string(o))))
		default:
			e, pat, err := readOrigin(op, string(o))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if pat != "" {
				patterns = append(patterns, pat)
			} else {
				exact = append(exact, e)
			}
		}
	}
	if anyOrigin && len(f.AllowOrigins) > 1 {
		errs = append(errs, unsupported(p.Child("allowOrigins"), "* cannot be given with other origins"))
	}
	methods := make([]string, 0, len(f.AllowMethods))
	for i, m := range f.AllowMethods {
		if !slices.Contains(corsMethods, string(m)) {
			errs = append(errs, unsupported(p.Child("allowMethods").Index(i), "%s is not a method (%s)", excerpt.Quote(string(m)), strings.Join(corsMethods, ", ")))
		}
		methods = append(methods, string(m))
	}
	if slices.Contains(methods, "*") && len(methods) > 1 {
		errs = append(errs, unsupported(p.Child("allowMethods"), "* cannot be given with other methods"))
	}
	allowHeaders, herrs := corsHeaderNames(p.Child("allowHeaders"), f.AllowHeaders, true)
	errs = append(errs, herrs...)
	expose, herrs := corsHeaderNames(p.Child("exposeHeaders"), f.ExposeHeaders, false)
	errs = append(errs, herrs...)
	maxAge := int(f.MaxAge)
	switch {
	case maxAge == 0:
		maxAge = defaultCORSMaxAge
	case maxAge < 0:
		errs = append(errs, unsupported(p.Child("maxAge"), "%d is not a number of seconds (1 or more)", f.MaxAge))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	credentials := f.AllowCredentials != nil && *f.AllowCredentials
	h := map[string]any{"accessControlMaxAge": maxAge}
	if anyOrigin {
		h["accessControlAllowOriginList"] = []string{"*"}
	}
	if len(exact) > 0 {
		h["accessControlAllowOriginList"] = exact
	}
	if len(patterns) > 0 {
		h["accessControlAllowOriginListRegex"] = patterns
	}
	// "*" without credentials is the same answer for every origin.
	if !anyOrigin || credentials {
		h["addVaryHeader"] = true
	}
	if credentials {
		h["accessControlAllowCredentials"] = true
	}
	if len(methods) > 0 {
		h["accessControlAllowMethods"] = methods
	}
	if len(allowHeaders) > 0 {
		h["accessControlAllowHeaders"] = allowHeaders
	}
	if len(expose) > 0 {
		h["accessControlExposeHeaders"] = expose
	}
	return dynamic.Middleware{"headers": h}, nil
}

// readOrigin is an origin as browsers send it, when exact, or the
// regular expression that matches it, when its host has a wildcard.
func readOrigin(p *field.Path, o string) (exact, pattern string, err *Error) {
	scheme, rest, _ := strings.Cut(o, "://") // corsOrigin: http or https
	host, port := rest, ""
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		host, port = rest[:i], rest[i+1:]
		n, perr := strconv.Atoi(port)
		if perr != nil || n < 1 || n > 65535 {
			return "", "", unsupported(p, "%s has no valid port (1 to 65535)", excerpt.Quote(o))
		}
		// A browser never writes the well-known port of the scheme.
		if int32(n) == wellKnownPort(scheme) {
			port = ""
		}
	}
	host = strings.ToLower(host)
	hostPort := host
	if port != "" {
		hostPort += ":" + port
	}
	if !strings.Contains(host, "*") {
		u := url.URL{Scheme: scheme, Host: hostPort}
		return u.String(), "", nil
	}
	hostPattern := `(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])` // "*"
	if host != "*" {                                 // "*." then labels
		hostPattern = `(?:[a-z0-9-]+\.)+` + regexp.QuoteMeta(strings.TrimPrefix(host, "*."))
	}
	portPattern := ""
	if port != "" {
		portPattern = regexp.QuoteMeta(":" + port)
	}
	return "", "^" + scheme + "://" + hostPattern + portPattern + "$", nil
}

// corsHeaderNames checks a list of header names; "*" is allowed alone,
// and kept as written, as browsers compare these names without case.
func corsHeaderNames(p *field.Path, names []gwapiv1.HTTPHeaderName, allowHeaders bool) ([]string, Errors) {
	var errs Errors
	out := make([]string, 0, len(names))
	for i, n := range names {
		if n != "*" && !httpguts.ValidHeaderFieldName(string(n)) {
			errs = append(errs, unsupported(p.Index(i), "%s is not a header name", excerpt.Quote(string(n))))
		}
		out = append(out, string(n))
	}
	if allowHeaders && slices.Contains(out, "*") && len(out) > 1 {
		errs = append(errs, unsupported(p, "* cannot be given with other header names"))
	}
	return out, errs
}
