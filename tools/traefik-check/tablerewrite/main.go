// Command tablerewrite rewrites a table test of one of Traefik's own
// Kubernetes providers, in a copy of Traefik's module, into a test of
// sliceway: tools/traefik-check/run writes its output beside the
// original, with the hook files of tools/traefik-check/testdata. Two
// tables are known (-table):
//
//   - nginx: TestLoadIngresses of pkg/provider/kubernetes/ingress-nginx
//     (nginx.go);
//
//   - ingress: the TestLoadConfigurationFromIngresses* tests of
//     pkg/provider/kubernetes/ingress (ingress.go).
//
//     go run ./tools/traefik-check/tablerewrite -table nginx -in kubernetes_test.go -out zz_sliceway_nginx_table_gen_test.go
//
// The rewrite is mechanical, on the syntax tree, so that each Traefik
// release's tables are used as they are: every case, its fixtures and its
// options stay, and hooks are spliced in at anchors found by name. When an
// anchor is missing or not unique (a new Traefik version changed the
// tests), it fails and says which, rather than writing a test that checks
// nothing.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// rewrites are the tables this command knows, by -table.
var rewrites = map[string]func(name string, src []byte) ([]byte, error){
	"nginx":   rewriteNGINX,
	"ingress": rewriteIngress,
}

func main() {
	table := flag.String("table", "", "the table test: nginx or ingress")
	in := flag.String("in", "", "Traefik's kubernetes_test.go")
	out := flag.String("out", "", "the rewritten test file to write")
	flag.Parse()
	rewrite := rewrites[*table]
	if rewrite == nil || *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "tablerewrite: -table (nginx or ingress), -in and -out are required")
		os.Exit(2)
	}
	src, err := os.ReadFile(*in)
	if err == nil {
		var text []byte
		if text, err = rewrite(*in, src); err == nil {
			err = os.WriteFile(*out, text, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tablerewrite: %v\n", err)
		os.Exit(1)
	}
}

// edit replaces the bytes [from, to) of the source with text.
type edit struct {
	from, to int
	text     string
}

// applyEdits is the text of fn, a declaration of the file src, with the
// edits made (their offsets are the file's).
func applyEdits(fset *token.FileSet, src []byte, fn ast.Node, edits []edit) string {
	offset := func(p token.Pos) int { return fset.Position(p).Offset }
	// From the end, so that each one's offsets still hold.
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	base := offset(fn.Pos())
	text := string(src[base:offset(fn.End())])
	for _, e := range edits {
		text = text[:e.from-base] + e.text + text[e.to-base:]
	}
	return text
}

// writeFile is the generated file: doc, the package clause of file, the
// imports of src that code still uses, and code. The syntax tree only
// finds where the anchors are: the output is the original text of the
// tests and of the imports they use, with the hooks spliced in, so that
// it reads as Traefik's does.
func writeFile(fset *token.FileSet, name string, src []byte, file *ast.File, doc, code string) ([]byte, error) {
	edited, err := parser.ParseFile(fset, name, "package p\n"+code, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("%s: the rewritten tests do not parse: %w", name, err)
	}
	used := packagesUsed(edited)
	offset := func(p token.Pos) int { return fset.Position(p).Offset }
	var out bytes.Buffer
	out.WriteString(doc)
	fmt.Fprintf(&out, "package %s\n\nimport (\n", file.Name.Name)
	for _, s := range file.Imports {
		if used[importName(s)] {
			out.Write(src[offset(s.Pos()):offset(s.End())])
			out.WriteByte('\n')
		}
	}
	out.WriteString(")\n\n")
	out.WriteString(code)
	out.WriteByte('\n')
	return format.Source(out.Bytes())
}

func exprText(fset *token.FileSet, e ast.Expr) string {
	var b bytes.Buffer
	if err := format.Node(&b, fset, e); err != nil {
		return ""
	}
	return b.String()
}

// packagesUsed are the names before a dot in the code (pkg.Name), which
// is all an import is used for.
func packagesUsed(n ast.Node) map[string]bool {
	used := map[string]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// importName is the name an import is known by in the file: its alias,
// else its package name, guessed as Go tooling does from the path's last
// element (without a major version suffix or a gopkg.in ".vN"). A wrong
// guess keeps an import the file does not use, which the compiler then
// names.
func importName(s *ast.ImportSpec) string {
	if s.Name != nil {
		return s.Name.Name
	}
	p, err := strconv.Unquote(s.Path.Value)
	if err != nil {
		return ""
	}
	base := path.Base(p)
	if majorVersion.MatchString(base) {
		base = path.Base(path.Dir(p))
	}
	if i := strings.Index(base, ".v"); i > 0 {
		base = base[:i]
	}
	return strings.ReplaceAll(base, "-", "")
}
