package main

import (
	"reflect"
	"strings"

	"github.com/sliceway/sliceway/config/static"
)

// paerser matches an option's name to the configuration's fields by
// their Go names, in any case, through embedded structs; flags,
// variables and file keys alike. It reports a misspelt flag as "flag
// needs an argument" and lets a provider's switch take any value, any
// but true turning it off. Before paerser reads a source, the loader
// resolves what the source gives against the same fields, to name the
// option in its errors (see input.go).

var configurationType = reflect.TypeFor[static.Configuration]()

// option is an option of the configuration.
type option struct {
	name  string              // as the docs write it: lowerCamel names joined with dots
	field reflect.StructField // its field
}

// isSwitch says whether the option is a provider's section, which true
// turns on (paerser's allowEmpty).
func (o option) isSwitch() bool {
	return o.field.Type.Kind() == reflect.Pointer && o.field.Tag.Get("label") == "allowEmpty"
}

// isBool says whether the option is a boolean.
func (o option) isBool() bool { return o.field.Type.Kind() == reflect.Bool }

// takesNoValue says whether paerser reads the flag alone as true, rather
// than taking the next argument as its value: booleans and sections.
func (o option) takesNoValue() bool {
	k := o.field.Type.Kind()
	return k == reflect.Bool || k == reflect.Pointer
}

// lookupOption resolves the elements of a name, in any case, as paerser
// does.
func lookupOption(elements []string) (option, bool) {
	if len(elements) == 0 {
		return option{}, false
	}
	t := configurationType
	var names []string
	var field reflect.StructField
	for _, e := range elements {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Map && t.Key().Kind() == reflect.String {
			// A key of a map of options (the Gateway provider's
			// entryPoints): any name, its value an option or a section.
			names = append(names, e)
			t = t.Elem()
			field = reflect.StructField{Name: e, Type: t}
			continue
		}
		if t.Kind() != reflect.Struct {
			return option{}, false
		}
		f, ok := findField(t, e)
		if !ok {
			return option{}, false
		}
		names = append(names, docName(f))
		field, t = f, f.Type
	}
	return option{name: strings.Join(names, "."), field: field}, true
}

// findField is the exported field of t named name in any case, looked
// for in the embedded structs too.
func findField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if inner, ok := findField(f.Type, name); ok {
				return inner, true
			}
			continue
		}
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// docName is a field's name as the docs write it: its JSON name, or
// its Go name in lowerCamel when it has none (configFile).
func docName(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
		return name
	}
	return strings.ToLower(f.Name[:1]) + f.Name[1:]
}

// knownFlags are the names of every flag, as the help writes them (lower
// case): the options and the providers' switches.
var knownFlags = func() []string {
	var names []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type, prefix)
				continue
			}
			name := prefix + strings.ToLower(f.Name)
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() != reflect.Struct {
				names = append(names, name)
				continue
			}
			if (option{field: f}).isSwitch() {
				names = append(names, name)
			}
			walk(ft, name+".")
		}
	}
	walk(configurationType, "")
	return names
}()
