package nginx

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sliceway/sliceway/config/dynamic"
)

// BackendConfig is what the backend annotations say: how the path's
// servers are reached (protocol, timeouts, TLS, the cluster IP), the
// affinity cookie, and what changes the request on its way (Host, body
// size, error pages). Every setting is the Ingress's, for all its paths.
type BackendConfig struct {
	Protocol string // HTTP (default), HTTPS, GRPC or GRPCS

	// Timeouts in seconds; 0: not given (ingress-nginx's defaults).
	ConnectTimeout, ReadTimeout, SendTimeout int

	SSLSecret     string // namespace/name or name of the backend TLS Secret
	SSLVerify     bool   // proxy-ssl-verify "on"
	SSLName       string // proxy-ssl-name
	SSLServerName bool   // proxy-ssl-server-name "on"

	ServiceUpstream bool
	UpstreamVHost   string

	Affinity bool // affinity: cookie
	Cookie   cookieConfig
	// CanaryLegacy is affinity-canary-behavior "legacy": a weighted
	// canary split is not sticky (canarySticky).
	CanaryLegacy bool

	BodySize    int64 // bytes; 0 with BodySizeSet: unlimited
	BodySizeSet bool

	DefaultBackend string // a Service of the Ingress's namespace
	CustomErrors   []int
	// CustomErrorsOwn: CustomErrors are the annotation's, not the
	// ConfigMap's.
	CustomErrorsOwn bool

	// The middlewares they make for every path alike, once the whole set
	// is read (computeMiddlewares), shared as allowList is: nil when not
	// asked for.
	bodySize, upstreamVHost *dynamic.Middleware
}

// computeMiddlewares sets the middlewares every path of the Ingress
// shares: proxy-body-size's and upstream-vhost's.
func (c *BackendConfig) computeMiddlewares() {
	// proxy-body-size: Traefik's buffering middleware answers 413 to a
	// larger body, as nginx does. It also reads the whole request, and
	// the whole response, before passing them on (on disk past 1MiB),
	// where nginx streams them. 0 is no limit: no middleware. Without the
	// annotation there is no limit (ingress-nginx's ConfigMap default is
	// 1m).
	if c.BodySizeSet && c.BodySize > 0 {
		c.bodySize = &dynamic.Middleware{"buffering": map[string]any{"maxRequestBodyBytes": c.BodySize}}
	}
	// upstream-vhost: Traefik's headers middleware sets the request's Host
	// itself when customRequestHeaders names Host, and the load balancer
	// (passHostHeader) sends that Host to the servers.
	if c.UpstreamVHost != "" {
		c.upstreamVHost = &dynamic.Middleware{"headers": map[string]any{"customRequestHeaders": map[string]any{"Host": c.UpstreamVHost}}}
	}
}

// cookieConfig is what the session-cookie annotations say.
type cookieConfig struct {
	Name     string
	Path     string // "": the path of the Ingress rule
	Domain   string
	SameSite string // "none", "lax" or "strict", as Traefik writes them
	Secure   bool
	MaxAge   int // seconds; 0: a cookie of the browser's lifetime
	Expires  int // seconds, when no max-age is given
}

// Ingress-nginx's defaults.
const (
	defaultCookieName     = "INGRESSCOOKIE"
	defaultConnectTimeout = 5  // proxy-connect-timeout
	defaultReadTimeout    = 60 // proxy-read-timeout
	// upstreamKeepaliveTimeout is ingress-nginx's upstream-keepalive-timeout:
	// how long an idle connection to a server is kept.
	upstreamKeepaliveTimeout = 60
)

func (c *BackendConfig) setDefaults() {
	c.Protocol = "HTTP"
	c.Cookie.Name = defaultCookieName
}

var backendAnnotations = []annotation{
	{name: "backend-protocol", parse: parseProtocol},
	{name: "proxy-connect-timeout", parse: func(v string, c *Config) (err error) { c.Backend.ConnectTimeout, err = parseSeconds(v); return }},
	{name: "proxy-read-timeout", parse: func(v string, c *Config) (err error) { c.Backend.ReadTimeout, err = parseSeconds(v); return }},
	// Traefik has no timeout between two writes to a server (nginx's
	// proxy_send_timeout): the value is checked and has no effect.
	{name: "proxy-send-timeout", parse: func(v string, c *Config) (err error) { c.Backend.SendTimeout, err = parseSeconds(v); return }},
	// The backend TLS annotations fail closed: a verification that was
	// asked for is never dropped, and ingress-nginx denies the location
	// when the Secret cannot be read.
	{name: "proxy-ssl-secret", access: true, parse: func(v string, c *Config) error {
		if c.Backend.SSLSecret = strings.TrimSpace(v); c.Backend.SSLSecret == "" {
			return errors.New("must name a Secret (namespace/name)")
		}
		return nil
	}},
	{name: "proxy-ssl-verify", access: true, parse: func(v string, c *Config) (err error) { c.Backend.SSLVerify, err = parseOnOff(v); return }},
	{name: "proxy-ssl-name", parse: func(v string, c *Config) error {
		if !serverNameRE.MatchString(v) {
			return errors.New("must be a DNS name")
		}
		c.Backend.SSLName = v
		return nil
	}},
	{name: "proxy-ssl-server-name", parse: func(v string, c *Config) (err error) { c.Backend.SSLServerName, err = parseOnOff(v); return }},
	{name: "service-upstream", parse: func(v string, c *Config) (err error) { c.Backend.ServiceUpstream, err = parseBool(v); return }},
	{name: "upstream-vhost", parse: parseUpstreamVHost},
	{name: "affinity", parse: func(v string, c *Config) error {
		if !strings.EqualFold(strings.TrimSpace(v), "cookie") {
			return errors.New("must be cookie, the only affinity type ingress-nginx has")
		}
		c.Backend.Affinity = true
		return nil
	}},
	{name: "affinity-canary-behavior", parse: func(v string, c *Config) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "sticky":
			c.Backend.CanaryLegacy = false
			return nil
		case "legacy":
			c.Backend.CanaryLegacy = true
			return nil
		}
		return errors.New("must be sticky or legacy")
	}},
	// Traefik keeps a client on its server for as long as the server is
	// there: new servers take new clients only, which is ingress-nginx's
	// "persistent"; "balanced", which moves some clients to new servers
	// when the Service scales up, behaves as "persistent".
	{name: "affinity-mode", parse: func(v string, c *Config) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "balanced", "persistent":
			return nil
		}
		return errors.New("must be balanced or persistent")
	}},
	{name: "session-cookie-name", parse: func(v string, c *Config) error {
		if !cookieNameRE.MatchString(v) {
			return errors.New("must be a cookie name (letters, digits, - and _)")
		}
		c.Backend.Cookie.Name = v
		return nil
	}},
	{name: "session-cookie-path", parse: func(v string, c *Config) error {
		if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, "; \t\r\n") {
			return errors.New("must be a URL path starting with /")
		}
		c.Backend.Cookie.Path = v
		return nil
	}},
	{name: "session-cookie-domain", parse: func(v string, c *Config) error {
		if !serverNameRE.MatchString(strings.TrimPrefix(v, ".")) {
			return errors.New("must be a DNS name")
		}
		c.Backend.Cookie.Domain = v
		return nil
	}},
	{name: "session-cookie-samesite", parse: func(v string, c *Config) error {
		switch s := strings.ToLower(strings.TrimSpace(v)); s {
		case "none", "lax", "strict":
			c.Backend.Cookie.SameSite = s
			return nil
		}
		return errors.New("must be None, Lax or Strict")
	}},
	// Traefik writes SameSite whatever the browser: the SameSite=None
	// cookie is not left out for the browsers that mishandle it.
	{name: "session-cookie-conditional-samesite-none", parse: func(v string, c *Config) error {
		on, err := parseBool(v)
		if err == nil && on {
			err = errors.New("not supported: Traefik cannot leave SameSite=None out for some browsers (the cookie keeps SameSite=None)")
		}
		return err
	}},
	// Not given, ingress-nginx marks the cookie Secure on HTTPS requests;
	// Traefik's cookie is the same for both routers of a path, so it is
	// Secure only when this says true.
	{name: "session-cookie-secure", parse: func(v string, c *Config) (err error) { c.Backend.Cookie.Secure, err = parseBool(v); return }},
	{name: "session-cookie-max-age", parse: func(v string, c *Config) (err error) { c.Backend.Cookie.MaxAge, err = parseCookieSeconds(v); return }},
	// Traefik's cookie has no Expires attribute: the expiry is written as
	// Max-Age, which browsers read the same way.
	{name: "session-cookie-expires", parse: func(v string, c *Config) (err error) { c.Backend.Cookie.Expires, err = parseCookieSeconds(v); return }},
	// Traefik moves a client whose server is gone to another server and
	// gives it a new cookie, whatever this says; a failed request is not
	// retried on another server (nginx's proxy_next_upstream).
	{name: "session-cookie-change-on-failure", parse: func(v string, c *Config) (err error) { _, err = parseBool(v); return }},
	{name: "proxy-body-size", parse: func(v string, c *Config) (err error) {
		c.Backend.BodySize, err = parseSize(v)
		c.Backend.BodySizeSet = err == nil
		return err
	}},
	{name: "default-backend", parse: func(v string, c *Config) error {
		if !serviceNameRE.MatchString(v) {
			return errors.New("must be the name of a Service in the Ingress's namespace")
		}
		c.Backend.DefaultBackend = v
		return nil
	}},
	{name: "custom-http-errors", parse: parseCustomErrors},
}

var (
	serverNameRE  = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)
	cookieNameRE  = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	serviceNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	sizeRE        = regexp.MustCompile(`^([0-9]{1,15})([kKmMgG]?)$`)
	// vhostRE is a host, optionally with a port: what a Host header holds.
	vhostRE = regexp.MustCompile(`^([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$`)
)

// parseProtocol reads backend-protocol, whose values ingress-nginx takes
// in any case.
func parseProtocol(v string, c *Config) error {
	switch p := strings.ToUpper(strings.TrimSpace(v)); p {
	case "HTTP", "HTTPS", "GRPC", "GRPCS":
		c.Backend.Protocol = p
		return nil
	case "AUTO_HTTP":
		// The scheme of the client's request: both routers of a path send
		// to one service here.
		return errors.New("AUTO_HTTP is not supported: the path's servers are reached with HTTP")
	case "FCGI":
		return errors.New("FCGI is not supported: Traefik has no FastCGI client")
	case "AJP":
		return errors.New("AJP is not supported: Traefik has no AJP client")
	}
	return errors.New("must be HTTP, HTTPS, GRPC or GRPCS")
}

// parseSeconds reads a timeout: a whole number of seconds, as
// ingress-nginx's proxy timeouts are written.
func parseSeconds(v string) (int, error) {
	n, err := parseInt(v, 1, 31536000)
	if err != nil {
		return 0, fmt.Errorf("must be a whole number of seconds from 1 to 31536000")
	}
	return n, nil
}

// parseCookieSeconds reads a cookie lifetime in seconds; 0 is a cookie of
// the browser's lifetime.
func parseCookieSeconds(v string) (int, error) {
	n, err := parseInt(v, 0, 1<<31-1)
	if err != nil {
		return 0, fmt.Errorf("must be a whole number of seconds")
	}
	return n, nil
}

// parseOnOff reads nginx's "on" and "off".
func parseOnOff(v string) (bool, error) {
	switch strings.TrimSpace(v) {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, errors.New("must be on or off")
}

// parseSize reads an nginx size: bytes, or kilobytes (k), megabytes (m)
// or gigabytes (g), powers of 1024.
func parseSize(v string) (int64, error) {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return 0, errors.New("must be a size such as 8m, 512k, 1g or 0 (no limit)")
	}
	var n int64
	for _, d := range m[1] {
		n = n*10 + int64(d-'0')
	}
	shift := map[string]uint{"": 0, "k": 10, "m": 20, "g": 30}[strings.ToLower(m[2])]
	if n > (1<<62)>>shift {
		return 0, errors.New("is too large")
	}
	return n << shift, nil
}

// parseUpstreamVHost reads upstream-vhost: the Host header sent to the
// servers. nginx expands variables in it ($host, $service_name...);
// Traefik's headers middleware sets a plain value, so a value with a
// variable is refused.
func parseUpstreamVHost(v string, c *Config) error {
	v = strings.TrimSpace(v)
	if strings.Contains(v, "$") {
		return errors.New("nginx variables are not supported: it must be a plain host")
	}
	if !vhostRE.MatchString(v) {
		return errors.New("must be a host, optionally with a port")
	}
	c.Backend.UpstreamVHost = v
	return nil
}

// parseCustomErrors reads the custom-http-errors annotation, which
// replaces the ConfigMap's list.
func parseCustomErrors(v string, c *Config) error {
	codes, err := parseStatusCodes(v)
	if err == nil {
		c.Backend.CustomErrors, c.Backend.CustomErrorsOwn = codes, true
	}
	return err
}

// parseStatusCodes reads a custom-http-errors list: status codes nginx
// can give an error page to (300 to 599), comma-separated.
func parseStatusCodes(v string) ([]int, error) {
	items := parseList(v)
	if len(items) == 0 {
		return nil, errors.New("must list status codes, such as 404,503")
	}
	codes := make([]int, 0, len(items))
	for _, item := range items {
		n, err := parseInt(item, 300, 599)
		if err != nil {
			return nil, fmt.Errorf("status code %q must be a whole number from 300 to 599", item)
		}
		if !containsInt(codes, n) {
			codes = append(codes, n)
		}
	}
	return codes, nil
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}
