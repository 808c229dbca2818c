package nginx

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// corsConfig is what the CORS annotations say.
type corsConfig struct {
	enabled     bool
	origins     []string // "*" alone: any origin
	methods     []string
	headers     []string
	expose      []string
	credentials bool
	maxAge      int

	// The middlewares they make, once the whole set is read
	// (computeMiddlewares), shared as the source ranges' are:
	// middleware the headers one, credentials the one that adds
	// Access-Control-Allow-Credentials to answers for any origin; nil
	// when not needed.
	middleware, credentialsHeader *dynamic.Middleware
}

// ingress-nginx's defaults.
var (
	defaultCORSMethods = []string{"GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS"}
	defaultCORSHeaders = []string{"DNT", "Keep-Alive", "User-Agent", "X-Requested-With", "If-Modified-Since", "Cache-Control", "Content-Type", "Range", "Authorization"}
)

const defaultCORSMaxAge = 1728000

func (c *corsConfig) setDefaults() {
	c.origins = []string{"*"}
	c.methods, c.headers = defaultCORSMethods, defaultCORSHeaders
	c.credentials, c.maxAge = true, defaultCORSMaxAge
}

// What ingress-nginx accepts in each list.
var (
	corsOrigin  = regexp.MustCompile(`^([a-z]+://(\*\.)?[A-Za-z0-9\-.]*(:\d+)?|null)$`)
	corsMethod  = regexp.MustCompile(`^[A-Za-z]+$`)
	corsHeader  = regexp.MustCompile(`^[A-Za-z0-9_\-]+$`)
	corsExposed = regexp.MustCompile(`^([A-Za-z0-9_\-]+|\*)$`)
)

// CORS is a Traefik headers middleware, first on the path as nginx
// answers preflights in its rewrite phase, before limits and
// authentication. Differences:
//   - Traefik answers a preflight (OPTIONS with Origin and
//     Access-Control-Request-Method) with 200, nginx with 204; nginx
//     answers every OPTIONS request itself, Traefik sends the other ones
//     to the backend;
//   - with the origin "*" and credentials allowed, nginx sends "*" and
//     Access-Control-Allow-Credentials: true (browsers refuse credentials
//     with "*"), while Traefik's accessControlAllowCredentials would echo
//     any origin and allow its credentials: the header is added by a
//     middleware of its own in front (its response headers reach the
//     preflight answer too), so the answer is nginx's;
//   - for a list of origins Traefik adds Vary: Origin, so caches keep the
//     answers of different origins apart.
//
// Not an access annotation: without CORS a browser refuses the cross-
// origin answers, nothing more is exposed.
var corsAnnotations = []annotation{
	{name: "enable-cors", parse: func(v string, c *Config) (err error) { c.Access.CORS.enabled, err = parseBool(v); return }},
	{name: "cors-allow-origin", parse: parseCORSOrigins},
	{name: "cors-allow-methods", parse: func(v string, c *Config) (err error) {
		c.Access.CORS.methods, err = parseCORSList(v, corsMethod, "an HTTP method (letters only)", defaultCORSMethods)
		return
	}},
	{name: "cors-allow-headers", parse: func(v string, c *Config) (err error) {
		c.Access.CORS.headers, err = parseCORSList(v, corsHeader, "a header name (letters, digits, _ and -)", defaultCORSHeaders)
		return
	}},
	{name: "cors-expose-headers", parse: func(v string, c *Config) (err error) {
		c.Access.CORS.expose, err = parseCORSList(v, corsExposed, "a header name (letters, digits, _ and -) or *", nil)
		return
	}},
	{name: "cors-allow-credentials", parse: func(v string, c *Config) (err error) { c.Access.CORS.credentials, err = parseBool(v); return }},
	{name: "cors-max-age", parse: func(v string, c *Config) (err error) { c.Access.CORS.maxAge, err = parseInt(v, 0, 1<<31-1); return }},
}

// parseCORSOrigins reads the allowed origins as ingress-nginx does: "*"
// among them is any origin; a blank list is any origin; an origin it
// cannot read is skipped (and reported).
func parseCORSOrigins(v string, c *Config) error {
	cors := &c.Access.CORS
	items := parseList(v)
	if len(items) == 0 {
		cors.origins = []string{"*"}
		return nil
	}
	var good, bad []string
	for _, o := range items {
		switch {
		case o == "*":
			cors.origins = []string{"*"}
			return nil
		case corsOrigin.MatchString(o):
			good = append(good, o)
		default:
			bad = append(bad, excerpt.Text(o))
		}
	}
	cors.origins = good
	if len(bad) > 0 {
		return fmt.Errorf("origins must be scheme://host[:port] (one *. allowed before the host) or null: %s skipped", strings.Join(bad, ", "))
	}
	return nil
}

// parseCORSList reads a comma-separated list of items that match item;
// on an error the list is def, ingress-nginx's default.
func parseCORSList(v string, item *regexp.Regexp, what string, def []string) ([]string, error) {
	items := parseList(v)
	for _, it := range items {
		if !item.MatchString(it) {
			return def, fmt.Errorf("%q is not %s", excerpt.Text(it), what)
		}
	}
	return items, nil
}

// cors is the path's CORS middleware, nil when CORS is off or no origin
// is left.
func (pc *pathContext) cors(names []string) []string {
	c := &pc.cfg.Access.CORS
	if c.middleware == nil {
		return names
	}
	if c.credentialsHeader != nil {
		name := pc.ingressName("cors-credentials")
		pc.addMiddlewareRef(name, c.credentialsHeader)
		names = append(names, name)
	}
	name := pc.ingressName("cors")
	pc.addMiddlewareRef(name, c.middleware)
	return append(names, name)
}

// computeMiddlewares sets the middlewares of CORS, when it is on.
func (c *corsConfig) computeMiddlewares() {
	if !c.enabled || len(c.origins) == 0 {
		return
	}
	h := map[string]any{
		"accessControlAllowMethods": c.methods,
		"accessControlAllowHeaders": c.headers,
		"accessControlMaxAge":       c.maxAge,
	}
	if len(c.expose) > 0 {
		h["accessControlExposeHeaders"] = c.expose
	}
	if len(c.origins) == 1 && c.origins[0] == "*" {
		h["accessControlAllowOriginList"] = []string{"*"}
		if c.credentials {
			c.credentialsHeader = &dynamic.Middleware{"headers": map[string]any{
				"customResponseHeaders": map[string]string{"Access-Control-Allow-Credentials": "true"},
			}}
		}
	} else {
		var exact, patterns []string
		for _, o := range c.origins {
			if strings.Contains(o, "*") {
				patterns = append(patterns, originPattern(o))
			} else {
				exact = append(exact, o)
			}
		}
		if exact != nil {
			h["accessControlAllowOriginList"] = exact
		}
		if patterns != nil {
			h["accessControlAllowOriginListRegex"] = patterns
		}
		h["addVaryHeader"] = true
		if c.credentials {
			h["accessControlAllowCredentials"] = true
		}
	}
	c.middleware = &dynamic.Middleware{"headers": h}
}

// originPattern is the regular expression of an origin with a wildcard
// subdomain: one label, as nginx matches it, case-insensitively.
func originPattern(origin string) string {
	q := regexp.QuoteMeta(origin)
	return "(?i)^" + strings.Replace(q, `\*`, `[A-Za-z0-9\-]+`, 1) + "$"
}
