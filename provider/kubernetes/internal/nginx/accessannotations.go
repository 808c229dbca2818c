package nginx

import (
	"slices"

	"github.com/sliceway/sliceway/provider/kubernetes/internal/translate"
)

// AccessConfig is what the access annotations say: who may reach the
// backend (source ranges, authentication, client certificates), how often
// (rate limits), and which other origins' pages may read the answers
// (CORS).
type AccessConfig struct {
	Ranges     sourceRangeConfig
	Basic      basicAuthConfig
	Forward    forwardAuthConfig
	Limits     rateLimitConfig
	CORS       corsConfig
	ClientCert clientCertConfig
}

func (c *AccessConfig) setDefaults() {
	c.Limits.burstMultiplier = defaultBurstMultiplier
	c.CORS.setDefaults()
	c.ClientCert.setDefaults()
}

// accessAnnotations are the annotations of the access family; each file
// of the family holds its own.
var accessAnnotations = slices.Concat(sourceRangeAnnotations, basicAuthAnnotations, forwardAuthAnnotations,
	rateLimitAnnotations, corsAnnotations, clientCertAnnotations)

// access are the middlewares that decide who reaches the backend, in
// nginx's order: CORS (its preflight answers come in the rewrite phase),
// rate limits (preaccess), source ranges, then authentication (access).
// false: an access annotation cannot be honoured, the path is closed
// (the problem is filed).
func (pc *pathContext) access(names []string) ([]string, bool) {
	names = pc.cors(names)
	names = pc.rateLimits(names)
	names = pc.sourceRanges(names)
	for _, stage := range [...]func(*pathContext, []string) ([]string, bool){(*pathContext).basicAuth, (*pathContext).forwardAuth, (*pathContext).clientCert} {
		var ok bool
		if names, ok = stage(pc, names); !ok {
			return nil, false
		}
	}
	return names, true
}

// annotationProblem files a problem of an annotation of the Ingress,
// once however many paths find it.
func (pc *pathContext) annotationProblem(name string, severity translate.Severity, err error) {
	field := "metadata.annotations[" + AnnotationPrefix + name + "]"
	for _, e := range pc.p.Errs {
		if e.Field == field && e.Err.Error() == err.Error() {
			return
		}
	}
	pc.p.Problem(field, severity, err)
}
