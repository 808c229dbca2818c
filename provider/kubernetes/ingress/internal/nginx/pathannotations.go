package nginx

import (
	"regexp"
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
)

// PathConfig is what the path and redirect annotations say.
type PathConfig struct {
	UseRegex         bool
	RewriteTarget    string
	SSLRedirect      bool // on by default: a plain request to a TLS host is redirected
	ForceSSLRedirect bool // even when the host has no TLS
}

func (c *PathConfig) setDefaults() { c.SSLRedirect = true }

// regexMode says whether these annotations put the host in regex mode.
func (c *PathConfig) regexMode() bool { return c.UseRegex || c.RewriteTarget != "" }

var pathAnnotations = []annotation{
	{name: "use-regex", parse: func(v string, c *Config) (err error) { c.Paths.UseRegex, err = parseBool(v); return }},
	{name: "rewrite-target", parse: func(v string, c *Config) error { c.Paths.RewriteTarget = v; return nil }},
	{name: "ssl-redirect", parse: func(v string, c *Config) (err error) { c.Paths.SSLRedirect, err = parseBool(v); return }},
	{name: "force-ssl-redirect", parse: func(v string, c *Config) (err error) { c.Paths.ForceSSLRedirect, err = parseBool(v); return }},
}

// plainOnly are the middlewares of the plain router alone: the redirect
// to https (ingress-nginx answers 308 on its http port).
func (pc *pathContext) plainOnly() []string {
	c := &pc.cfg.Paths
	if !(pc.facts.tls && c.SSLRedirect) && !c.ForceSSLRedirect {
		return nil
	}
	name := ingressName(pc.ing.Namespace, pc.ing.Name, "ssl-redirect")
	pc.addMiddleware(name, dynamic.Middleware{"redirectScheme": map[string]any{"scheme": "https", "permanent": true}})
	return []string{name}
}

// redirects are the middlewares that answer with a redirect instead of
// sending the request on.
func (pc *pathContext) redirects() ([]string, bool) { return nil, true }

// rewrites are the middlewares that change the request's path.
func (pc *pathContext) rewrites() ([]string, bool) {
	c := &pc.cfg.Paths
	if c.RewriteTarget == "" {
		return nil, true
	}
	name := pc.name("rewrite")
	pc.addMiddleware(name, dynamic.Middleware{"replacePathRegex": map[string]any{
		"regex": "(?i)^" + pc.path.Path, "replacement": goReplacement(c.RewriteTarget),
	}})
	return []string{name}, true
}

// dollarGroup is a $1-style group reference of an nginx rewrite.
var dollarGroup = regexp.MustCompile(`\$(\d+)`)

// goReplacement writes nginx's $1 group references as ${1}, which Go's
// regexp expands even when a letter follows ($1abc is the group "1abc" to
// Go).
func goReplacement(target string) string {
	if !strings.Contains(target, "$") {
		return target
	}
	return dollarGroup.ReplaceAllString(target, `$${$1}`)
}
