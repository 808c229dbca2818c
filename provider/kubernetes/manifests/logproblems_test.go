package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A manifest problem gives its file and document as fields, and the
// message only says what is wrong.
func TestLogManifestProblemsSaysEachThingOnce(t *testing.T) {
	var buf bytes.Buffer
	errs := LogProblems(zerolog.New(&buf), []*Error{
		{File: "shop.yaml", Document: 2, Err: errors.New("not valid YAML: line 3")},
		{File: "gone.yaml", Err: &fs.PathError{Op: "open", Path: "gone.yaml", Err: fs.ErrNotExist}},
		{File: "shop.yaml", Document: 3, Warning: true, Err: errors.New("v1 ConfigMap is not used, skipped")},
	})
	assert.Equal(t, 2, errs)
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	require.Len(t, lines, 3)
	want := []struct {
		level, message string
		document       any
	}{
		{"error", "not valid YAML: line 3", float64(2)},
		{"error", "open: file does not exist", nil},
		{"warn", "v1 ConfigMap is not used, skipped", float64(3)},
	}
	for i, line := range lines {
		var fields map[string]any
		require.NoError(t, json.Unmarshal(line, &fields))
		assert.Equal(t, want[i].level, fields["level"])
		assert.Equal(t, want[i].message, fields["message"])
		assert.Equal(t, want[i].document, fields["document"])
		assert.NotContains(t, fields["message"], fields["file"], "the file is in its own key")
	}
}
