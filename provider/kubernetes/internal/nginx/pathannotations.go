package nginx

import (
	"errors"
	"regexp"
	"slices"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// PathConfig is what the path and redirect annotations say.
type PathConfig struct {
	UseRegex      bool
	RewriteTarget string
	// XForwardedPrefix is sent to the backend with a rewritten path only:
	// ingress-nginx sets the header next to its rewrite, nowhere else.
	XForwardedPrefix string
	SSLRedirect      bool // on by default: a plain request to a TLS host is redirected
	ForceSSLRedirect bool // even when the host has no TLS
	// PreserveTrailingSlash is read and needs nothing: Traefik's
	// redirectScheme always keeps the path as it is, which is what
	// ingress-nginx does with preserve-trailing-slash "true". Without it
	// ingress-nginx drops one trailing slash of the request URI on its
	// https redirect (http://h/a/ -> https://h/a); a redirectRegex could do
	// that, but it ignores X-Forwarded-Proto and would redirect for ever
	// behind a load balancer that terminates TLS (the case of
	// force-ssl-redirect), so the slash is kept.
	PreserveTrailingSlash bool
	AppRoot               string
	// SSLPassthrough: TLS connections for the Ingress's hosts go to the
	// backend of its "/" path as they are (passthrough.go).
	SSLPassthrough bool
	Redirect       RedirectConfig
	FromToWWW      bool
	ServerAliases  []string
}

func (c *PathConfig) setDefaults() {
	c.SSLRedirect = true
	c.Redirect.PermanentCode = 301
	c.Redirect.TemporalCode = 302
}

var pathAnnotations = []annotation{
	{name: "use-regex", parse: func(v string, c *Config) (err error) { c.Paths.UseRegex, err = parseBool(v); return }},
	{name: "rewrite-target", parse: func(v string, c *Config) (err error) { c.Paths.RewriteTarget, err = parseRewriteTarget(v); return }},
	{name: "x-forwarded-prefix", parse: func(v string, c *Config) (err error) { c.Paths.XForwardedPrefix, err = parseForwardedPrefix(v); return }},
	{name: "ssl-redirect", parse: func(v string, c *Config) error { return keep(&c.Paths.SSLRedirect, v, parseBool) }},
	{name: "force-ssl-redirect", parse: func(v string, c *Config) (err error) { c.Paths.ForceSSLRedirect, err = parseBool(v); return }},
	{name: "preserve-trailing-slash", parse: func(v string, c *Config) (err error) { c.Paths.PreserveTrailingSlash, err = parseBool(v); return }},
	{name: "app-root", parse: func(v string, c *Config) (err error) { c.Paths.AppRoot, err = parseAppRoot(v); return }},
	{name: "permanent-redirect", parse: func(v string, c *Config) (err error) { c.Paths.Redirect.Permanent, err = parseRedirectURL(v); return }},
	{name: "permanent-redirect-code", parse: func(v string, c *Config) error {
		return keep(&c.Paths.Redirect.PermanentCode, v, func(v string) (int, error) { return parseRedirectCode(v, permanentCodes) })
	}},
	{name: "temporal-redirect", parse: func(v string, c *Config) (err error) { c.Paths.Redirect.Temporal, err = parseRedirectURL(v); return }},
	{name: "temporal-redirect-code", parse: func(v string, c *Config) error {
		return keep(&c.Paths.Redirect.TemporalCode, v, func(v string) (int, error) { return parseRedirectCode(v, temporalCodes) })
	}},
	{name: "from-to-www-redirect", parse: func(v string, c *Config) (err error) { c.Paths.FromToWWW, err = parseBool(v); return }},
	{name: "server-alias", parse: func(v string, c *Config) (err error) { c.Paths.ServerAliases, err = parseAliases(v); return }},
	{name: "ssl-passthrough", parse: func(v string, c *Config) (err error) {
		if c.Paths.SSLPassthrough, err = parseBool(v); err == nil && c.Paths.SSLPassthrough && !c.opts.sslPassthrough() {
			c.Paths.SSLPassthrough = false
			return errors.New("ignored: the provider's enableSSLPassthrough is off (ingress-nginx's --enable-ssl-passthrough), so Traefik ends TLS for the host as for any other")
		}
		return err
	}},
}

// keep sets *field to what parse reads of v, and leaves its default
// when v is bad: the Ingress is served as without the annotation.
func keep[T any](field *T, v string, parse func(string) (T, error)) error {
	x, err := parse(v)
	if err == nil {
		*field = x
	}
	return err
}

// rewrites says whether the rewrite-target rewrites the path p: as
// ingress-nginx has it, a target equal to the path is no rewrite (and
// does not put the host in regex mode).
func (c *PathConfig) rewrites(p string) bool { return c.RewriteTarget != "" && c.RewriteTarget != p }

// regexMode says whether these annotations of ing put host in regex
// mode: use-regex, or a rewrite-target that rewrites one of ing's paths
// of host.
func (c *PathConfig) regexMode(ing *netv1.Ingress, host string) bool {
	if c.UseRegex {
		return true
	}
	if c.RewriteTarget == "" {
		return false
	}
	for _, rule := range ing.Spec.Rules {
		if rule.Host != host || rule.HTTP == nil {
			continue
		}
		for _, p := range rule.HTTP.Paths {
			if c.rewrites(p.Path) {
				return true
			}
		}
	}
	return false
}

// plainMiddlewares are the middlewares of the plain router: those of
// both routers (mws, which start with the redirects stage) with the
// redirect to https after the redirects, as nginx answers a location's
// return (permanent-redirect, app-root) before its https redirect.
func (pc *pathContext) plainMiddlewares(mws []string) []string {
	ssl := pc.plainOnly()
	if len(ssl) == 0 {
		return mws // shared by both routers: router lists are never modified, and mws is clipped
	}
	red, _ := pc.redirects(nil) // the same names again: middlewares are defined once
	if len(red) > len(mws) || !slices.Equal(mws[:len(red)], red) {
		red = nil
	}
	out := make([]string, 0, len(mws)+len(ssl))
	out = append(out, mws[:len(red)]...)
	out = append(out, ssl...)
	return append(out, mws[len(red):]...)
}

// plainOnly are the middlewares of the plain router alone: the redirect
// to https. ingress-nginx answers 308 to every method; Traefik's
// redirectScheme, with permanent, answers 301 to GET and 308 to the
// others (its option for a fixed 308 is internal to Traefik).
func (pc *pathContext) plainOnly() []string {
	c := &pc.cfg.Paths
	if (!pc.facts.tls || !c.SSLRedirect) && !c.ForceSSLRedirect {
		return nil
	}
	name := pc.ingressName("ssl-redirect")
	pc.addMiddleware(name, dynamic.Middleware{"redirectScheme": map[string]any{"scheme": "https", "permanent": true}})
	return []string{name}
}

// rewrites are the middlewares that change the request on its way: the
// X-Forwarded-Prefix header and the path of a rewrite-target.
//
// nginx's rewrite replaces the whole URI with the target (the groups of
// the path's regular expression expanded), so the regex takes the rest
// of the path too: "/something" with target "/" sends /something/else as
// "/". Traefik's replacePathRegex also sets X-Replaced-Path to the path
// it replaced, which nginx does not send.
func (pc *pathContext) rewrites(names []string) ([]string, bool) {
	c := &pc.cfg.Paths
	if !c.rewrites(pc.path.Path) {
		return names, true
	}
	if c.XForwardedPrefix != "" {
		name := pc.ingressName("x-forwarded-prefix")
		pc.addMiddleware(name, dynamic.Middleware{"headers": map[string]any{
			"customRequestHeaders": map[string]any{"X-Forwarded-Prefix": c.XForwardedPrefix},
		}})
		names = append(names, name)
	}
	name := pc.name("rewrite")
	pc.addMiddleware(name, dynamic.Middleware{"replacePathRegex": map[string]any{
		"regex": "(?i)^(?:" + pc.path.Path + ").*", "replacement": goReplacement(c.RewriteTarget),
	}})
	return append(names, name), true
}

// dollarGroup is a group reference of an nginx rewrite: nginx reads one
// digit after the dollar ($12 is the group 1 and a "2").
var dollarGroup = regexp.MustCompile(`\$([1-9])`)

// goReplacement writes nginx's $1 group references as ${1}, which Go's
// regexp expands even when a letter or digit follows ($1abc is the group
// "1abc" to Go).
func goReplacement(target string) string {
	if !strings.Contains(target, "$") {
		return target
	}
	return dollarGroup.ReplaceAllString(target, `$${$1}`)
}

// rewriteTargetChars are what ingress-nginx lets a rewrite target hold:
// letters, digits, - . _ ~ / : and $.
var rewriteTargetChars = regexp.MustCompile(`^[-._~a-zA-Z0-9/:$]*$`)

// nginxVariable is a $ that does not start a group reference: an nginx
// variable ($host, $uri), which Traefik cannot expand.
var nginxVariable = regexp.MustCompile(`\$([^1-9]|$)`)

func parseRewriteTarget(v string) (string, error) {
	if !rewriteTargetChars.MatchString(v) {
		return "", errors.New("must be a path of letters, digits, - . _ ~ / : and $1-style group references")
	}
	if nginxVariable.MatchString(v) {
		return "", errors.New("only $1 to $9 group references are supported, not nginx variables")
	}
	return v, nil
}

func parseForwardedPrefix(v string) (string, error) {
	v = strings.TrimSpace(v)
	if !rewriteTargetChars.MatchString(v) {
		return "", errors.New("must be a path of letters, digits and the characters - . _ ~ : /")
	}
	if strings.Contains(v, "$") {
		// nginx expands the groups of the rewrite's regex in the header;
		// Traefik's headers middleware sets fixed values.
		return "", errors.New("group references ($1) are not supported in a header value")
	}
	return v, nil
}
