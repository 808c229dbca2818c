package nginx

import (
	"errors"
	"net/netip"
	"strings"
)

// controllerKeys are the ConfigMap keys this dialect knows, by name:
// those it applies (appliedKeys), those that close every Ingress when
// set (closingKeys), and those that have no effect here (ignoredKeys,
// controllerkeysignored.go).
var controllerKeys = func() map[string]controllerKey {
	m := map[string]controllerKey{}
	for _, family := range [][]controllerKey{appliedKeys, closingKeys, ignoredKeys()} {
		for _, k := range family {
			if _, dup := m[k.name]; dup {
				panic("nginx: ConfigMap key " + k.name + " is listed twice")
			}
			m[k.name] = k
		}
	}
	return m
}()

// appliedKeys are the keys whose values become what ingress-nginx makes
// of them. A value that cannot be read keeps ingress-nginx's default,
// except for the access keys, whose bad values close every Ingress: an
// allow list or an authentication with a typo is never dropped.
var appliedKeys = []controllerKey{
	{name: "ssl-redirect", parse: func(v string, c *Controller) error { return keep(&c.SSLRedirect, v, parseBool) }},
	{name: "force-ssl-redirect", parse: func(v string, c *Controller) error { return keep(&c.ForceSSLRedirect, v, parseBool) }},
	{name: "proxy-connect-timeout", parse: func(v string, c *Controller) error { return keep(&c.ConnectTimeout, v, parseSeconds) }},
	{name: "proxy-read-timeout", parse: func(v string, c *Controller) error { return keep(&c.ReadTimeout, v, parseSeconds) }},
	{name: "proxy-send-timeout", parse: func(v string, c *Controller) error { return keep(&c.SendTimeout, v, parseSeconds) }},
	{name: "custom-http-errors", parse: func(v string, c *Controller) error {
		codes, err := parseStatusCodes(v)
		if err == nil {
			c.CustomErrors = codes
		}
		return err
	}},
	{name: "proxy-body-size", parse: func(v string, c *Controller) error {
		n, err := parseSize(v)
		if err == nil {
			c.BodySize, c.BodySizeSet = n, true
		}
		return err
	}},
	{name: "whitelist-source-range", access: true, parse: func(v string, c *Controller) (err error) {
		c.Allow, err = parseOptionalRanges(v)
		return
	}},
	{name: "denylist-source-range", access: true, parse: func(v string, c *Controller) (err error) {
		c.Deny, err = parseOptionalRanges(v)
		return
	}},
	{name: "block-cidrs", access: true, parse: func(v string, c *Controller) (err error) {
		c.Block, err = parseOptionalRanges(v)
		return
	}},
	{name: "global-auth-url", access: true, parse: func(v string, c *Controller) (err error) {
		if strings.TrimSpace(v) == "" {
			return nil
		}
		c.Auth.url, err = parseAuthURL(v, nil, "")
		return
	}},
	{name: "global-auth-method", access: true, parse: func(v string, c *Controller) error {
		if m := strings.TrimSpace(v); m != "" && m != "GET" {
			return errors.New("not supported: Traefik asks the auth service with GET (or the request's own method), only GET can be honoured")
		}
		return nil
	}},
	{name: "global-auth-response-headers", access: true, parse: func(v string, c *Controller) error {
		headers, err := parseHeaderNames(v)
		c.Auth.responseHeaders = headers
		return err
	}},
	{name: "global-auth-signin", parse: func(v string, c *Controller) (err error) {
		if strings.TrimSpace(v) == "" {
			return nil
		}
		c.Auth.signin, err = parseAuthURL(v, nil, "")
		return
	}},
	{name: "global-auth-request-redirect", parse: func(v string, c *Controller) (err error) {
		c.Auth.requestRedirect, err = parseRequestRedirect(v)
		return
	}},
	{name: "no-auth-locations", parse: func(v string, c *Controller) error {
		c.NoAuthLocations = parseList(v)
		return nil
	}},
	{name: "hsts", parse: func(v string, c *Controller) error { return keep(&c.HSTS.enabled, v, parseBool) }},
	{name: "hsts-include-subdomains", parse: func(v string, c *Controller) error { return keep(&c.HSTS.includeSubdomains, v, parseBool) }},
	{name: "hsts-preload", parse: func(v string, c *Controller) error { return keep(&c.HSTS.preload, v, parseBool) }},
	{name: "hsts-max-age", parse: func(v string, c *Controller) error {
		return keep(&c.HSTS.maxAge, v, func(v string) (int, error) {
			n, err := parseInt(v, 0, 1<<31-1)
			if err != nil {
				return 0, errors.New("must be a whole number of seconds")
			}
			return n, nil
		})
	}},
	{name: "strict-validate-path-type", parse: func(v string, c *Controller) error {
		strict, err := parseBool(v)
		if err == nil {
			loose := !strict
			c.LoosePathTypes = &loose
		}
		return err
	}},
}

// parseOptionalRanges reads a ConfigMap's list of source ranges, which
// may be empty (none).
func parseOptionalRanges(v string) ([]netip.Prefix, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	return parseSourceRanges(v)
}

// closingKeys are keys that cannot be honoured and may keep clients out:
// set (to anything but their off value), they close every Ingress.
var closingKeys = []controllerKey{
	{name: "global-auth-snippet", access: true, parse: refuseNonEmpty("it is raw nginx configuration of the global authentication")},
	{name: "block-user-agents", access: true, parse: refuseNonEmpty("Traefik has no middleware that refuses requests by User-Agent")},
	{name: "block-referers", access: true, parse: refuseNonEmpty("Traefik has no middleware that refuses requests by Referer")},
	{name: "enable-modsecurity", access: true, parse: refuseTrue("Traefik has no ModSecurity web application firewall among its public middlewares")},
	{name: "enable-owasp-modsecurity-crs", access: true, parse: refuseTrue("Traefik has no ModSecurity web application firewall among its public middlewares")},
	{name: "modsecurity-snippet", access: true, parse: refuseNonEmpty("Traefik has no ModSecurity web application firewall among its public middlewares")},
	{name: "main-snippet", snippet: true, parse: refuseNonEmpty("it is raw nginx configuration")},
	{name: "http-snippet", snippet: true, parse: refuseNonEmpty("it is raw nginx configuration")},
	{name: "server-snippet", snippet: true, parse: refuseNonEmpty("it is raw nginx configuration")},
	{name: "location-snippet", snippet: true, parse: refuseNonEmpty("it is raw nginx configuration")},
	{name: "stream-snippet", snippet: true, parse: refuseNonEmpty("it is raw nginx configuration")},
}

// refuseNonEmpty refuses any value but an empty one.
func refuseNonEmpty(why string) func(string, *Controller) error {
	return func(v string, _ *Controller) error {
		if strings.TrimSpace(v) == "" {
			return nil
		}
		return errors.New("not supported: " + why)
	}
}

// refuseTrue refuses "true", and anything that is not "false".
func refuseTrue(why string) func(string, *Controller) error {
	return func(v string, _ *Controller) error {
		if on, err := parseBool(v); err == nil && !on {
			return nil
		}
		return errors.New("not supported: " + why)
	}
}
