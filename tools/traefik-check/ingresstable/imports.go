package main

import (
	"go/ast"
	"path"
	"regexp"
	"strconv"
	"strings"
)

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// importName is the name an import is known by in the file: its alias,
// else its package name, guessed as Go tooling does from the path's last
// element (without a major version suffix or a gopkg.in ".vN"), as
// nginxtable guesses it. A wrong guess keeps an import the file does not
// use, which the compiler then names.
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
