package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSamplesOfRules(t *testing.T) {
	var out bytes.Buffer
	in := `["Host(\"a.example\") && PathPrefix(\"/x\")", "Host(\"*.w.example\") && Header(\"Foo\", \"on\")", "Host(\"unclosed"]`
	require.NoError(t, writeSamples(strings.NewReader(in), &out))
	var got []ruleSamples
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.Len(t, got, 3)
	assert.True(t, got[0].Parses)
	assert.Contains(t, got[0].Hosts, "a.example")
	assert.Contains(t, got[0].Paths, "/x/x")
	assert.Contains(t, got[1].Hosts, "one.w.example")
	assert.Contains(t, got[1].Headers, headers{"Foo": "on"})
	assert.False(t, got[2].Parses)
}
