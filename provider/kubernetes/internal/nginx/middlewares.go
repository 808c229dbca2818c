package nginx

import "slices"

// middlewares are the names of the middlewares on both routers of the
// path, in the order nginx applies what they stand for: redirects answer
// first (nginx's rewrite phase), then CORS preflights, rate limits,
// source ranges and authentication (its preaccess and access phases),
// then what changes the request on its way to the backend. false: the
// path is closed (an access annotation that cannot be built here;
// the problem is filed).
func (pc *pathContext) middlewares() ([]string, bool) {
	return pc.stages(
		(*pathContext).redirects,          // paths.go family: permanent/temporal redirects, app-root, from-to-www
		(*pathContext).access,             // access family: CORS, limits, source ranges, authentication
		(*pathContext).rewrites,           // paths family: x-forwarded-prefix, rewrite-target
		(*pathContext).backendMiddlewares, // backend family: upstream-vhost, body size, custom errors
	)
}

// catchAllMiddlewares are those of the catch-all an Ingress without rules
// makes of its spec.defaultBackend: ingress-nginx applies its annotations
// to the default server's location but the redirects and rewrites.
func (pc *pathContext) catchAllMiddlewares() ([]string, bool) {
	return pc.stages((*pathContext).access, (*pathContext).backendMiddlewares)
}

// stages are the middlewares of each stage in turn; false when one
// cannot be built (its problem is filed). Each stage appends its names to
// the list it is given and returns it, so that a path's list is made
// once: every path of a full render makes one.
func (pc *pathContext) stages(stages ...func(*pathContext, []string) ([]string, bool)) ([]string, bool) {
	names := make([]string, 0, 8)
	for _, stage := range stages {
		var ok bool
		if names, ok = stage(pc, names); !ok {
			return nil, false
		}
	}
	return slices.Clip(names), true
}
