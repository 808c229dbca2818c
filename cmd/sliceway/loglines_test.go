package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// kindOfKey is the object kind each log key of an object's problem names.
var kindOfKey = map[string]string{
	"ingress": "Ingress", "service": "Service", "secret": "Secret",
	"endpointslice": "EndpointSlice", "ingressclass": "IngressClass", "node": "Node",
}

// jsonLogFields decodes one JSON log line, failing the test if a key is
// written twice (a map alone would keep the last and hide it).
func jsonLogFields(t *testing.T, line string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	tok, err := dec.Token()
	require.NoError(t, err, line)
	require.Equal(t, json.Delim('{'), tok, line)
	fields := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err, line)
		key, ok := tok.(string)
		require.True(t, ok, line)
		require.NotContains(t, fields, key, "the key %q twice in %s", key, line)
		var v any
		require.NoError(t, dec.Decode(&v), line)
		fields[key] = v
	}
	return fields
}

// loggedProblems reads the JSON logs of a command (--log.format=json) and
// writes each problem back as its error reads ("file: document 2: what",
// "Ingress shop/web: field: what"), checking on the way that no line gives
// a key twice and that no message starts with the file, document, object
// or field its keys give (it may name another place, as "defined again
// (first in a.yaml: document 1)" does). Lines that are not JSON are kept as they are.
func loggedProblems(t *testing.T, stderr string) string {
	t.Helper()
	var b bytes.Buffer
	for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if !strings.HasPrefix(line, "{") {
			b.WriteString(line + "\n")
			continue
		}
		f := jsonLogFields(t, line)
		msg, _ := f["message"].(string)
		text := msg
		if file, ok := f["file"].(string); ok {
			require.False(t, strings.HasPrefix(msg, file), "the message repeats the file: %s", line)
			where := file
			if doc, ok := f["document"].(float64); ok {
				where += fmt.Sprintf(": document %d", int(doc))
				require.False(t, strings.HasPrefix(msg, fmt.Sprintf("document %d:", int(doc))), "the message repeats the document: %s", line)
			}
			text = where + ": " + msg
		}
		for key, kind := range kindOfKey {
			name, ok := f[key].(string)
			if !ok {
				continue
			}
			obj := name
			if ns, ok := f["namespace"].(string); ok {
				obj = ns + "/" + name
			}
			require.False(t, strings.HasPrefix(msg, kind+" "+obj), "the message repeats the object: %s", line)
			where := kind + " " + obj
			if field, ok := f["field"].(string); ok {
				require.False(t, strings.HasPrefix(msg, field+":"), "the message repeats the field: %s", line)
				where += ": " + field
			}
			text = where + ": " + msg
		}
		b.WriteString(text + "\n")
	}
	return b.String()
}
