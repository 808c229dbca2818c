package filter

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/internal/excerpt"
)

// HTTPRuleFilters translates the filters of an HTTPRoute rule: the
// middlewares of the rule's routers and the rule's mirrors. rule is the
// rule's field path (spec.rules[i]); prefix starts every middleware's
// name and must be unique to the rule and listener, as the router's
// name is (a middleware's content depends on both).
func HTTPRuleFilters(env Env, rule *field.Path, prefix string, r *gwapiv1.HTTPRouteRule) (Result, error) {
	w := walk{
		env:     env,
		path:    rule.Child("filters"),
		prefix:  prefix,
		matches: r.Matches,
		allowed: httpFilterTypes,
	}
	var errs Errors
	if len(r.BackendRefs) > 0 {
		for i, f := range r.Filters {
			if f.Type == gwapiv1.HTTPRouteFilterRequestRedirect {
				// Gateway API's validation of HTTPRoute refuses it.
				errs = append(errs, incompatible(w.path.Index(i), "a rule with a RequestRedirect filter has no backendRefs"))
			}
		}
	}
	res, werrs := w.run(r.Filters)
	if errs = append(errs, werrs...); len(errs) > 0 {
		return Result{}, errs
	}
	return res, nil
}

// HTTPBackendFilters translates the filters of the rule's backendRef
// number backend: the middlewares of the service its weighted entry
// names, and its mirrors. prefix must be unique to the rule and
// backendRef: they run after the router's middlewares whatever the
// listener, so a RequestRedirect, whose defaults are the listener's and
// which answers rather than forwards, is taken among the rule's filters
// only.
func HTTPBackendFilters(env Env, rule *field.Path, prefix string, r *gwapiv1.HTTPRouteRule, backend int) (Result, error) {
	if backend < 0 || backend >= len(r.BackendRefs) {
		return Result{}, fmt.Errorf("%s: no backendRef %d", rule.Child("backendRefs"), backend)
	}
	w := walk{
		env:     env,
		path:    rule.Child("backendRefs").Index(backend).Child("filters"),
		prefix:  prefix,
		matches: r.Matches,
		allowed: httpBackendFilterTypes,
	}
	res, errs := w.run(r.BackendRefs[backend].Filters)
	return res, errs.asError()
}

// GRPCRuleFilters translates the filters of a GRPCRoute rule, as
// HTTPRuleFilters does: GRPCRoute filters are a subset of HTTPRoute's
// (header modifiers, mirrors, ExtensionRef) with the same meaning.
func GRPCRuleFilters(env Env, rule *field.Path, prefix string, r *gwapiv1.GRPCRouteRule) (Result, error) {
	w := walk{env: env, path: rule.Child("filters"), prefix: prefix, allowed: grpcFilterTypes}
	res, errs := w.run(grpcAsHTTP(r.Filters))
	return res, errs.asError()
}

// GRPCBackendFilters translates the filters of the GRPCRoute rule's
// backendRef number backend, as HTTPBackendFilters does.
func GRPCBackendFilters(env Env, rule *field.Path, prefix string, r *gwapiv1.GRPCRouteRule, backend int) (Result, error) {
	if backend < 0 || backend >= len(r.BackendRefs) {
		return Result{}, fmt.Errorf("%s: no backendRef %d", rule.Child("backendRefs"), backend)
	}
	path := rule.Child("backendRefs").Index(backend).Child("filters")
	w := walk{env: env, path: path, prefix: prefix, allowed: grpcFilterTypes}
	res, errs := w.run(grpcAsHTTP(r.BackendRefs[backend].Filters))
	return res, errs.asError()
}

// The filter types of each route, and whether one may be repeated in a
// list (Gateway API allows only mirrors and extension references twice).
var (
	httpFilterTypes = map[gwapiv1.HTTPRouteFilterType]bool{
		gwapiv1.HTTPRouteFilterRequestHeaderModifier:  false,
		gwapiv1.HTTPRouteFilterResponseHeaderModifier: false,
		gwapiv1.HTTPRouteFilterRequestRedirect:        false,
		gwapiv1.HTTPRouteFilterURLRewrite:             false,
		gwapiv1.HTTPRouteFilterCORS:                   false,
		gwapiv1.HTTPRouteFilterRequestMirror:          true,
		gwapiv1.HTTPRouteFilterExtensionRef:           true,
		gwapiv1.HTTPRouteFilterExternalAuth:           false,
	}
	httpBackendFilterTypes = map[gwapiv1.HTTPRouteFilterType]bool{
		gwapiv1.HTTPRouteFilterRequestHeaderModifier:  false,
		gwapiv1.HTTPRouteFilterResponseHeaderModifier: false,
		gwapiv1.HTTPRouteFilterURLRewrite:             false,
		gwapiv1.HTTPRouteFilterCORS:                   false,
		gwapiv1.HTTPRouteFilterRequestMirror:          true,
		gwapiv1.HTTPRouteFilterExtensionRef:           true,
		gwapiv1.HTTPRouteFilterExternalAuth:           false,
	}
	grpcFilterTypes = map[gwapiv1.HTTPRouteFilterType]bool{
		gwapiv1.HTTPRouteFilterRequestHeaderModifier:  false,
		gwapiv1.HTTPRouteFilterResponseHeaderModifier: false,
		gwapiv1.HTTPRouteFilterRequestMirror:          true,
		gwapiv1.HTTPRouteFilterExtensionRef:           true,
	}
)

// grpcAsHTTP gives GRPCRoute filters the shape of HTTPRoute's: their
// types and fields have the same names and meaning.
func grpcAsHTTP(filters []gwapiv1.GRPCRouteFilter) []gwapiv1.HTTPRouteFilter {
	out := make([]gwapiv1.HTTPRouteFilter, len(filters))
	for i, f := range filters {
		out[i] = gwapiv1.HTTPRouteFilter{
			Type:                   gwapiv1.HTTPRouteFilterType(f.Type),
			RequestHeaderModifier:  f.RequestHeaderModifier,
			ResponseHeaderModifier: f.ResponseHeaderModifier,
			RequestMirror:          f.RequestMirror,
			ExtensionRef:           f.ExtensionRef,
		}
	}
	return out
}

// walk translates one list of filters.
type walk struct {
	env     Env
	path    *field.Path // the list's
	prefix  string
	matches []gwapiv1.HTTPRouteMatch // the rule's, for ReplacePrefixMatch
	allowed map[gwapiv1.HTTPRouteFilterType]bool
}

// run translates filters in order, each into zero or more middlewares
// or a mirror. Nothing is returned but the problems when there is one:
// a rule is never served with a filter left out.
func (w walk) run(filters []gwapiv1.HTTPRouteFilter) (Result, Errors) {
	var res Result
	var errs Errors
	seen := map[gwapiv1.HTTPRouteFilterType]bool{}
	for i, f := range filters {
		p := w.path.Index(i)
		repeatable, known := w.allowed[f.Type]
		if !known {
			errs = append(errs, unsupported(p.Child("type"), "%s is not a filter type this list takes", excerpt.Quote(string(f.Type))))
			continue
		}
		if seen[f.Type] && !repeatable {
			errs = append(errs, incompatible(p.Child("type"), "a second %s filter in the list", f.Type))
			continue
		}
		seen[f.Type] = true
		name := fmt.Sprintf("%s-%s-%d", w.prefix, strings.ToLower(string(f.Type)), i)
		mws, mirror, ferrs := w.filter(p, f)
		if len(ferrs) > 0 {
			errs = append(errs, ferrs...)
			continue
		}
		for _, m := range mws {
			n := name
			if m.suffix != "" {
				n += "-" + m.suffix
			}
			res.Middlewares = append(res.Middlewares, NamedMiddleware{Name: n, Middleware: m.middleware})
		}
		if mirror != nil {
			res.Mirrors = append(res.Mirrors, *mirror)
		}
	}
	if seen[gwapiv1.HTTPRouteFilterRequestRedirect] && seen[gwapiv1.HTTPRouteFilterURLRewrite] {
		errs = append(errs, incompatible(w.path, "RequestRedirect and URLRewrite cannot be in one list: a redirect answers, a rewrite forwards"))
	}
	if len(errs) > 0 {
		return Result{}, errs
	}
	return res, nil
}

// filter translates one filter; p is its field path.
func (w walk) filter(p *field.Path, f gwapiv1.HTTPRouteFilter) ([]rewritePart, *Mirror, Errors) {
	one := func(m map[string]any, errs Errors) ([]rewritePart, *Mirror, Errors) {
		if len(errs) > 0 || m == nil {
			return nil, nil, errs
		}
		return []rewritePart{{middleware: m}}, nil, nil
	}
	missing := func(child string) ([]rewritePart, *Mirror, Errors) {
		return nil, nil, Errors{unsupported(p.Child(child), "required when type is %s", f.Type)}
	}
	switch f.Type {
	case gwapiv1.HTTPRouteFilterRequestHeaderModifier:
		if f.RequestHeaderModifier == nil {
			return missing("requestHeaderModifier")
		}
		return one(headerModifier(w.env.Target, true, p.Child("requestHeaderModifier"), f.RequestHeaderModifier))
	case gwapiv1.HTTPRouteFilterResponseHeaderModifier:
		if f.ResponseHeaderModifier == nil {
			return missing("responseHeaderModifier")
		}
		return one(headerModifier(w.env.Target, false, p.Child("responseHeaderModifier"), f.ResponseHeaderModifier))
	case gwapiv1.HTTPRouteFilterRequestRedirect:
		if f.RequestRedirect == nil {
			return missing("requestRedirect")
		}
		return one(requestRedirect(w.env, p.Child("requestRedirect"), f.RequestRedirect, w.matches))
	case gwapiv1.HTTPRouteFilterURLRewrite:
		if f.URLRewrite == nil {
			return missing("urlRewrite")
		}
		parts, errs := urlRewrite(w.env.Target, p.Child("urlRewrite"), f.URLRewrite, w.matches)
		return parts, nil, errs
	case gwapiv1.HTTPRouteFilterCORS:
		if f.CORS == nil {
			return missing("cors")
		}
		return one(cors(p.Child("cors"), f.CORS))
	case gwapiv1.HTTPRouteFilterRequestMirror:
		if f.RequestMirror == nil {
			return missing("requestMirror")
		}
		m, err := readMirror(p.Child("requestMirror"), f.RequestMirror)
		if err != nil {
			return nil, nil, Errors{err}
		}
		return nil, &m, nil
	case gwapiv1.HTTPRouteFilterExtensionRef:
		if f.ExtensionRef == nil {
			return missing("extensionRef")
		}
		ref := f.ExtensionRef
		return nil, nil, Errors{invalidKind(p.Child("extensionRef"),
			"sliceway knows no extension filter (group %s, kind %s, name %s): the requests it would process answer 500",
			excerpt.Quote(string(ref.Group)), excerpt.Quote(string(ref.Kind)), excerpt.Quote(string(ref.Name)))}
	default: // ExternalAuth
		return nil, nil, Errors{unsupported(p.Child("type"), "sliceway does not support the %s filter", f.Type)}
	}
}
