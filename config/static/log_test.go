package static

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An object name that holds a newline, a carriage return or an escape
// sequence cannot forge a log line or drive the terminal in either format.
func TestLogEscapesControlCharacters(t *testing.T) {
	forged := "web\n12:00:00 INF all good ingress=admin\r\x1b[2K\x1b]0;owned\a"
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var out bytes.Buffer
			logger, err := (&Log{Level: "info", Format: format}).NewLogger(&out)
			require.NoError(t, err)
			logger.Error().Str("ingress", forged).Msg("Ingress apps/" + forged + ": bad annotation")
			text := out.String()
			assert.Equal(t, 1, strings.Count(text, "\n"), "one line: %q", text)
			assert.True(t, strings.HasSuffix(text, "\n"))
			for _, c := range []string{"\r", "\x1b", "\a"} {
				assert.NotContains(t, text, c)
			}
			if format == "json" {
				var line map[string]any
				require.NoError(t, json.Unmarshal(out.Bytes(), &line))
				assert.Equal(t, forged, line["ingress"], "JSON keeps the value, escaped")
				return
			}
			assert.Contains(t, text, `Ingress apps/web\n12:00:00 INF all good ingress=admin\r\x1b[2K\x1b]0;owned\a: bad annotation`)
		})
	}
}

func TestEscapeControl(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcödé": "plain text, ünïcödé",
		"a\tb":                `a\tb`,
		"\x00\x7f":            `\x00\x7f`,
		"line\u2028sep":       `line\u2028sep`,
		"bad \xff byte":       `bad \xff byte`,
		"\u0085next":          `\u0085next`,
	} {
		assert.Equal(t, want, EscapeControl(in), "%q", in)
	}
}
