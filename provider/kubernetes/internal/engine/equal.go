package engine

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

// sameRouter is reflect.DeepEqual of two routers.
func sameRouter(a, b *dynamic.Router) bool {
	if a == b {
		return true
	}
	// Field by field, without reflection on the structs (which would copy
	// them to the heap for every router of a warm render);
	// TestSameConfigurationCoversEverySchemaField fails when the schema
	// gains a field this does not compare.
	return a != nil && b != nil && a.Rule == b.Rule && a.Service == b.Service && a.Priority == b.Priority &&
		a.RuleSyntax == b.RuleSyntax && sameStrings(a.EntryPoints, b.EntryPoints) && sameStrings(a.Middlewares, b.Middlewares) &&
		sameObservability(a.Observability, b.Observability) && (a.TLS == b.TLS || reflect.DeepEqual(a.TLS, b.TLS))
}

// sameObservability is reflect.DeepEqual of two routers' observability.
func sameObservability(a, b *dynamic.RouterObservabilityConfig) bool {
	if a == b {
		return true
	}
	return a != nil && b != nil && sameBool(a.AccessLogs, b.AccessLogs) && sameBool(a.Metrics, b.Metrics) &&
		sameBool(a.Tracing, b.Tracing) && a.TraceVerbosity == b.TraceVerbosity && sameMetadata(a.Metadata, b.Metadata)
}

// sameMetadata is reflect.DeepEqual of two routers' observability metadata.
func sameMetadata(a, b *dynamic.ObservabilityMetadata) bool {
	if a == b {
		return true
	}
	return a != nil && b != nil && (a.Ingress == b.Ingress || (a.Ingress != nil && b.Ingress != nil && *a.Ingress == *b.Ingress))
}

// sameBool is reflect.DeepEqual of two optional booleans.
func sameBool(a, b *bool) bool { return a == b || (a != nil && b != nil && *a == *b) }

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

// sameMap says whether a and b are the same map (not only equal ones).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
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
		if sameMap(va, vb) {
			// One value shared (the nginx dialect shares what a set of
			// annotations makes, from one render to the next).
			return true
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
