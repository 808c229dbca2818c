package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sliceway/sliceway/config/dynamic"
)

// Traefik's file provider reads the file of watch --output as a Go
// template: a "{{" of the configuration must come out of it as it went in,
// and must not run.
func TestWatchOutputIsReadAsATemplate(t *testing.T) {
	conf := serveTestConfiguration("PathPrefix(\"/{{env `HOME`}}\") || Path(\"/{{ .Oops\")")
	file := filepath.Join(t.TempDir(), "sliceway.yaml")
	require.NoError(t, emit(&encoders{}, conf, file, 0o600, nil))
	written, err := os.ReadFile(file)
	require.NoError(t, err)
	want, err := dynamic.MarshalYAML(conf)
	require.NoError(t, err)

	ran := false
	tmpl, err := template.New("file").Funcs(template.FuncMap{"env": func(string) string { ran = true; return "SECRET" }}).Parse(string(written))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, tmpl.Execute(&out, false))
	assert.Equal(t, string(want), out.String())
	assert.False(t, ran, "env never runs")
}
