package ingress

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logKeys decodes one JSON log line and returns its keys in order, with
// repeats (a map would hide a key written twice), and its values.
func logKeys(t *testing.T, line []byte) ([]string, map[string]any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok, "%s", line)
	var keys []string
	values := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		key, ok := tok.(string)
		require.True(t, ok, "%s", line)
		var v any
		require.NoError(t, dec.Decode(&v))
		keys = append(keys, key)
		values[key] = v
	}
	return keys, values
}

// An object's problem says each thing once: the object and the field in
// their fields, what is wrong in the message.
func TestLogObjectErrorSaysEachThingOnce(t *testing.T) {
	for _, e := range []*ObjectError{
		{Kind: "Ingress", Namespace: "shop", Name: "web", Field: "spec.rules[0].http.paths[0].backend.service", Severity: SeverityError, Err: errors.New("service shop/api not found")},
		{Kind: "Node", Name: "node-a", Field: "metadata.labels[topology.kubernetes.io/zone]", Severity: SeverityWarning, Err: errors.New("no zone label")},
	} {
		var buf bytes.Buffer
		LogObjectError(zerolog.New(&buf), e)
		keys, values := logKeys(t, buf.Bytes())
		seen := map[string]bool{}
		for _, k := range keys {
			assert.False(t, seen[k], "key %q twice in %s", k, buf.String())
			seen[k] = true
		}
		assert.Equal(t, e.Err.Error(), values["message"])
		assert.Equal(t, e.Name, values[lowerKind(e.Kind)])
		assert.Equal(t, e.Field, values["field"])
		msg, _ := values["message"].(string)
		assert.NotContains(t, msg, e.Field, "the field is in its own key")
		assert.NotContains(t, msg, e.Kind+" ", "the object is in its own keys")
		if e.Namespace == "" {
			assert.NotContains(t, keys, "namespace", "a cluster-scoped object has no namespace to give")
		}
	}
}
