package static

import (
	"fmt"
	"io"
	"strings"

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
		w = zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: "15:04:05"}
	default:
		return zerolog.Logger{}, fmt.Errorf("log.format %q: must be text or json", l.Format)
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
}
