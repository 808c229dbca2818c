package nginx

import "github.com/sliceway/sliceway/config/dynamic"

// withHSTS puts the ConfigMap's Strict-Transport-Security header (on by
// default, as in ingress-nginx, for the hosts with TLS) before mws, the
// middlewares of a router of the path: it is on every answer over TLS,
// redirects and refusals included, and replaces one the backend sends,
// as nginx's more_set_headers does. Traefik's headers middleware adds
// it to answers over TLS only, so the plain router carries it too: an
// entry point that ends TLS for every router (entryPoints.<name>.http.tls)
// serves https requests through a TLS copy of the plain router as well
// as through the TLS one. A max-age of 0 sends no header (Traefik's
// stsSeconds 0 is no header), where nginx sends max-age=0.
func (pc *pathContext) withHSTS(mws []string) []string {
	h := pc.opts.controller().HSTS
	if !h.enabled || h.maxAge == 0 || !pc.facts.tls {
		return mws
	}
	name := controllerName("hsts")
	pc.addMiddleware(name, dynamic.Middleware{"headers": map[string]any{
		"stsSeconds": h.maxAge, "stsIncludeSubdomains": h.includeSubdomains, "stsPreload": h.preload}})
	return append([]string{name}, mws...)
}
