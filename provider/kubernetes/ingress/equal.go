package ingress

import (
	"maps"
	"reflect"
	"slices"

	"github.com/sliceway/sliceway/config/dynamic"
)

// sameConfiguration says whether two configurations are equal, field for
// field (reflect.DeepEqual), quickly where they share pointers (load
// balancers and routers kept from the previous render) and for routers,
// which a full render builds anew. It decides whether a render "changed"
// anything: a field it missed would hold back a configuration the proxy
// needs (TestSameConfigurationCoversEverySchemaField guards it).
func sameConfiguration(a, b *dynamic.Configuration) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.HTTP == nil || b.HTTP == nil {
		return reflect.DeepEqual(a, b)
	}
	if len(a.HTTP.Routers) != len(b.HTTP.Routers) || len(a.HTTP.Services) != len(b.HTTP.Services) ||
		(a.HTTP.Routers == nil) != (b.HTTP.Routers == nil) || (a.HTTP.Services == nil) != (b.HTTP.Services == nil) {
		return false
	}
	for name, ra := range a.HTTP.Routers {
		if rb, ok := b.HTTP.Routers[name]; !ok || !sameRouter(ra, rb) {
			return false
		}
	}
	for name, sa := range a.HTTP.Services {
		if sb, ok := b.HTTP.Services[name]; !ok || (sa != sb && !reflect.DeepEqual(sa, sb)) {
			return false
		}
	}
	if !sameMiddlewares(a.HTTP.Middlewares, b.HTTP.Middlewares) || !sameEntries(a.HTTP.ServersTransports, b.HTTP.ServersTransports) {
		return false
	}
	// Everything else, by reflection: whatever the schema adds is compared.
	ha, hb := *a.HTTP, *b.HTTP
	ha.Routers, ha.Services, hb.Routers, hb.Services = nil, nil, nil, nil
	ha.Middlewares, ha.ServersTransports, hb.Middlewares, hb.ServersTransports = nil, nil, nil, nil
	ca, cb := *a, *b
	ca.HTTP, cb.HTTP = &ha, &hb
	return reflect.DeepEqual(ca, cb)
}

// sameRouter says whether two routers are equal, field for field: the
// fields a router of this provider sets compared directly, the rest by
// reflection, so that a field added to the schema is compared too.
func sameRouter(a, b *dynamic.Router) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Rule != b.Rule || a.Service != b.Service || a.Priority != b.Priority ||
		!sameStrings(a.EntryPoints, b.EntryPoints) || !sameStrings(a.Middlewares, b.Middlewares) {
		return false
	}
	if !sameObservability(a.Observability, b.Observability) {
		return false
	}
	ra, rb := *a, *b
	ra.Rule, ra.Service, ra.Priority, ra.EntryPoints, ra.Middlewares, ra.Observability = "", "", 0, nil, nil, nil
	rb.Rule, rb.Service, rb.Priority, rb.EntryPoints, rb.Middlewares, rb.Observability = "", "", 0, nil, nil, nil
	return reflect.DeepEqual(ra, rb)
}

// sameObservability is reflect.DeepEqual of two routers' observability,
// quick for the Ingress metadata every router of this provider has.
func sameObservability(a, b *dynamic.RouterObservabilityConfig) bool {
	if a == nil || b == nil || a.Metadata == nil || b.Metadata == nil || a.Metadata.Ingress == nil || b.Metadata.Ingress == nil {
		return reflect.DeepEqual(a, b)
	}
	ca, cb := *a, *b
	ma, mb := *a.Metadata, *b.Metadata
	if *ma.Ingress != *mb.Ingress {
		return false
	}
	ma.Ingress, mb.Ingress = nil, nil
	ca.Metadata, cb.Metadata = &ma, &mb
	return reflect.DeepEqual(ca, cb)
}

// sameStrings is reflect.DeepEqual of two string slices: nil and empty differ.
func sameStrings(a, b []string) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// sameEntries says whether two maps hold equal values under the same
// names, the same pointer being equal at once. A nil map and an empty one
// differ, as the configuration writes them differently.
func sameEntries[T any](a, b map[string]*T) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for name, va := range a {
		if vb, ok := b[name]; !ok || (va != vb && !reflect.DeepEqual(va, vb)) {
			return false
		}
	}
	return true
}

// sameMiddlewares is sameEntries of middlewares, which are untyped trees
// (maps, lists and scalars, as the dialects write them): compared
// without reflection where the tree holds what they write, since a full
// render of ingress-nginx Ingresses builds every middleware anew.
func sameMiddlewares(a, b map[string]*dynamic.Middleware) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for name, va := range a {
		vb, ok := b[name]
		if !ok || (va != vb && (va == nil || vb == nil || !sameTree(map[string]any(*va), map[string]any(*vb)))) {
			return false
		}
	}
	return true
}

// sameTree is reflect.DeepEqual of a and b for the values a middleware
// holds, by their types; any other value is compared by reflection.
func sameTree(a, b any) bool {
	switch va := a.(type) {
	case map[string]any:
		vb, ok := b.(map[string]any)
		if !ok || len(va) != len(vb) || (va == nil) != (vb == nil) {
			return false
		}
		for k, x := range va {
			y, ok := vb[k]
			if !ok || !sameTree(x, y) {
				return false
			}
		}
		return true
	case []any:
		vb, ok := b.([]any)
		return ok && (va == nil) == (vb == nil) && slices.EqualFunc(va, vb, sameTree)
	case []string:
		vb, ok := b.([]string)
		return ok && (va == nil) == (vb == nil) && slices.Equal(va, vb)
	case map[string]string:
		vb, ok := b.(map[string]string)
		return ok && (va == nil) == (vb == nil) && maps.Equal(va, vb)
	case string:
		vb, ok := b.(string)
		return ok && va == vb
	case bool:
		vb, ok := b.(bool)
		return ok && va == vb
	case int:
		vb, ok := b.(int)
		return ok && va == vb
	}
	return reflect.DeepEqual(a, b)
}
