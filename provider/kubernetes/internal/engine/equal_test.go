package engine

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
)

// filled returns a value of type t with every field set, recursively:
// pointers allocated, one element in each slice and map, strings "s",
// numbers 1, booleans true. Two calls give equal values sharing nothing.
func filled(t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Pointer:
		v.Set(filled(t.Elem()).Addr())
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(filled(t.Field(i).Type))
			}
		}
	case reflect.Slice:
		v.Set(reflect.Append(reflect.MakeSlice(t, 0, 1), filled(t.Elem())))
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(filled(t.Key()), filled(t.Elem()))
	case reflect.Interface:
		v.Set(reflect.ValueOf("s"))
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	default:
		panic("filled: add a case for " + t.String())
	}
	return v
}

// leaves calls change with a function that alters the leaf at each place
// of v (a string, number or boolean, reached through pointers, structs,
// slices and maps), one at a time, and restores it after.
func leaves(v reflect.Value, path string, change func(path string, alter func())) {
	switch v.Kind() {
	case reflect.Pointer:
		leaves(v.Elem(), path, change)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				leaves(v.Field(i), path+"."+v.Type().Field(i).Name, change)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			leaves(v.Index(i), path+"[]", change)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			// A map's values are not addressable: alter a copy and put it back.
			elem := reflect.New(v.Type().Elem()).Elem()
			elem.Set(v.MapIndex(k))
			if elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Map || elem.Kind() == reflect.Slice {
				leaves(elem, path+"{}", change)
				continue
			}
			change(path+"{}", func() { v.SetMapIndex(k, reflect.ValueOf("other")) })
			v.SetMapIndex(k, elem)
		}
	case reflect.String:
		old := v.String()
		change(path, func() { v.SetString(old + "x") })
		v.SetString(old)
	case reflect.Bool:
		change(path, func() { v.SetBool(!v.Bool()) })
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		change(path, func() { v.SetInt(v.Int() + 1) })
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		change(path, func() { v.SetUint(v.Uint() + 1) })
		v.SetUint(1)
	default:
		panic("leaves: add a case for " + v.Type().String())
	}
}

// TestSameConfigurationCoversEverySchemaField: sameConfiguration, which
// decides whether a render changed anything, tells apart two
// configurations that differ in any one field of the schema, and finds
// two equal ones equal. A field added to config/dynamic is covered
// without a change here; one the comparison skips fails here.
func TestSameConfigurationCoversEverySchemaField(t *testing.T) {
	typ := reflect.TypeFor[dynamic.Configuration]()
	a, b := filled(typ).Addr().Interface().(*dynamic.Configuration), filled(typ).Addr().Interface().(*dynamic.Configuration)
	require.True(t, sameConfiguration(a, b), "equal configurations")
	n := 0
	leaves(reflect.ValueOf(b), "Configuration", func(path string, alter func()) {
		n++
		alter()
		require.False(t, sameConfiguration(a, b), "a change of %s is not seen", path)
		require.False(t, sameConfiguration(b, a), "a change of %s is not seen", path)
		require.False(t, reflect.DeepEqual(a, b), "the test altered nothing at %s", path)
	})
	require.True(t, sameConfiguration(a, b), "every leaf put back")
	require.GreaterOrEqual(t, n, 38, "leaves of the schema (38 when this was written)")
}

// TestSameRouterCoversEveryField is the same for sameRouter, which a
// patch uses to keep an unchanged router's pointer.
func TestSameRouterCoversEveryField(t *testing.T) {
	typ := reflect.TypeFor[dynamic.Router]()
	a, b := filled(typ).Addr().Interface().(*dynamic.Router), filled(typ).Addr().Interface().(*dynamic.Router)
	require.True(t, sameRouter(a, b))
	leaves(reflect.ValueOf(b), "Router", func(path string, alter func()) {
		alter()
		require.False(t, sameRouter(a, b), "a change of %s is not seen", path)
	})
	require.True(t, sameRouter(a, b))
}

// sameTree agrees with reflect.DeepEqual on the values middlewares hold,
// nil against empty included, for every pair of a set that differ in one
// place each.
func TestSameTreeIsDeepEqual(t *testing.T) {
	values := []any{
		nil, "", "a", true, false, 0, 1, int64(1), 1.5,
		[]string(nil), []string{}, []string{"a"}, []string{"a", "b"},
		[]any(nil), []any{}, []any{"a"}, []any{"a", 1}, []any{[]string{"a"}},
		map[string]string(nil), map[string]string{}, map[string]string{"k": "v"}, map[string]string{"k": "w"},
		map[string]any(nil), map[string]any{}, map[string]any{"k": "v"}, map[string]any{"k": []string{"v"}},
		map[string]any{"k": map[string]any{"x": true}}, map[string]any{"k": map[string]any{"x": false}},
		map[string]any{"k": map[string]any{"x": true}, "l": 1}, []int{1},
	}
	for _, a := range values {
		for _, b := range values {
			require.Equal(t, reflect.DeepEqual(a, b), sameTree(a, b), "%#v and %#v", a, b)
		}
	}
}
