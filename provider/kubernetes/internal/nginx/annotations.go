package nginx

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// AnnotationPrefix starts every annotation this dialect reads.
const AnnotationPrefix = "nginx.ingress.kubernetes.io/"

// annotation is one nginx.ingress.kubernetes.io annotation this dialect
// knows: how its value is read into a Config, and whether it controls
// access (an access annotation that cannot be honoured never fails open:
// the Ingress's paths answer 403).
type annotation struct {
	name   string // after the prefix
	access bool
	parse  func(value string, c *Config) error
}

// refusal is an annotation this dialect knows and refuses: what it would
// do cannot be built from Traefik's public middlewares (raw nginx
// configuration, a WAF), so it is reported, and the Ingress is served
// without it unless access says that serving it without would fail open.
// A snippet is access unless the options say snippets may be dropped
// (dropSnippets).
type refusal struct {
	name    string
	access  bool
	snippet bool
	why     string
}

// annotations are every annotation the dialect reads, by family; each
// family's file holds its table.
func annotations() [][]annotation {
	return [][]annotation{pathAnnotations, backendAnnotations, accessAnnotations, canaryAnnotations}
}

var known = func() map[string]annotation {
	m := map[string]annotation{}
	for _, family := range annotations() {
		for _, a := range family {
			if _, dup := m[a.name]; dup {
				panic("nginx: annotation " + a.name + " is in two families")
			}
			m[a.name] = a
		}
	}
	return m
}()

var refused = func() map[string]refusal {
	m := map[string]refusal{}
	for _, r := range refusals {
		m[r.name] = r
	}
	return m
}()

// refusals are the annotations that are refused by name.
//
// The snippets are raw nginx configuration, and what a tenant writes
// there is often access control ("deny all;", "allow 10.0.0.0/8;",
// auth_request, a server-wide "return 403;"): served without it, the
// backend would be open to those the snippet kept out. ingress-nginx with
// snippets disabled does not serve such an Ingress at all; here its paths
// answer 403, unless the operator has reviewed the snippets and says
// they may be dropped (dropSnippets). auth-snippet and
// modsecurity-snippet are part of an access check that cannot be built
// without them, and close whatever the option says.
var refusals = []refusal{
	{name: "configuration-snippet", snippet: true, why: "it is raw nginx configuration"},
	{name: "server-snippet", snippet: true, why: "it is raw nginx configuration"},
	{name: "stream-snippet", snippet: true, why: "it is raw nginx configuration"},
	{name: "auth-snippet", access: true, why: "it is raw nginx configuration"},
	{name: "modsecurity-snippet", access: true, why: "it is raw nginx configuration"},
	{name: "enable-modsecurity", access: true, why: "Traefik has no ModSecurity web application firewall among its public middlewares"},
	{name: "enable-owasp-core-rules", access: true, why: "Traefik has no ModSecurity web application firewall among its public middlewares"},
	{name: "modsecurity-transaction-id", why: "Traefik has no ModSecurity web application firewall among its public middlewares"},
}

// Problem is an annotation that could not be honoured.
type Problem struct {
	Annotation string // the full key
	Err        error
	// Closed says that the Ingress's paths answer 403 because of it:
	// an access annotation that cannot be honoured, a snippet that may
	// not be dropped, or a value refused for what it would reach
	// (closingError).
	Closed bool
	// why is what closing stands for, when not access control.
	why string
}

// Config is what the annotations of one Ingress say, by family.
type Config struct {
	Paths   PathConfig
	Backend BackendConfig
	Access  AccessConfig
	Canary  CanaryConfig
	// opts are the options the annotations are read under, for the
	// parsers that depend on them (nil: the defaults).
	opts *Options
}

// closingError is a parse error that closes the Ingress whatever the
// access flag of its annotation: the value is refused for what it would
// reach (an auth-signin on loopback), or ingress-nginx would not load
// the Ingress at all (why says so), so the Ingress must not be served as
// if the annotation were absent.
type closingError struct {
	err error
	why string // "" when the annotation controls access
}

func (e closingError) Error() string { return e.err.Error() }
func (e closingError) Unwrap() error { return e.err }

// ParseAnnotations reads the nginx.ingress.kubernetes.io annotations of
// an Ingress under the default options, the strictest reading: a snippet
// closes the Ingress, no auth host is allowed beyond the rules.
func ParseAnnotations(annotations map[string]string) (*Config, []Problem) {
	return (*Options)(nil).ParseAnnotations(annotations)
}

// ParseAnnotations reads the nginx.ingress.kubernetes.io annotations of
// an Ingress under o (nil: the defaults). Every annotation it cannot
// honour is a Problem; the others are in the Config. Problems come in
// the order of their keys. Every reader of one Ingress's annotations in
// a translation must use the same options, or they would disagree on
// whether it is closed.
//
// Options made by WithController remember what each set of annotations
// read into, so that the Ingresses with the same set (charts write a few
// sets many times), and the neighbours that read an Ingress's
// annotations again (hostfacts.go, canarycheck.go), share one Config:
// what it returns must never be modified.
func (o *Options) ParseAnnotations(annotations map[string]string) (*Config, []Problem) {
	if o == nil || o.parsed == nil {
		return o.parseAnnotations(annotations)
	}
	r := o.parsed.Get(annotations, func() parsedAnnotations {
		c, problems := o.parseAnnotations(annotations)
		return parsedAnnotations{c, problems}
	})
	return r.config, r.problems
}

// parsedAnnotations is what one set of annotations read into.
type parsedAnnotations struct {
	config   *Config
	problems []Problem
}

func (o *Options) parseAnnotations(annotations map[string]string) (*Config, []Problem) {
	c := &Config{opts: o}
	c.setDefaults()
	var problems []Problem
	keys := make([]string, 0, len(annotations))
	for k := range annotations {
		if strings.HasPrefix(k, AnnotationPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		name := strings.TrimPrefix(key, AnnotationPrefix)
		value := annotations[key]
		if r, ok := refused[name]; ok {
			problems = append(problems, o.refuse(key, value, r))
			continue
		}
		a, ok := known[name]
		if !ok {
			problems = append(problems, Problem{Annotation: key, Closed: looksLikeAccess(name), Err: unknownAnnotation(name)})
			continue
		}
		if err := a.parse(value, c); err != nil {
			var ce closingError
			closing := errors.As(err, &ce)
			problems = append(problems, Problem{Annotation: key, Closed: a.access || closing, why: ce.why, Err: fmt.Errorf("%q: %w", excerpt.Text(value), err)})
		}
	}
	// What each problem does to the Ingress, once the whole set is read:
	// a canary is not used when it would be closed.
	for i := range problems {
		problems[i].Err = fmt.Errorf("%w%s", problems[i].Err, consequence(problems[i], c.Canary.Enabled))
	}
	// What every path of an Ingress with this set makes alike, once.
	c.Access.Ranges.computeAllowList()
	c.Access.CORS.computeMiddlewares()
	c.Backend.computeMiddlewares()
	return c, problems
}

// refuse is the problem of the refused annotation key of value value.
func (o *Options) refuse(key, value string, r refusal) Problem {
	err := fmt.Errorf("%q: not supported: %s", excerpt.Text(value), r.why)
	switch {
	case r.snippet && o.dropSnippets():
		err = fmt.Errorf("%w; dropped, as dropSnippets says", err)
	case r.snippet:
		err = fmt.Errorf("%w, which may hold access rules (deny, allow, auth_request) that would not apply; dropSnippets serves such Ingresses without their snippets once they are reviewed", err)
	}
	return Problem{Annotation: key, Closed: r.access || (r.snippet && !o.dropSnippets()), Err: err}
}

// dropSnippets says whether o lets a snippet be dropped rather than
// close its Ingress.
func (o *Options) dropSnippets() bool { return o != nil && o.DropSnippets }

// consequence says what a problem does to its Ingress: a closed one's
// paths answer 403 (closed.go), a closed canary is not used, and any
// other is served without the annotation.
func consequence(p Problem, canary bool) string {
	why := "it controls access"
	if p.why != "" {
		why = p.why
	}
	switch {
	case p.Closed && canary:
		return " (" + why + ": the canary is not used)"
	case p.Closed:
		return " (" + why + ": the Ingress's paths answer 403)"
	}
	return " (the Ingress is served without it)"
}

// looksLikeAccess says whether an annotation this dialect does not know
// is about who may reach the backends, so that ignoring it would serve
// what the Ingress meant to keep closed.
func looksLikeAccess(name string) bool {
	for _, word := range []string{"auth", "allowlist", "whitelist", "denylist", "satisfy", "limit", "modsecurity", "waf", "jwt", "oauth", "tls-verify"} {
		if strings.Contains(name, word) {
			return true
		}
	}
	return false
}

func (c *Config) setDefaults() {
	c.Paths.setDefaults()
	c.Backend.setDefaults()
	c.Access.setDefaults()
	c.setControllerDefaults(c.opts.controller())
}

// The readers of annotation values, as ingress-nginx reads them.

// parseBool reads "true" or "false".
func parseBool(v string) (bool, error) {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Errorf("must be true or false")
	}
	return b, nil
}

// parseInt reads a whole number within [lo, hi].
func parseInt(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be a whole number from %d to %d", lo, hi)
	}
	return n, nil
}

// parseList reads a comma-separated list, each item trimmed, empty ones
// dropped.
func parseList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
