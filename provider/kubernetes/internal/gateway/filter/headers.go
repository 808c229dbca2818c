package filter

import (
	"net/textproto"
	"strings"

	"golang.org/x/net/http/httpguts"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/sliceway/sliceway/config/dynamic"
	"github.com/sliceway/sliceway/internal/excerpt"
)

// headerEdits is a header filter read and checked: names in canonical
// form (header names are case-insensitive, and Traefik and Go's proxy
// treat X-Forwarded-For specially only under that spelling), each name
// in one action at most, in the filter's order.
type headerEdits struct {
	set, add []gwapiv1.HTTPHeader
	remove   []string
}

func (h headerEdits) empty() bool { return len(h.set) == 0 && len(h.add) == 0 && len(h.remove) == 0 }

// readHeaderFilter checks f: a name is a valid token and is in one
// action only (Gateway API makes a filter with two actions for one name
// invalid), a value is non-empty and one Go's transport would send.
func readHeaderFilter(p *field.Path, f *gwapiv1.HTTPHeaderFilter) (headerEdits, Errors) {
	var h headerEdits
	var errs Errors
	seen := map[string]bool{}
	name := func(p *field.Path, n string) (string, bool) {
		if !httpguts.ValidHeaderFieldName(n) {
			errs = append(errs, unsupported(p, "%s is not a header name", excerpt.Quote(n)))
			return "", false
		}
		c := textproto.CanonicalMIMEHeaderKey(n)
		if seen[c] {
			errs = append(errs, unsupported(p, "header %s is already in this filter: one action per header name", c))
			return "", false
		}
		seen[c] = true
		return c, true
	}
	header := func(p *field.Path, hd gwapiv1.HTTPHeader) (gwapiv1.HTTPHeader, bool) {
		c, ok := name(p.Child("name"), string(hd.Name))
		// Traefik's headers middleware takes an empty value for "remove".
		if hd.Value == "" || !httpguts.ValidHeaderFieldValue(hd.Value) || strings.TrimSpace(hd.Value) != hd.Value {
			errs = append(errs, unsupported(p.Child("value"), "%s is not a header value (printable, no leading or trailing space)", excerpt.Quote(hd.Value)))
			return hd, false
		}
		return gwapiv1.HTTPHeader{Name: gwapiv1.HTTPHeaderName(c), Value: hd.Value}, ok
	}
	for i, hd := range f.Set {
		if v, ok := header(p.Child("set").Index(i), hd); ok {
			h.set = append(h.set, v)
		}
	}
	for i, hd := range f.Add {
		if v, ok := header(p.Child("add").Index(i), hd); ok {
			h.add = append(h.add, v)
		}
	}
	for i, n := range f.Remove {
		if c, ok := name(p.Child("remove").Index(i), n); ok {
			h.remove = append(h.remove, c)
		}
	}
	return h, errs
}

// headerModifier is a RequestHeaderModifier (request true) or
// ResponseHeaderModifier filter as a middleware; nil for a filter that
// changes nothing, as Traefik's file and HTTP providers refuse a whole
// configuration holding an empty middleware.
//
// Portable: Traefik's headers middleware, customRequestHeaders or
// customResponseHeaders, sets a header to a value and removes it for an
// empty value; both are exact ("Host" sets the request's host). It
// cannot append, so "add" is refused.
//
// Plugin: Traefik's requestHeaderModifier or responseHeaderModifier,
// which set, append (http.Header.Add, what the conformance tests expect:
// "existing,added") and remove.
func headerModifier(t Target, request bool, p *field.Path, f *gwapiv1.HTTPHeaderFilter) (dynamic.Middleware, Errors) {
	h, errs := readHeaderFilter(p, f)
	if t == Portable && len(h.add) > 0 {
		errs = append(errs, unsupported(p.Child("add"),
			"appending to a header needs Traefik's Gateway API header modifier, which only the provider plugin delivers "+
				"(Traefik's file and HTTP providers drop it); the headers middleware the other deliveries carry can only set or remove"))
	}
	if len(errs) > 0 || h.empty() {
		return nil, errs
	}
	if t == Plugin {
		kind := "responseHeaderModifier"
		if request {
			kind = "requestHeaderModifier"
		}
		return dynamic.Middleware{kind: gatewayHeaderModifier(h)}, nil
	}
	values := make(map[string]string, len(h.set)+len(h.remove))
	for _, hd := range h.set {
		values[string(hd.Name)] = hd.Value
	}
	for _, n := range h.remove {
		values[n] = "" // Traefik's "remove"
	}
	key := "customResponseHeaders"
	if request {
		key = "customRequestHeaders"
	}
	return dynamic.Middleware{"headers": map[string]any{key: values}}, nil
}

// gatewayHeaderModifier is Traefik's HeaderModifier: set and add as
// maps, remove as a list.
func gatewayHeaderModifier(h headerEdits) map[string]any {
	m := map[string]any{}
	if len(h.set) > 0 {
		m["set"] = headerMap(h.set)
	}
	if len(h.add) > 0 {
		m["add"] = headerMap(h.add)
	}
	if len(h.remove) > 0 {
		m["remove"] = h.remove
	}
	return m
}

func headerMap(hs []gwapiv1.HTTPHeader) map[string]string {
	m := make(map[string]string, len(hs))
	for _, hd := range hs {
		m[string(hd.Name)] = hd.Value
	}
	return m
}
