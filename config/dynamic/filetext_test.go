package dynamic

import (
	"bytes"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// executeTemplate is what Traefik's file provider does to a file before
// decoding it.
func executeTemplate(t *testing.T, text []byte) string {
	t.Helper()
	tmpl, err := template.New("file").Funcs(template.FuncMap{"env": func(string) string { return "SECRET" }}).Parse(string(text))
	require.NoError(t, err, "%q", text)
	var out bytes.Buffer
	require.NoError(t, tmpl.Execute(&out, false))
	return out.String()
}

func TestFileProviderTextGivesTheTextBack(t *testing.T) {
	for _, text := range []string{
		"", "http: {}\n", "{", "{}", "}}", "{{", "{{{", "{{{{", "{{{{{", "a{{b}}c", "{{/* c */}}", "{{- x -}}",
		"rule: Host(\"a.example\") && PathPrefix(\"/{{env `HOME`}}\")\n",
		`rule: PathPrefix("/{{env \"HOME\"}}")`, "{{ .Oops", "}}{{}}{{",
	} {
		got := FileProviderText([]byte(text))
		assert.Equal(t, text, executeTemplate(t, got), "%q written as %q", text, got)
		if !strings.Contains(text, "{{") {
			assert.Equal(t, text, string(got), "left as it is")
		}
	}
}

func FuzzFileProviderText(f *testing.F) {
	for _, s := range []string{"{{", "a{{{b}}}c", "{{env `X`}}", "}{{{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		assert.Equal(t, text, executeTemplate(t, FileProviderText([]byte(text))))
	})
}
