package static

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"
)

// NewLogger builds the structured logger the configuration asks for, text
// (console, no colours) or JSON lines, writing to w. A nil Log is info level
// as text.
func (l *Log) NewLogger(w io.Writer) (zerolog.Logger, error) {
	if l == nil {
		l = &Log{Level: "info", Format: "text"}
	}
	level, err := zerolog.ParseLevel(strings.ToLower(l.Level))
	if err != nil || l.Level == "" {
		return zerolog.Logger{}, fmt.Errorf("log.level %q: must be debug, info, warn or error", l.Level)
	}
	switch strings.ToLower(l.Format) {
	case "json":
	case "text", "":
		// The console writer quotes field values that need it, but prints the
		// message as it is; messages quote object names and field values, so
		// a newline or an escape sequence in one would forge a line or drive
		// the terminal.
		w = zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: "15:04:05", FormatMessage: func(i any) string {
			if i == nil {
				return ""
			}
			return EscapeControl(fmt.Sprint(i))
		}}
	default:
		return zerolog.Logger{}, fmt.Errorf("log.format %q: must be text or json", l.Format)
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
}

// EscapeControl returns s with every control character, invalid UTF-8 byte
// and line or paragraph separator written as a Go escape (\n, \x1b,
// \u2028), so the text stays on one line and shows what it holds. Text
// without any is returned as it is.
func EscapeControl(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case needsEscape(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
