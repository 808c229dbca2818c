package nginx

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	netv1 "k8s.io/api/networking/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// How Traefik answers a redirect: its redirectRegex and redirectScheme
// have one public choice, permanent or not, and pick the code by method:
// permanent is 301 to GET and 308 to the others, not permanent is 302 to
// GET and 307 to the others. ingress-nginx answers the one code it is
// given to every method. So 301 and 308 both become permanent, 302, 303
// and 307 not permanent: GET gets the code asked for when it is 301 or
// 302, the other methods when it is 307 or 308.

// RedirectConfig is what permanent-redirect and temporal-redirect say.
type RedirectConfig struct {
	Permanent     string // the URL every request of the Ingress is sent to
	PermanentCode int    // 301 unless permanent-redirect-code says
	Temporal      string // wins over Permanent, as in ingress-nginx
	TemporalCode  int    // 302 unless temporal-redirect-code says
}

// target is the URL of the redirect and whether it is permanent to
// Traefik; "" when there is none.
func (c *RedirectConfig) target() (string, bool) {
	if c.Temporal != "" {
		return c.Temporal, permanentCode(c.TemporalCode)
	}
	return c.Permanent, permanentCode(c.PermanentCode)
}

func permanentCode(code int) bool { return code == 301 || code == 308 }

// The codes that nginx answers with a Location (its return directive
// writes the text of 300, 304, 305 and 306 as the body): within
// ingress-nginx's ranges, 300 to 308 for permanent-redirect-code, 300 to
// 307 for temporal-redirect-code (outside them it falls back to the
// default without a word).
var (
	permanentCodes = []int{301, 302, 303, 307, 308}
	temporalCodes  = []int{301, 302, 303, 307}
)

func parseRedirectCode(v string, codes []int) (int, error) {
	n, err := parseInt(v, 0, 999)
	if err != nil || !slices.Contains(codes, n) {
		text := make([]string, len(codes))
		for i, c := range codes {
			text[i] = fmt.Sprint(c)
		}
		return 0, fmt.Errorf("must be one of the redirect codes %s", strings.Join(text, ", "))
	}
	return n, nil
}

// redirectURLChars are what ingress-nginx lets a redirect URL hold:
// letters, digits and - . _ ~ / : , ? & =.
var redirectURLChars = regexp.MustCompile(`^[-._~a-zA-Z0-9/:,?&=]*$`)

// parseRedirectURL reads an absolute http(s) URL or a path of this host.
// A URL of other characters closes the Ingress: ingress-nginx's
// annotation validation (on by default) refuses it and does not load the
// Ingress, and serving the paths without their redirect would send the
// requests meant to leave to the backend ($1 group references are among
// those characters: nginx would fill them from the location's regex).
func parseRedirectURL(v string) (string, error) {
	v = strings.TrimSpace(v)
	if !redirectURLChars.MatchString(v) {
		return "", closingError{err: errors.New("must be a URL of letters, digits and - . _ ~ / : , ? & ="), why: "ingress-nginx would not load the Ingress"}
	}
	if v == "" {
		return "", nil
	}
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return "", errors.New("must be a URL")
	case u.Scheme == "" && strings.HasPrefix(v, "/"):
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return "", errors.New("must be an http or https URL, or a path starting with /")
	}
	return v, nil
}

// parseAppRoot reads a path: ingress-nginx refuses an absolute URL.
func parseAppRoot(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	if !rewriteTargetChars.MatchString(v) || strings.Contains(v, "$") || !strings.HasPrefix(v, "/") {
		return "", errors.New("must be a path that starts with / and holds letters, digits and the characters - . _ ~ : /")
	}
	return v, nil
}

// The regular expressions of the redirects, on the URL Traefik's
// redirectRegex matches (scheme://host[:port]/path?query).
const (
	// anyURL matches every URL, keeping the scheme and the host without
	// its port (as nginx writes the redirect to a path of its own host).
	anyURL = `^(https?)://(\[[^\]]*\]|[^/:]*)(?::[^/]*)?.*$`
	// rootURL matches the path "/" with any query, keeping the scheme,
	// host and port (app-root redirects to $scheme://$http_host).
	rootURL = `^(https?://[^/]+)/(\?.*)?$`
	// hostURL keeps the port and the path and query without one
	// trailing slash, as nginx's www redirect does.
	hostURL = `^(https?)://[^/:]+(:[0-9]+)?(.*?)/?$`
)

// redirects are the middlewares that answer with a redirect instead of
// sending the request on, in nginx's order: app-root (a test of its
// server), then the location's return (permanent-redirect,
// temporal-redirect).
func (pc *pathContext) redirects(names []string) ([]string, bool) {
	if root, from := pc.hostAppRoot(); root != "" {
		// nginx tests $uri = / (no query) and answers 302 to GET and the
		// others alike; Traefik answers 307 to the others. The name says
		// which Ingress of the host it comes from.
		name := pc.ingressName("app-root-" + translate.Normalize(from))
		pc.addMiddleware(name, dynamic.Middleware{"redirectRegex": map[string]any{
			"regex": rootURL, "replacement": "${1}" + root,
		}})
		names = append(names, name)
	}
	if to, permanent := pc.cfg.Paths.Redirect.target(); to != "" {
		replacement := to
		if strings.HasPrefix(to, "/") {
			// nginx makes a path absolute on the request's scheme and host.
			replacement = "${1}://${2}" + to
		}
		name := pc.ingressName("redirect")
		// The regex takes the whole URL; a request for the target itself
		// is sent on (Traefik does not redirect to the same URL).
		pc.addMiddleware(name, dynamic.Middleware{"redirectRegex": map[string]any{
			"regex": anyURL, "replacement": replacement, "permanent": permanent,
		}})
		names = append(names, name)
	}
	return names, true
}

// hostAppRoot is the app-root of the path's host: nginx tests it for the
// whole server, so the oldest Ingress of the host that has one decides,
// from the Ingress it comes from (namespace/name). A request for "/"
// reaches it only through a path that matches "/".
func (pc *pathContext) hostAppRoot() (root, from string) {
	for _, ing := range pc.hostIngresses(pc.host) {
		if cfg, _ := pc.annotationsOf(ing); cfg.Paths.AppRoot != "" {
			return cfg.Paths.AppRoot, ing.Namespace + "-" + ing.Name
		}
	}
	return "", ""
}

// wwwCounterpart is the other name of host for from-to-www-redirect:
// www.host, or host without its www.; "" for no host or a wildcard.
func wwwCounterpart(host string) string {
	switch {
	case host == "" || strings.HasPrefix(host, "*."):
		return ""
	case strings.HasPrefix(host, "www."):
		return strings.TrimPrefix(host, "www.")
	}
	return "www." + host
}

// wwwRouters adds the routers of the other name of the path's host when
// from-to-www-redirect is on for the host: every request for it is
// redirected to the host, on the same scheme, path and query (one
// trailing slash dropped, as nginx does). The oldest Ingress of the host
// that asks adds them, once; none when the other name is a host of a
// served Ingress (ingress-nginx skips it then). nginx answers 308 to
// every method; Traefik's permanent redirect answers 301 to GET. The port
// is the request's (nginx writes its own listening port).
func (pc *pathContext) wwwRouters(svc routedService) {
	if !pc.hostAsksFromToWWW() {
		return
	}
	from := wwwCounterpart(pc.host)
	if from == "" || len(pc.hostIngresses(from)) > 0 || !pc.ownsHost(from) {
		return
	}
	key := NamePrefix + translate.RouterKey(pc.ing.Namespace, pc.ing.Name, from, "") + "_www"
	for _, r := range pc.p.Routers {
		if r.Key == key {
			return
		}
	}
	if err := translate.CheckHost(from); err != nil {
		return
	}
	name := pc.ingressName("www-redirect-" + translate.Normalize(pc.host))
	pc.addMiddleware(name, dynamic.Middleware{"redirectRegex": map[string]any{
		"regex":       hostURL,
		"replacement": "${1}://" + pc.host + "${2}${3}", "permanent": true,
	}})
	r := route{key: key, host: from, rule: translate.HostRule(from),
		priority: pathPriority(from, netv1.HTTPIngressPath{Path: "/"}, false, true), to: svc,
		plainMws: []string{name}, tlsMws: []string{name}}
	pc.routerPair(r)
}

// hostAsksFromToWWW says whether this Ingress is the oldest of its host
// with from-to-www-redirect: the one that adds the redirect.
func (pc *pathContext) hostAsksFromToWWW() bool {
	if !pc.cfg.Paths.FromToWWW {
		return false
	}
	for _, ing := range pc.hostIngresses(pc.host) {
		if ing == pc.ing {
			return true
		}
		if cfg, _ := pc.annotationsOf(ing); cfg.Paths.FromToWWW {
			return false
		}
	}
	return true
}
