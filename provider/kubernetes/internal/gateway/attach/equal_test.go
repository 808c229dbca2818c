package attach

import (
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEqualReadsEveryField changes each field of a RouteAttachment and of a
// BackendCheck in turn, down to the fields of the elements of their slices,
// maps and pointers, and checks that Equal sees the change: a field added
// later that Equal does not compare fails here.
func TestEqualReadsEveryField(t *testing.T) {
	checkEveryField(t, func(a, b *RouteAttachment) bool { return a.Equal(b) })
	checkEveryField(t, func(a, b *BackendCheck) bool { return a.Equal(b) })
}

func checkEveryField[T any](t *testing.T, equal func(a, b *T) bool) {
	t.Helper()
	var base T
	leaves := filled(reflect.ValueOf(&base).Elem(), new(int), -1)
	if !equal(&base, &base) {
		t.Fatalf("%T: a value is not Equal to itself", base)
	}
	for target := range leaves {
		var changed T
		filled(reflect.ValueOf(&changed).Elem(), new(int), target)
		if equal(&base, &changed) {
			t.Errorf("%T: Equal does not see a change of leaf %d (%s)", base, target, leafPath(reflect.TypeOf(base), target))
		}
	}
}

// filled sets every leaf of v (every slice with one element, every map
// with one entry, every pointer to a value) to a value of its own, that of
// leaf target different from what it is otherwise; it returns how many
// leaves it set, counting from *n.
func filled(v reflect.Value, n *int, target int) int {
	if !v.CanSet() {
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	leaf := func(set func(differ bool)) {
		set(*n == target)
		*n++
	}
	switch {
	case v.Type() == reflect.TypeFor[metav1.Time]():
		leaf(func(differ bool) {
			at := time.Unix(1, 0)
			if differ {
				at = at.Add(time.Second)
			}
			v.Set(reflect.ValueOf(metav1.NewTime(at)))
		})
		return *n
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			filled(v.Field(i), n, target)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		filled(v.Index(0), n, target)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		filled(v.Elem(), n, target)
	case reflect.Map:
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		filled(key, n, target)
		filled(val, n, target)
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(key, val)
	case reflect.String:
		leaf(func(differ bool) { v.SetString(fmt.Sprint("v", differ)) })
	case reflect.Bool:
		leaf(func(differ bool) { v.SetBool(differ) })
	case reflect.Int, reflect.Int32, reflect.Int64:
		leaf(func(differ bool) { v.SetInt(map[bool]int64{false: 1, true: 2}[differ]) })
	default:
		panic(fmt.Sprintf("filled: a field of kind %s: teach this test and Equal about it", v.Kind()))
	}
	return *n
}

// leafPath names leaf target of a value of type t, for the message.
func leafPath(t reflect.Type, target int) string {
	n := 0
	var walk func(t reflect.Type, path string) string
	walk = func(t reflect.Type, path string) string {
		if t == reflect.TypeFor[metav1.Time]() {
			n++
			if n-1 == target {
				return path
			}
			return ""
		}
		switch t.Kind() {
		case reflect.Struct:
			for i := range t.NumField() {
				if p := walk(t.Field(i).Type, path+"."+t.Field(i).Name); p != "" {
					return p
				}
			}
		case reflect.Slice, reflect.Pointer:
			return walk(t.Elem(), path+"[0]")
		case reflect.Map:
			if p := walk(t.Key(), path+"{key}"); p != "" {
				return p
			}
			return walk(t.Elem(), path+"{value}")
		default:
			n++
			if n-1 == target {
				return path
			}
		}
		return ""
	}
	return walk(t, "")
}
