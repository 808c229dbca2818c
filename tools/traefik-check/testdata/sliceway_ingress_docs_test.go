package ingress

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSlicewayIngressMigratingGuide keeps the section "Coming from
// Traefik's Kubernetes Ingress provider" of sliceway's docs/migrating.md
// whole against this Traefik: every option of its Provider (by its json
// name) and every annotation its RouterIng and ServiceIng decode (as
// label paths, router.tls.certresolver) must be named there, as a row
// ("`router.tls`") or, for the fields of a section, in its row's notes
// ("`.name`" in the row of service.sticky.cookie).
func TestSlicewayIngressMigratingGuide(t *testing.T) {
	root := os.Getenv("SLICEWAY_ROOT")
	if root == "" {
		t.Fatal("SLICEWAY_ROOT is not set")
	}
	text, err := os.ReadFile(filepath.Join(root, "docs", "migrating.md"))
	if err != nil {
		t.Fatal(err)
	}
	const heading = "## Coming from Traefik's Kubernetes Ingress provider"
	_, section, ok := strings.Cut(string(text), heading)
	if !ok {
		t.Fatalf("docs/migrating.md has no section %q", heading)
	}
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Provider]()) {
		name := jsonName(f)
		if name == "" || !f.IsExported() {
			continue
		}
		if !strings.Contains(section, "| `"+name+"` |") {
			t.Errorf("docs/migrating.md: Traefik's option %s has no row", name)
		}
	}
	var paths []string
	labelPaths(reflect.TypeFor[RouterIng](), "router", &paths)
	labelPaths(reflect.TypeFor[ServiceIng](), "service", &paths)
	for _, p := range paths {
		if strings.Contains(section, "| `"+p+"` |") {
			continue
		}
		parent, field := p[:strings.LastIndex(p, ".")], p[strings.LastIndex(p, ".")+1:]
		if row := rowOf(section, parent); row == "" || !strings.Contains(row, "`."+field+"`") {
			t.Errorf("docs/migrating.md: Traefik's annotation %s has no row, nor is it in the notes of %s's", p, parent)
		}
	}
}

// jsonName is a field's json name, "" for one that is not an option.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// labelPaths adds the annotation paths of the fields of typ under prefix,
// lower case as the annotations are written, into the fields of nested
// structs; a slice or a map is one path.
func labelPaths(typ reflect.Type, prefix string, out *[]string) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	for _, f := range reflect.VisibleFields(typ) {
		name := jsonName(f)
		if name == "" || !f.IsExported() || f.Tag.Get("label") == "-" {
			continue
		}
		p := prefix + "." + strings.ToLower(name)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			if f.Tag.Get("label") == "allowEmpty" {
				*out = append(*out, p) // the section's own switch (router.tls: "true")
			}
			labelPaths(ft, p, out)
			continue
		}
		*out = append(*out, p)
	}
}

// rowOf is the table row of section whose first cell names path, "" when
// none does.
func rowOf(section, path string) string {
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| `"+path+"` |") {
			return line
		}
	}
	return ""
}
