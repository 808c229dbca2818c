package nginx

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// migrationGuide is the operators' guide whose annotation table must say
// what this package does.
const migrationGuide = "../../../../docs/migrating-from-ingress-nginx.md"

// guideRow is what the guide's table says of one annotation.
type guideRow struct {
	status string // supported, differs, ignored or refused
	access bool   // ", access": the Ingress is not served when it cannot be honoured
}

// guideRowRE is a row of the annotation table: the name, then the status.
var guideRowRE = regexp.MustCompile("^\\| `([a-z0-9-]+)` \\| (supported|differs|ignored|refused)(, access)? \\|")

// readGuideTable reads the rows of the guide's "## Annotations" section,
// in their order.
func readGuideTable(t *testing.T) (map[string]guideRow, []string) {
	t.Helper()
	data, err := os.ReadFile(migrationGuide)
	require.NoError(t, err)
	_, section, found := strings.Cut(string(data), "\n## Annotations\n")
	require.True(t, found, "%s has no \"## Annotations\" section", migrationGuide)
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]guideRow{}
	var order []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		m := guideRowRE.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: a row of the annotation table is not \"| `name` | status[, access] | ...\": %s", migrationGuide, line)
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("%s: %s has two rows", migrationGuide, m[1])
		}
		rows[m[1]] = guideRow{status: m[2], access: m[3] != ""}
		order = append(order, m[1])
	}
	return rows, order
}

// closesIngress is what ParseAnnotations does with an annotation this
// package has no parser for (a refusal, or one it does not know): whether
// the Ingress is closed (its paths answer 403).
func closesIngress(t *testing.T, name string) bool {
	t.Helper()
	_, problems := ParseAnnotations(map[string]string{AnnotationPrefix + name: "true"})
	require.Len(t, problems, 1, name)
	return problems[0].Closed
}

func TestMigrationGuideAnnotationTable(t *testing.T) {
	rows, order := readGuideTable(t)

	for name, a := range known {
		row, ok := rows[name]
		if !ok {
			t.Errorf("%s: the code reads %s, which the annotation table does not list", migrationGuide, name)
			continue
		}
		if row.access != a.access {
			t.Errorf("%s: %s: the table says access=%v, the code's table access=%v", migrationGuide, name, row.access, a.access)
		}
	}
	for name := range refused {
		if _, ok := rows[name]; !ok {
			t.Errorf("%s: the code refuses %s, which the annotation table does not list", migrationGuide, name)
		}
	}
	// The others are refused: by name, or as annotations the code does
	// not know.
	for name, row := range rows {
		if _, ok := known[name]; ok {
			continue
		}
		if row.status != "refused" {
			why := "the code does not read it"
			if r, ok := refused[name]; ok {
				why = "the code refuses it by name (" + r.why + ")"
			}
			t.Errorf("%s: the table calls %s %s, but %s", migrationGuide, name, row.status, why)
		}
		if closed := closesIngress(t, name); row.access != closed {
			t.Errorf("%s: %s: the table says access=%v, but the code leaves the Ingress unserved=%v", migrationGuide, name, row.access, closed)
		}
	}
	for _, name := range upstreamAnnotations {
		if _, ok := rows[name]; !ok {
			t.Errorf("%s: ingress-nginx documents %s, which the annotation table does not list", migrationGuide, name)
		}
	}
	if !slices.IsSorted(order) {
		t.Errorf("%s: the annotation table is not in alphabetical order, so readers cannot find a name", migrationGuide)
	}
}
