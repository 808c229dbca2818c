package filter

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
)

// rewritePart is one middleware of a URLRewrite filter and the suffix
// that tells its name from the filter's other one.
type rewritePart struct {
	suffix     string
	middleware dynamic.Middleware
}

// urlRewrite is a URLRewrite filter as middlewares, host first; none for
// a filter that changes nothing.
//
// Portable: the host is Traefik's headers middleware setting "Host"
// (which sets the request's host, sent upstream as the services pass the
// host header); a full path is replacePath; a prefix is replacePathRegex
// on the escaped path. Both path middlewares also tell the backend the
// path they replaced, in X-Replaced-Path, and replacePathRegex answers
// 400 to a path that cleaning would change (such as one with "//").
//
// Plugin: Traefik's URLRewrite, one middleware.
func urlRewrite(t Target, p *field.Path, f *gwapiv1.HTTPURLRewriteFilter, matches []gwapiv1.HTTPRouteMatch) ([]rewritePart, Errors) {
	var errs Errors
	if err := checkHostname(p.Child("hostname"), f.Hostname); err != nil {
		errs = append(errs, err)
	}
	var change *pathChange
	if f.Path != nil {
		c, err := readPathModifier(p.Child("path"), f.Path, matches)
		if err != nil {
			errs = append(errs, err)
		}
		change = &c
	}
	if len(errs) > 0 || (f.Hostname == nil && change == nil) {
		return nil, errs
	}
	if t == Plugin {
		m := map[string]any{}
		if f.Hostname != nil {
			m["hostname"] = string(*f.Hostname)
		}
		addGatewayPath(m, change)
		// Traefik's JSON name for the field, capitals included.
		return []rewritePart{{middleware: dynamic.Middleware{"URLRewrite": m}}}, nil
	}
	var parts []rewritePart
	if f.Hostname != nil {
		parts = append(parts, rewritePart{"host", dynamic.Middleware{"headers": map[string]any{
			"customRequestHeaders": map[string]string{"Host": string(*f.Hostname)},
		}}})
	}
	switch {
	case change == nil:
	case change.prefixed != nil:
		re, rep := change.prefixed.pattern(`.`)
		parts = append(parts, rewritePart{"path", dynamic.Middleware{"replacePathRegex": map[string]any{
			"regex": "^" + re + "$", "replacement": rep,
		}}})
	default:
		parts = append(parts, rewritePart{"path", dynamic.Middleware{"replacePath": map[string]any{"path": change.full}}})
	}
	return parts, nil
}
