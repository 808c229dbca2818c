package nginx

import "github.com/sliceway/sliceway/config/dynamic"

// sticky is the affinity cookie of the path, nil without affinity.
//
// As ingress-nginx writes it: named INGRESSCOOKIE unless
// session-cookie-name says otherwise, HttpOnly, its path the Ingress
// path unless session-cookie-path says otherwise. On a host whose paths
// are regular expressions, ingress-nginx would write the expression as
// the cookie's path (and warns that session-cookie-path should be set);
// here such a cookie's path is "/". session-cookie-max-age, else
// session-cookie-expires, is its Max-Age.
func (pc *pathContext) sticky() *dynamic.Sticky {
	c := &pc.cfg.Backend
	if !c.Affinity {
		return nil
	}
	path := c.Cookie.Path
	if path == "" {
		path = pc.path.Path
		if pc.facts.regex || path == "" {
			path = "/"
		}
	}
	maxAge := c.Cookie.MaxAge
	if maxAge == 0 {
		maxAge = c.Cookie.Expires
	}
	return &dynamic.Sticky{Cookie: &dynamic.Cookie{
		Name:     c.Cookie.Name,
		Secure:   c.Cookie.Secure,
		HTTPOnly: true,
		SameSite: c.Cookie.SameSite,
		MaxAge:   maxAge,
		Path:     &path,
		Domain:   c.Cookie.Domain,
	}}
}

// canarySticky is the cookie of a weighted split between the path's
// service and its canary's, nil unless the main Ingress has affinity:
// ingress-nginx's affinity-canary-behavior "sticky", its default, keeps
// a client on the side it was sent to, which Traefik's weighted service
// does with a cookie of its own (the affinity cookie's name with
// "_canary"; its other settings the same). "legacy" splits every
// request anew.
func (pc *pathContext) canarySticky() *dynamic.Sticky {
	s := pc.sticky()
	if s == nil || pc.cfg.Backend.CanaryLegacy {
		return nil
	}
	s.Cookie.Name += "_canary"
	return s
}
